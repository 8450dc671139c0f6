"""Baseline: one Triton program per output tile; each K block of both operands is dequantized to
bf16 in registers (e4m3 value times its scale) and multiplied on the bf16 tensor cores.

Grid: contiguous (row blocks, column blocks), the tile's group read from its first row; masked
(group x row blocks, column blocks). Tiles with no valid row skip the K loop and store zeros."""

import torch
import triton
import triton.language as tl

SCALE_BLOCK = 128
BLOCK_M = 64
BLOCK_N = 128


@triton.jit
def _dequant_gemm_kernel(
    a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, grouping_ptr, d_ptr,
    N, K, ROWS_PER_GROUP, num_m_tiles,
    MASKED: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    k_blocks = K // BLOCK_K
    if MASKED:
        g = pid_m // num_m_tiles
        m_tile = pid_m % num_m_tiles
        valid_rows = tl.load(grouping_ptr + g)
        local_m = m_tile * BLOCK_M + tl.arange(0, BLOCK_M)
        row_ok = local_m < valid_rows
        in_group = local_m < ROWS_PER_GROUP
        tile_live = m_tile * BLOCK_M < valid_rows
        a_rows = g * ROWS_PER_GROUP + local_m
        a_scale_base = a_scale_ptr + g * k_blocks * ROWS_PER_GROUP
    else:
        local_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        row_ok = tl.load(grouping_ptr + local_m) >= 0
        in_group = local_m < ROWS_PER_GROUP
        g = tl.load(grouping_ptr + pid_m * BLOCK_M)
        tile_live = g >= 0
        g = tl.maximum(g, 0)
        a_rows = local_m
        a_scale_base = a_scale_ptr

    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = cols < N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + a_rows[:, None].to(tl.int64) * K + offs_k[None, :]
    b_ptrs = b_ptr + (g * N + cols)[:, None].to(tl.int64) * K + offs_k[None, :]
    b_scale_row = b_scale_ptr + g * (N // BLOCK_K) * k_blocks + (cols // BLOCK_K) * k_blocks
    k_steps = tl.where(tile_live, k_blocks, 0)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, k_steps):
        a = tl.load(a_ptrs + kb * BLOCK_K, mask=row_ok[:, None], other=0.0)
        b = tl.load(b_ptrs + kb * BLOCK_K, mask=col_ok[:, None], other=0.0)
        sa = tl.load(a_scale_base + kb * ROWS_PER_GROUP + local_m, mask=row_ok, other=0.0)
        sb = tl.load(b_scale_row + kb, mask=col_ok, other=0.0)
        a16 = (a.to(tl.float32) * sa[:, None]).to(tl.bfloat16)
        b16 = (b.to(tl.float32) * sb[:, None]).to(tl.bfloat16)
        acc = tl.dot(a16, tl.trans(b16), acc)

    out = tl.where(row_ok[:, None], acc, 0.0).to(tl.bfloat16)
    ptrs = d_ptr + a_rows[:, None].to(tl.int64) * N + cols[None, :]
    tl.store(ptrs, out, mask=in_group[:, None] & col_ok[None, :])


def run(a, a_scale, b, b_scale, grouping):
    groups, n, k = b.shape
    assert k % SCALE_BLOCK == 0 and n % SCALE_BLOCK == 0, "N and K must be multiples of 128"
    masked = a.dim() == 3
    if masked:
        m_max = a.shape[1]
        assert a.shape == (groups, m_max, k) and a_scale.shape == (groups, k // SCALE_BLOCK, m_max)
        rows_per_group = m_max
        num_m_tiles = triton.cdiv(m_max, BLOCK_M)
        grid_m = groups * num_m_tiles
        d = torch.empty((groups, m_max, n), dtype=torch.bfloat16, device=a.device)
    else:
        rows = a.shape[0]
        assert a.shape == (rows, k) and a_scale.shape == (k // SCALE_BLOCK, rows)
        assert rows % SCALE_BLOCK == 0
        rows_per_group = rows
        num_m_tiles = rows // BLOCK_M
        grid_m = num_m_tiles
        d = torch.empty((rows, n), dtype=torch.bfloat16, device=a.device)
    grid = (grid_m, triton.cdiv(n, BLOCK_N))
    _dequant_gemm_kernel[grid](
        a.view(torch.float8_e4m3fn), a_scale, b.view(torch.float8_e4m3fn), b_scale, grouping, d,
        n, k, rows_per_group, num_m_tiles,
        MASKED=masked, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=SCALE_BLOCK,
        num_warps=4, num_stages=3,
    )
    return d
