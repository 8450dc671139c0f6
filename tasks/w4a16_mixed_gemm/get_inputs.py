"""Inputs of one INT4 weight-only linear layer: bf16 activations and a group-quantized weight.

The weight is quantized from a real-valued matrix the way GPTQ and AWQ checkpoints store it: a
float weight W [K, N] with standard deviation 1/sqrt(K) (so that y = x W has unit scale) is cut
into groups of group_size consecutive rows of K per column, and every group gets a bf16 scale
and a 4-bit zero point:

* symmetric (GPTQ-style): scale = max|w| / 7.5 of the group, zero point 8 for every group;
* asymmetric (AWQ-style): scale = (max w - min w) / 15, zero point round(-min w / scale).

Codes are round(w / scale) + zero clamped to 0..15, so they cluster around the zero point and
use the whole range, as in a real checkpoint. Codes are packed eight to an int32 along K
(qweight [K / 8, N]) and zero points eight to an int32 along N (qzeros [K / group_size, N / 8]),
the lowest nibble holding the lowest index.
"""

import torch

# Rows of K quantized per step, to bound the float32 temporaries of the big workloads.
_ROWS_PER_STEP = 2048


def _pack_nibbles(codes, dim):
    """Packs unsigned 4-bit values (int64, 0..15) eight to an int32 along `dim`, element i of each
    run of eight in bits 4 i .. 4 i + 3; the word's top bit becomes the int32 sign bit."""
    codes = codes.movedim(dim, -1)
    shape = codes.shape
    runs = codes.reshape(*shape[:-1], shape[-1] // 8, 8)
    shifts = torch.arange(0, 32, 4, device=codes.device, dtype=torch.int64)
    words = (runs << shifts).sum(dim=-1)  # 0 .. 2^32 - 1, exact in int64
    words = torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)
    return words.movedim(-1, dim).contiguous()


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    M = int(config["M"])
    K = int(config["K"])
    N = int(config["N"])
    group = int(config["group_size"])
    symmetric = bool(int(config["symmetric"]))
    if K % group or group % 8 or N % 8:
        raise ValueError("K must be a multiple of group_size, group_size and N multiples of 8")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))

    # Activations: the normalized hidden state entering a linear layer, N(0, 1).
    x = torch.randn((M, K), generator=gen, dtype=torch.float32, device=device).to(torch.bfloat16)

    groups = K // group
    codes = torch.empty((K, N), dtype=torch.int64, device=device)
    scales = torch.empty((groups, N), dtype=torch.bfloat16, device=device)
    zeros = torch.empty((groups, N), dtype=torch.int64, device=device)
    rows_per_step = max(group, (_ROWS_PER_STEP // group) * group)
    for start in range(0, K, rows_per_step):
        stop = min(K, start + rows_per_step)
        g0, g1 = start // group, stop // group
        w = torch.randn((stop - start, N), generator=gen, dtype=torch.float32, device=device)
        w = w.mul_(K ** -0.5).reshape(g1 - g0, group, N)
        if symmetric:
            scale = (w.abs().amax(dim=1) / 7.5).clamp_min(1e-8)
            zero = torch.full_like(scale, 8.0)
        else:
            lo, hi = w.amin(dim=1), w.amax(dim=1)
            scale = ((hi - lo) / 15.0).clamp_min(1e-8)
            zero = (-lo / scale).round().clamp(0, 15)
        scale = scale.to(torch.bfloat16)
        q = (w / scale.float()[:, None, :]).round() + zero[:, None, :]
        codes[start:stop] = q.clamp(0, 15).to(torch.int64).reshape(stop - start, N)
        scales[g0:g1] = scale
        zeros[g0:g1] = zero.to(torch.int64)

    qweight = _pack_nibbles(codes, 0)   # [K / 8, N]
    qzeros = _pack_nibbles(zeros, 1)    # [K / group, N / 8]
    return [x, qweight, scales, qzeros]
