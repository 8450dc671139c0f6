"""Inputs of one FP8 block-scaled grouped GEMM call, in either of the two layouts.

Values are drawn in float32, quantized the DeepSeek way (activations per row and 128 columns,
weights per 128 x 128 block, scale = block amax / 448) and passed as e4m3fn bytes in uint8
tensors, with float32 scales.

contiguous: `valid_rows` routed rows are split over the G groups by a skewed multinomial draw
(every group gets at least one row); each group's rows form one segment that starts on a multiple
of 128 rows, segments appear in increasing group order, and the rows in between and after the
last segment are padding (`grouping[row] = -1`). The buffer has a fixed capacity,
`out_rows = ceil(valid_rows / 128) * 128 + 128 * G` rows, so every trial has the same shapes.

masked: every group owns M_max rows; `grouping[g]` (masked_m) of them are valid. The G counts are
evenly spaced from m_min to m_max, shuffled per trial, so they sum to exactly
G * (m_min + m_max) / 2 (= valid_rows).
"""

import math

import torch

BLOCK = 128
E4M3_MAX = 448.0
# Spread of the per-group shares of the routed rows (log-normal): the busiest group gets about
# 2 to 3 times the mean, as after DeepSeek-V3's auxiliary-loss-free balancing.
ROUTING_SIGMA = 0.6
# Spread of the per-row activation magnitude (log-normal), so that the 1 x 128 scales differ.
ROW_SIGMA = 0.5


def e4m3_codes(x):
    """float32 values with |x| <= 448 -> e4m3fn bit patterns (uint8), round to nearest even."""
    x = x.clamp(-E4M3_MAX, E4M3_MAX)
    if hasattr(torch, "float8_e4m3fn"):
        return x.to(torch.float8_e4m3fn).view(torch.uint8)
    # PyTorch without float8: the same rounding written with integer arithmetic.
    mag = x.abs()
    _, exponent = torch.frexp(mag)                   # mag = f * 2^exponent, 0.5 <= f < 1
    e = (exponent - 1).clamp(min=-6)                 # below 2^-6 the spacing stays 2^-9
    step = torch.pow(2.0, (e - 3).to(torch.float32))  # spacing of e4m3 values in [2^e, 2^(e+1))
    q = torch.round(mag / step) * step               # nearest representable, ties to even
    _, exponent = torch.frexp(q)
    e = (exponent - 1).clamp(min=-6)
    normal = q >= 2.0 ** -6
    mant = torch.where(normal, q / torch.pow(2.0, e.to(torch.float32)) * 8 - 8, q * 512)
    field = torch.where(normal, e + 7, torch.zeros_like(e))
    code = field.to(torch.int32) * 8 + torch.round(mant).to(torch.int32)
    code = code + (x < 0).to(torch.int32) * 128
    return code.to(torch.uint8)


def quantize_rows(x):
    """[..., R, K] float32 -> (codes [..., R, K] uint8, scales [..., K / 128, R] float32): one scale
    per row and 128 columns, stored column-block-major (the scales of one column block are
    contiguous over the rows)."""
    *lead, rows, k = x.shape
    blocks = x.reshape(*lead, rows, k // BLOCK, BLOCK)
    scale = blocks.abs().amax(dim=-1).clamp(min=1e-6) / E4M3_MAX  # [..., R, K/128]
    codes = e4m3_codes(blocks / scale[..., None]).reshape(*lead, rows, k)
    return codes, scale.transpose(-1, -2).contiguous()


def quantize_weights(w):
    """[G, N, K] float32 -> (codes [G, N, K] uint8, scales [G, N / 128, K / 128] float32)."""
    g, n, k = w.shape
    blocks = w.reshape(g, n // BLOCK, BLOCK, k // BLOCK, BLOCK)
    scale = blocks.abs().amax(dim=(2, 4)).clamp(min=1e-8) / E4M3_MAX
    codes = e4m3_codes(blocks / scale[:, :, None, :, None]).reshape(g, n, k)
    return codes, scale.contiguous()


def even_counts(groups, low, high):
    """`groups` integers evenly spaced from low to high, placed symmetrically so that they sum to
    exactly groups * (low + high) / 2."""
    if groups == 1 or low == high:
        return [high] * groups
    span = high - low
    counts = [0] * groups
    for i in range((groups + 1) // 2):
        c = low + (2 * i * span + (groups - 1)) // (2 * (groups - 1))
        counts[i] = c
        counts[groups - 1 - i] = low + high - c
    return counts


def contiguous_capacity(valid_rows, groups):
    return math.ceil(valid_rows / BLOCK) * BLOCK + BLOCK * groups


def _activations(shape, gen, device):
    x = torch.randn(shape, generator=gen, dtype=torch.float32, device=device)
    row_mag = torch.randn(shape[:-1] + (1,), generator=gen, dtype=torch.float32, device=device)
    return x * torch.exp(ROW_SIGMA * row_mag)


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    layout = config["layout"]
    groups = int(config["G"])
    n = int(config["N"])
    k = int(config["K"])
    valid_rows = int(config["valid_rows"])
    out_rows = int(config["out_rows"])
    active_groups = int(config["active_groups"])
    if n % BLOCK or k % BLOCK:
        raise ValueError("N and K must be multiples of 128")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    w = torch.randn((groups, n, k), generator=gen, dtype=torch.float32, device=device)
    w.mul_(1.0 / math.sqrt(k))
    b, b_scale = quantize_weights(w)
    del w

    if layout == "contiguous":
        if out_rows != contiguous_capacity(valid_rows, groups):
            raise ValueError("out_rows must be ceil(valid_rows / 128) * 128 + 128 * G")
        if active_groups != groups or valid_rows < groups:
            raise ValueError("contiguous workloads give every group at least one row")
        share = torch.exp(ROUTING_SIGMA * torch.randn(groups, generator=gen, device=device))
        counts = [1] * groups
        if valid_rows > groups:
            picks = torch.multinomial(share / share.sum(), valid_rows - groups, replacement=True,
                                      generator=gen)
            counts = (torch.bincount(picks, minlength=groups) + 1).tolist()
        grouping = torch.full((out_rows,), -1, dtype=torch.int32)
        start = 0
        for g, c in enumerate(counts):
            grouping[start:start + c] = g
            start += math.ceil(c / BLOCK) * BLOCK
        grouping = grouping.to(device)
        x = _activations((out_rows, k), gen, device)
    elif layout == "masked":
        m_max_rows = int(config["M_max"])
        low, high = int(config["m_min"]), int(config["m_max"])
        if not 0 <= low <= high <= m_max_rows:
            raise ValueError("need 0 <= m_min <= m_max <= M_max")
        counts = even_counts(groups, low, high)
        if sum(counts) != valid_rows or out_rows != groups * m_max_rows:
            raise ValueError("valid_rows must be G * (m_min + m_max) / 2 and out_rows G * M_max")
        if sum(1 for c in counts if c > 0) != active_groups:
            raise ValueError("active_groups must count the groups with at least one row")
        order = torch.randperm(groups, generator=gen, device=device)
        grouping = torch.tensor(counts, dtype=torch.int32, device=device)[order].contiguous()
        x = _activations((groups, m_max_rows, k), gen, device)
    else:
        raise ValueError(f"unknown layout {layout!r}")

    a, a_scale = quantize_rows(x)
    return [a, a_scale, b, b_scale, grouping]
