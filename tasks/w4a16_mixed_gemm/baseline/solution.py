"""Baseline: one Triton GEMM kernel that dequantizes the weight tile inside its K loop.

Each program owns a [BLOCK_M, BLOCK_N] tile of y and walks K in steps of BLOCK_K. Per step it
loads the activations [BLOCK_M, BLOCK_K] and, for the weight tile [BLOCK_K, BLOCK_N], the int32
word of every element (row k reads word k // 8 and shifts by 4 (k % 8), so each word is loaded
once per row it holds), the scale of every element's group and the zero-point word of every
element. It forms (code - zero) * scale in fp32, rounds to bf16 and multiplies with tl.dot into
an fp32 accumulator; y is stored once in bf16. No split of K: the grid is the output tiles.
PyTorch only allocates y.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _dequant_gemm_kernel(
    x_ptr, qw_ptr, s_ptr, qz_ptr, y_ptr,
    M, N, K,
    GROUP: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    m_ok = offs_m < M
    n_ok = offs_n < N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        a = tl.load(x_ptr + offs_m[:, None] * K + k[None, :], mask=m_ok[:, None], other=0.0)

        words = tl.load(qw_ptr + (k // 8)[:, None] * N + offs_n[None, :],
                        mask=n_ok[None, :], other=0)
        codes = (words >> ((k % 8) * 4)[:, None]) & 0xF
        g = k // GROUP
        scale = tl.load(s_ptr + g[:, None] * N + offs_n[None, :], mask=n_ok[None, :], other=0.0)
        zwords = tl.load(qz_ptr + g[:, None] * (N // 8) + (offs_n // 8)[None, :],
                         mask=n_ok[None, :], other=0)
        zeros = (zwords >> ((offs_n % 8) * 4)[None, :]) & 0xF
        w = ((codes - zeros).to(tl.float32) * scale.to(tl.float32)).to(tl.bfloat16)

        acc = tl.dot(a, w, acc)

    y_ptrs = y_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(y_ptrs, acc.to(tl.bfloat16), mask=m_ok[:, None] & n_ok[None, :])


def run(x, qweight, scales, qzeros):
    M, K = x.shape
    N = qweight.shape[1]
    groups = scales.shape[0]
    assert qweight.shape[0] * 8 == K and K % groups == 0
    assert tuple(scales.shape) == (groups, N) and tuple(qzeros.shape) == (groups, N // 8)
    group = K // groups
    block_m = 16 if M <= 16 else 64
    block_n, block_k = 64, 64
    assert K % block_k == 0
    y = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
    _dequant_gemm_kernel[grid](
        x, qweight, scales, qzeros, y, M, N, K,
        GROUP=group, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
        num_warps=4, num_stages=3,
    )
    return y
