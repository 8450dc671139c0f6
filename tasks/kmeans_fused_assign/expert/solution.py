"""Batched k-means (Lloyd): fused distance-argmin on tensor cores, centroid update by counting
sort and a contention-free segmented mean.

Per iteration, four Triton kernels:
  _assign_kernel   one program per (128-point tile, batch item): the x tile stays in shared
                   memory while the batch item's fp16 centroids stream through in 128-row tiles;
                   scores |c|^2 - 2 x.c come from one fp16 MMA per tile with fp32 accumulation
                   (|x|^2 is dropped), a running (min, index) per point keeps the lowest index
                   on ties; the point's cluster is written and counted (one int32 atomic per
                   point into the cluster histogram).
  _scan_kernel     one program per batch item: exclusive prefix sum of the histogram gives each
                   cluster's segment start; it also seeds the scatter cursors and clears the
                   histogram for the next iteration.
  _scatter_kernel  every point claims a slot in its cluster's segment (atomic on the cursor)
                   and writes its index there: the points are now grouped by cluster.
  _update_kernel   one program per (cluster, batch item) reads its segment's points, sums them
                   in fp32 and writes the mean (or keeps the old centroid when the segment is
                   empty) together with the fp16 copy and |c|^2 the next assignment uses.
No [N, K] distance matrix exists; no two programs add into the same centroid.
"""

import torch
import triton
import triton.language as tl

ASSIGN_BLOCK_N = 128
ASSIGN_BLOCK_K = 128
SCATTER_BLOCK = 1024
UPDATE_ROWS = 32
PREP_BLOCK_K = 32


