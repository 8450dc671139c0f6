"""Batched k-means (Lloyd), first custom-kernel version.

Per iteration, three Triton kernels:
  _assign_kernel    one program per (64-point tile, batch item) computes the squared distances
                    |x|^2 + |c|^2 - 2 x.c to 64 centroids at a time (tl.dot on the fp32
                    centroids cast to fp16, |c|^2 recomputed from the loaded tile) and keeps the
                    smallest, lowest index first; writes the point's cluster.
  _accumulate_kernel one program per (64-point tile, batch item) adds every point into its
                    cluster's fp32 sum and count with atomics.
  _finalize_kernel  one program per (cluster, batch item) divides the sum by the count (or keeps
                    the centroid when the count is zero) and clears the sum and count.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 64
BLOCK_K = 64


@triton.jit
def _assign_kernel(x_ptr, cent_ptr, assign_ptr, N, K,
                   D: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < N
    dims = tl.arange(0, D)
    x = tl.load(x_ptr + (b * N + rows)[:, None] * D + dims[None, :], mask=row_mask[:, None],
                other=0.0)
    xf = x.to(tl.float32)
    x_norm = tl.sum(xf * xf, axis=1)

    best = tl.full([BLOCK_N], float("inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_N], dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        col_mask = cols < K
        c = tl.load(cent_ptr + (b * K + cols)[:, None] * D + dims[None, :],
                    mask=col_mask[:, None], other=0.0)  # fp32
        c_half = c.to(tl.float16)
        cf = c_half.to(tl.float32)
        c_norm = tl.sum(cf * cf, axis=1)
        dot = tl.dot(x, tl.trans(c_half))
        dist = x_norm[:, None] + c_norm[None, :] - 2.0 * dot
        dist = tl.where(col_mask[None, :], dist, float("inf"))
        tile_min = tl.min(dist, axis=1)
        tile_idx = tl.min(tl.where(dist == tile_min[:, None], cols[None, :], 2147483647), axis=1)
        better = tile_min < best
        best = tl.where(better, tile_min, best)
        best_idx = tl.where(better, tile_idx, best_idx)
    tl.store(assign_ptr + b * N + rows, best_idx, mask=row_mask)


@triton.jit
def _accumulate_kernel(x_ptr, assign_ptr, sums_ptr, counts_ptr, N, K,
                       D: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < N
    dims = tl.arange(0, D)
    x = tl.load(x_ptr + (b * N + rows)[:, None] * D + dims[None, :], mask=row_mask[:, None],
                other=0.0).to(tl.float32)
    a = tl.load(assign_ptr + b * N + rows, mask=row_mask, other=0)
    full_mask = row_mask[:, None] & (dims[None, :] < D)
    tl.atomic_add(sums_ptr + (b * K + a)[:, None] * D + dims[None, :], x, mask=full_mask)
    tl.atomic_add(counts_ptr + b * K + a, tl.full([BLOCK_N], 1, tl.int32), mask=row_mask)


@triton.jit
def _finalize_kernel(sums_ptr, counts_ptr, cent_ptr, K, D: tl.constexpr):
    k = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    dims = tl.arange(0, D)
    offs = (b * K + k) * D + dims
    count = tl.load(counts_ptr + b * K + k)
    total = tl.load(sums_ptr + offs)
    old = tl.load(cent_ptr + offs)
    mean = tl.where(count > 0, total / count.to(tl.float32), old)
    tl.store(cent_ptr + offs, mean)
    tl.store(sums_ptr + offs, tl.zeros([D], dtype=tl.float32))
    tl.store(counts_ptr + b * K + k, 0)


@triton.jit
def _init_kernel(c0_ptr, cent_ptr, sums_ptr, counts_ptr, K, D: tl.constexpr):
    k = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    dims = tl.arange(0, D)
    offs = (b * K + k) * D + dims
    tl.store(cent_ptr + offs, tl.load(c0_ptr + offs).to(tl.float32))
    tl.store(sums_ptr + offs, tl.zeros([D], dtype=tl.float32))
    tl.store(counts_ptr + b * K + k, 0)


def run(x, c0, iters):
    assert x.dim() == 3 and c0.dim() == 3 and x.shape[0] == c0.shape[0]
    assert x.shape[2] == c0.shape[2]
    assert x.dtype == torch.float16 and c0.dtype == torch.float16
    assert x.is_contiguous() and c0.is_contiguous()
    bt, n, d = x.shape
    k = c0.shape[1]
    assert d in (16, 32, 64, 128, 256)
    assert iters >= 1
    device = x.device

    assignments = torch.empty((bt, n), dtype=torch.int32, device=device)
    centroids = torch.empty((bt, k, d), dtype=torch.float32, device=device)
    sums = torch.empty((bt, k, d), dtype=torch.float32, device=device)
    counts = torch.empty((bt, k), dtype=torch.int32, device=device)

    _init_kernel[(k, bt)](c0, centroids, sums, counts, k, D=d, num_warps=1)
    grid_points = (triton.cdiv(n, BLOCK_N), bt)
    for _ in range(iters):
        _assign_kernel[grid_points](x, centroids, assignments, n, k,
                                    D=d, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
        _accumulate_kernel[grid_points](x, assignments, sums, counts, n, k,
                                        D=d, BLOCK_N=BLOCK_N, num_warps=4)
        _finalize_kernel[(k, bt)](sums, counts, centroids, k, D=d, num_warps=1)
    return assignments, centroids
