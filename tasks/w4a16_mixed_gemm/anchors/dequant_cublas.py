"""Anchor: dequantize with PyTorch operators, then the bf16 cuBLAS GEMM on the dequantized weight.

This is what a user without a mixed-precision kernel runs: the weight is expanded to bf16 in
device memory every call (the inputs change between calls, so it cannot be kept), with the group
parameters broadcast instead of repeated per row, and torch.mm (cuBLAS) multiplies. Its time is
the dense bf16 GEMM plus one dequantization pass; the GEMM alone reads 2 bytes per weight, four
times what the packed codes take.
"""

import torch

_shifts = {}


def _nibble_shifts(device):
    if device not in _shifts:
        _shifts[device] = torch.arange(0, 32, 4, device=device, dtype=torch.int32)
    return _shifts[device]


def run(x, qweight, scales, qzeros):
    K = qweight.shape[0] * 8
    N = qweight.shape[1]
    groups = scales.shape[0]
    group = K // groups
    shifts = _nibble_shifts(x.device)
    # [groups, group / 8, 8, N]: nibble i of word r is row 8 r + i.
    codes = (qweight.view(groups, group // 8, 1, N) >> shifts.view(1, 1, 8, 1)) & 0xF
    zeros = ((qzeros[:, :, None] >> shifts.view(1, 1, 8)) & 0xF).reshape(groups, 1, 1, N)
    weight = (codes - zeros).to(torch.bfloat16) * scales.view(groups, 1, 1, N)
    return torch.mm(x, weight.view(K, N))
