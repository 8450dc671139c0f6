"""Expert: FP8 block-scaled grouped GEMM as one persistent Triton kernel.

Design (guidance.json):
* L1: the scales are constant over each 128-wide K block, so every block's product runs on the
  FP8 tensor cores straight from the e4m3 bytes and is scaled once, as an accumulator tile, by the
  outer product of its activation and weight scales. No operand is ever dequantized.
* L2: two-level accumulation: the tensor-core product of one K block (4 FP8 MMA steps, reduced-
  precision accumulation) is promoted into a float32 accumulator with its scales on the CUDA
  cores. A persistent grid walks a flat list of output tiles tagged with their group: contiguous
  tiles in (row block, column block) order, so the column tiles of one row block run side by side
  and the row blocks of one group follow each other (both operands reused through the L2); masked
  tiles in (group, column block, row block) order, with the row blocks at or past masked_m
  writing zeros without touching A or B. Operands arrive by TMA (host tensor descriptors) through
  a multi-stage software pipeline; the activation scales are read as one contiguous vector per
  K block from their column-block-major layout, and with 128-wide column tiles the weight scale
  is one value per K block, so the promotion is a single FMA per accumulator element.
* L3: tile shapes per layout: 128 x 128 with two warpgroups for the compute-bound contiguous
  products (the promoted accumulator and the block product both stay in registers), 64 x 128 and
  a deeper pipeline for the bandwidth-bound masked decode.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

SCALE_BLOCK = 128


@triton.jit
def _fp8_grouped_gemm_kernel(
    a_desc, b_desc, a_scale_ptr, b_scale_ptr, grouping_ptr, d_ptr,
    N, K_BLOCKS, ROWS_PER_GROUP, num_m_tiles, num_n_tiles, num_tiles, num_programs,
    MASKED: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    STAGES: tl.constexpr,
):
    pid = tl.program_id(0)
    row_in_tile = tl.arange(0, BLOCK_M)
    col_in_tile = tl.arange(0, BLOCK_N)
    n_scale_blocks = N // BLOCK_K

    for tile in range(pid, num_tiles, num_programs):
        if MASKED:
            # (group, column block, row block), row block fastest.
            m_tile = tile % num_m_tiles
            gn = tile // num_m_tiles
            n_tile = gn % num_n_tiles
            g = gn // num_n_tiles
            valid_rows = tl.load(grouping_ptr + g)
            local_m = m_tile * BLOCK_M + row_in_tile          # row within the group
            row_ok = local_m < valid_rows
            in_group = local_m < ROWS_PER_GROUP               # rows of this group's buffer
            tile_live = m_tile * BLOCK_M < valid_rows
            a_row0 = g * ROWS_PER_GROUP + m_tile * BLOCK_M
            a_scale_base = a_scale_ptr + g * K_BLOCKS * ROWS_PER_GROUP
            out_row = g * ROWS_PER_GROUP + local_m
        else:
            # (row block, column block), column block fastest.
            n_tile = tile % num_n_tiles
            m_tile = tile // num_n_tiles
            local_m = m_tile * BLOCK_M + row_in_tile
            row_group = tl.load(grouping_ptr + local_m)
            row_ok = row_group >= 0
            in_group = local_m < ROWS_PER_GROUP
            # Segments start on 128-row boundaries and their valid rows come first, so a tile
            # whose first row is padding is padding throughout.
            g = tl.load(grouping_ptr + m_tile * BLOCK_M)
            tile_live = g >= 0
            g = tl.maximum(g, 0)
            a_row0 = m_tile * BLOCK_M
            a_scale_base = a_scale_ptr
            out_row = local_m

        n0 = n_tile * BLOCK_N
        cols = n0 + col_in_tile
        col_ok = cols < N
        b_row0 = g * N + n0
        # BLOCK_N == 128 and n0 % 128 == 0: the tile's columns share one weight scale per K block.
        b_scale_row = b_scale_ptr + (g * n_scale_blocks + n_tile) * K_BLOCKS
        # A dead tile runs no K step: its accumulator stays zero and only zeros are stored.
        k_steps = tl.where(tile_live, K_BLOCKS, 0)

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in tl.range(0, k_steps, num_stages=STAGES):
            k0 = kb * BLOCK_K
            a = a_desc.load([a_row0, k0])                     # [BLOCK_M, 128] e4m3
            b = b_desc.load([b_row0, k0])                     # [BLOCK_N, 128] e4m3
            sa = tl.load(a_scale_base + kb * ROWS_PER_GROUP + local_m, mask=in_group, other=0.0)
            sb = tl.load(b_scale_row + kb)
            # One K block on the FP8 tensor cores, then promoted with its two scales: the
            # scales combine into one per-row factor, so promotion is one FMA per element.
            block = tl.dot(a, b.T)
            acc += block * (sa * sb)[:, None]

        out = tl.where(row_ok[:, None], acc, 0.0).to(tl.bfloat16)
        ptrs = d_ptr + out_row[:, None] * N + cols[None, :]
        tl.store(ptrs, out, mask=in_group[:, None] & col_ok[None, :])


def _config(masked):
    """(BLOCK_M, BLOCK_N, num_warps, stages). BLOCK_N stays 128, one weight-scale block."""
    if masked:
        # Decode: few rows per group, bandwidth-bound on the weights.
        return 64, 128, 4, 6
    return 128, 128, 8, 4


def run(a, a_scale, b, b_scale, grouping):
    groups, n, k = b.shape
    assert k % SCALE_BLOCK == 0 and n % SCALE_BLOCK == 0, "N and K must be multiples of 128"
    assert b_scale.shape == (groups, n // SCALE_BLOCK, k // SCALE_BLOCK)
    k_blocks = k // SCALE_BLOCK
    masked = a.dim() == 3
    block_m, block_n, num_warps, stages = _config(masked)
    assert block_n == SCALE_BLOCK, "the promotion takes one weight scale per tile and K block"

    if masked:
        assert a.shape[0] == groups and a.shape[2] == k and grouping.shape == (groups,)
        m_max = a.shape[1]
        assert a_scale.shape == (groups, k_blocks, m_max)
        rows_per_group = m_max
        num_m_tiles = triton.cdiv(m_max, block_m)
        d = torch.empty((groups, m_max, n), dtype=torch.bfloat16, device=a.device)
        a2 = a.view(torch.float8_e4m3fn).view(groups * m_max, k)
    else:
        rows = a.shape[0]
        assert a.shape[1] == k and grouping.shape == (rows,) and a_scale.shape == (k_blocks, rows)
        assert rows % SCALE_BLOCK == 0, "the contiguous buffer holds whole 128-row blocks"
        rows_per_group = rows
        num_m_tiles = rows // block_m
        d = torch.empty((rows, n), dtype=torch.bfloat16, device=a.device)
        a2 = a.view(torch.float8_e4m3fn)
    b2 = b.view(torch.float8_e4m3fn).view(groups * n, k)

    num_n_tiles = triton.cdiv(n, block_n)
    num_tiles = num_m_tiles * num_n_tiles * (groups if masked else 1)
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    num_programs = max(1, min(num_tiles, num_sms))

    a_desc = TensorDescriptor.from_tensor(a2, [block_m, SCALE_BLOCK])
    b_desc = TensorDescriptor.from_tensor(b2, [block_n, SCALE_BLOCK])
    _fp8_grouped_gemm_kernel[(num_programs,)](
        a_desc, b_desc, a_scale, b_scale, grouping, d,
        n, k_blocks, rows_per_group, num_m_tiles, num_n_tiles, num_tiles, num_programs,
        MASKED=masked, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=SCALE_BLOCK, STAGES=stages,
        num_warps=num_warps, num_stages=stages,
    )
    return d
