"""Reference: unpack the 4-bit codes and zero points with shifts and masks, expand the group
scales and zero points to every row of K, write the dequantized bf16 weight W [K, N], and multiply
with torch.matmul (bf16 operands, fp32 accumulation, bf16 result)."""

import torch


def run(x, qweight, scales, qzeros):
    K = qweight.shape[0] * 8
    N = qweight.shape[1]
    groups = scales.shape[0]
    group = K // groups
    shifts = torch.arange(0, 32, 4, device=qweight.device, dtype=torch.int32)

    # Codes: nibble i of qweight[r, n] is row 8 r + i of column n.
    codes = (qweight[:, None, :] >> shifts[None, :, None]) & 0xF     # [K / 8, 8, N]
    codes = codes.reshape(K, N)
    # Zero points: nibble i of qzeros[g, c] is column 8 c + i of group g.
    zeros = (qzeros[:, :, None] >> shifts[None, None, :]) & 0xF      # [groups, N / 8, 8]
    zeros = zeros.reshape(groups, N)

    zeros_full = zeros.repeat_interleave(group, dim=0)               # [K, N]
    scales_full = scales.repeat_interleave(group, dim=0)             # [K, N]
    weight = (codes - zeros_full).to(torch.bfloat16) * scales_full   # [K, N] bf16
    return torch.matmul(x, weight)