@triton.jit
def _prep_kernel(c0_ptr, cent_ptr, c16_ptr, cnorm_ptr, counts_ptr, K,
                 D: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_k = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    dims = tl.arange(0, D)
    row_mask = rows < K
    offs = (b * K + rows)[:, None] * D + dims[None, :]
    c16 = tl.load(c0_ptr + offs, mask=row_mask[:, None], other=0.0)
    cf = c16.to(tl.float32)
    tl.store(cent_ptr + offs, cf, mask=row_mask[:, None])
    tl.store(c16_ptr + offs, c16, mask=row_mask[:, None])
    tl.store(cnorm_ptr + b * K + rows, tl.sum(cf * cf, axis=1), mask=row_mask)
    tl.store(counts_ptr + b * K + rows, tl.zeros([BLOCK_K], dtype=tl.int32), mask=row_mask)


@triton.jit
def _assign_kernel(x_ptr, c16_ptr, cnorm_ptr, assign_ptr, counts_ptr, N, K,
                   D: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < N
    dims = tl.arange(0, D)
    x = tl.load(x_ptr + (b * N + rows)[:, None] * D + dims[None, :],
                mask=row_mask[:, None], other=0.0)  # [BLOCK_N, D] fp16, loaded once

    best = tl.full([BLOCK_N], float("inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_N], dtype=tl.int32)
    cols_base = tl.arange(0, BLOCK_K)
    c_base = c16_ptr + b * K * D
    n_base = cnorm_ptr + b * K
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + cols_base
        col_mask = cols < K
        c = tl.load(c_base + cols[:, None] * D + dims[None, :], mask=col_mask[:, None],
                    other=0.0)  # [BLOCK_K, D] fp16
        cn = tl.load(n_base + cols, mask=col_mask, other=0.0)
        dot = tl.dot(x, tl.trans(c))  # [BLOCK_N, BLOCK_K] fp32 accumulation
        score = cn[None, :] - 2.0 * dot
        score = tl.where(col_mask[None, :], score, float("inf"))
        tile_min = tl.min(score, axis=1)
        # Lowest column holding the tile minimum.
        tile_idx = tl.min(tl.where(score == tile_min[:, None], cols[None, :], 2147483647), axis=1)
        # Strictly smaller: an earlier tile (lower indices) keeps an equal minimum.
        better = tile_min < best
        best = tl.where(better, tile_min, best)
        best_idx = tl.where(better, tile_idx, best_idx)

    tl.store(assign_ptr + b * N + rows, best_idx, mask=row_mask)
    ones = tl.full([BLOCK_N], 1, tl.int32)
    tl.atomic_add(counts_ptr + b * K + best_idx, ones, mask=row_mask, sem="relaxed")


@triton.jit
def _scan_kernel(counts_ptr, starts_ptr, sizes_ptr, cursor_ptr, K, BLOCK: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ks = tl.arange(0, BLOCK)
    mask = ks < K
    cnt = tl.load(counts_ptr + b * K + ks, mask=mask, other=0)
    start = tl.cumsum(cnt, axis=0) - cnt
    tl.store(starts_ptr + b * K + ks, start, mask=mask)
    tl.store(cursor_ptr + b * K + ks, start, mask=mask)
    tl.store(sizes_ptr + b * K + ks, cnt, mask=mask)
    tl.store(counts_ptr + b * K + ks, tl.zeros([BLOCK], dtype=tl.int32), mask=mask)


@triton.jit
def _scatter_kernel(assign_ptr, cursor_ptr, order_ptr, N, K, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    mask = rows < N
    a = tl.load(assign_ptr + b * N + rows, mask=mask, other=0)
    ones = tl.full([BLOCK], 1, tl.int32)
    slot = tl.atomic_add(cursor_ptr + b * K + a, ones, mask=mask, sem="relaxed")
    tl.store(order_ptr + b * N + slot, rows, mask=mask)


@triton.jit
def _update_kernel(x_ptr, order_ptr, starts_ptr, sizes_ptr, cent_ptr, c16_ptr, cnorm_ptr, N, K,
                   D: tl.constexpr, ROWS: tl.constexpr):
    k = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    start = tl.load(starts_ptr + b * K + k)
    size = tl.load(sizes_ptr + b * K + k)
    dims = tl.arange(0, D)
    r = tl.arange(0, ROWS)
    acc = tl.zeros([ROWS, D], dtype=tl.float32)
    for i in range(0, size, ROWS):
        m = (i + r) < size
        idx = tl.load(order_ptr + b * N + start + i + r, mask=m, other=0)
        pts = tl.load(x_ptr + (b * N + idx)[:, None] * D + dims[None, :], mask=m[:, None],
                      other=0.0)
        acc += pts.to(tl.float32)
    total = tl.sum(acc, axis=0)  # [D]
    c_offs = (b * K + k) * D + dims
    old = tl.load(cent_ptr + c_offs)
    mean = tl.where(size > 0, total / size.to(tl.float32), old)
    tl.store(cent_ptr + c_offs, mean)
    m16 = mean.to(tl.float16)
    tl.store(c16_ptr + c_offs, m16)
    mf = m16.to(tl.float32)
    tl.store(cnorm_ptr + b * K + k, tl.sum(mf * mf, axis=0))


def run(x, c0, iters):
    assert x.dim() == 3 and c0.dim() == 3 and x.shape[0] == c0.shape[0]
    assert x.shape[2] == c0.shape[2]
    assert x.dtype == torch.float16 and c0.dtype == torch.float16
    assert x.is_contiguous() and c0.is_contiguous()
    bt, n, d = x.shape
    k = c0.shape[1]
    assert d in (16, 32, 64, 128, 256), "d must be a power of two for the MMA tile"
    assert iters >= 1
    device = x.device

    assignments = torch.empty((bt, n), dtype=torch.int32, device=device)
    centroids = torch.empty((bt, k, d), dtype=torch.float32, device=device)
    c16 = torch.empty((bt, k, d), dtype=torch.float16, device=device)
    cnorm = torch.empty((bt, k), dtype=torch.float32, device=device)
    counts = torch.empty((bt, k), dtype=torch.int32, device=device)
    starts = torch.empty((bt, k), dtype=torch.int32, device=device)
    sizes = torch.empty((bt, k), dtype=torch.int32, device=device)
    cursor = torch.empty((bt, k), dtype=torch.int32, device=device)
    order = torch.empty((bt, n), dtype=torch.int32, device=device)

    _prep_kernel[(triton.cdiv(k, PREP_BLOCK_K), bt)](
        c0, centroids, c16, cnorm, counts, k, D=d, BLOCK_K=PREP_BLOCK_K, num_warps=4)
    scan_block = max(triton.next_power_of_2(k), 16)
    scan_warps = 8 if scan_block >= 2048 else 4
    for _ in range(iters):
        _assign_kernel[(triton.cdiv(n, ASSIGN_BLOCK_N), bt)](
            x, c16, cnorm, assignments, counts, n, k,
            D=d, BLOCK_N=ASSIGN_BLOCK_N, BLOCK_K=ASSIGN_BLOCK_K, num_warps=8, num_stages=3)
        _scan_kernel[(bt,)](counts, starts, sizes, cursor, k, BLOCK=scan_block,
                            num_warps=scan_warps)
        _scatter_kernel[(triton.cdiv(n, SCATTER_BLOCK), bt)](
            assignments, cursor, order, n, k, BLOCK=SCATTER_BLOCK, num_warps=4)
        _update_kernel[(k, bt)](
            x, order, starts, sizes, centroids, c16, cnorm, n, k,
            D=d, ROWS=UPDATE_ROWS, num_warps=4)
    return assignments, centroids
