"""FP8 block-scaled grouped GEMM, written the direct way: dequantize both operands to float32,
multiply in float32, round once to bf16.

Both layouts are handled without reading the grouping on the host, so the call can be captured
in a CUDA graph. contiguous: every aligned 128-row block of the activations belongs to one group
(or is padding), so the weights of each block's group are gathered and the blocks are multiplied
as one batched product, a bounded number of blocks at a time. masked: every group's M_max rows
are multiplied by its weights as one batched product. Rows that are not valid are zero.
"""

import torch

BLOCK = 128
# The gathered float32 weights of one batch of row blocks stay below about this many bytes.
_CHUNK_BYTES = 4 * 2**30


def _e4m3_values(device):
    """The float32 value of every e4m3fn code (the NaN codes 0x7f and 0xff read as NaN)."""
    codes = torch.arange(256, device=device)
    sign = torch.where(codes >= 128, -1.0, 1.0)
    exp_field = (codes // 8) % 16
    mant = (codes % 8).to(torch.float32)
    normal = (8 + mant) * torch.pow(2.0, (exp_field - 10).to(torch.float32))
    value = torch.where(exp_field > 0, normal, mant * 2.0 ** -9) * sign
    return torch.where(codes % 128 == 127, torch.full_like(value, float("nan")), value)


def _decode(codes):
    """uint8 e4m3fn bytes -> float32 values."""
    if hasattr(torch, "float8_e4m3fn"):
        return codes.view(torch.float8_e4m3fn).to(torch.float32)
    return _e4m3_values(codes.device)[codes.long()]


def run(a, a_scale, b, b_scale, grouping):
    groups, n, k = b.shape
    kb = k // BLOCK
    # Weights: every 128 x 128 block times its scale.
    w = _decode(b).view(groups, n // BLOCK, BLOCK, kb, BLOCK)
    w = (w * b_scale[:, :, None, :, None]).view(groups, n, k)

    if a.dim() == 2:  # contiguous
        rows = a.shape[0]
        x = _decode(a).view(rows, kb, BLOCK) * a_scale.t()[:, :, None]
        x = x.view(rows // BLOCK, BLOCK, k)
        block_group = grouping.view(rows // BLOCK, BLOCK)[:, 0].long().clamp(min=0)
        out = torch.empty((rows // BLOCK, BLOCK, n), dtype=torch.float32, device=a.device)
        per_chunk = max(1, _CHUNK_BYTES // (n * k * 4))
        for first in range(0, rows // BLOCK, per_chunk):
            sel = slice(first, min(first + per_chunk, rows // BLOCK))
            out[sel] = torch.bmm(x[sel], w[block_group[sel]].transpose(1, 2))
        out = out.view(rows, n)
        valid = (grouping >= 0)[:, None]
    else:  # masked
        m_max = a.shape[1]
        x = _decode(a).view(groups, m_max, kb, BLOCK) * a_scale.transpose(1, 2)[:, :, :, None]
        out = torch.bmm(x.view(groups, m_max, k), w.transpose(1, 2))
        valid = (torch.arange(m_max, device=a.device)[None, :] < grouping[:, None].long())[:, :, None]
    return torch.where(valid, out, torch.zeros((), dtype=out.dtype, device=out.device)).to(torch.bfloat16)
