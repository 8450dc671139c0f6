"""Anchor: the usual fast PyTorch k-means step (the matmul expansion of the distance), in
library kernels: per iteration one batched fp16 GEMM on tensor cores gives
|c|^2 - 2 x.c (torch.baddbmm, |x|^2 dropped since it does not change the argmin), argmin over
the centroids (first minimum on ties), then scatter_add_ of the points and of ones per cluster
and a division, keeping an empty cluster's centroid. The distance matrix is materialized in fp16.

The fp16 distance carries a rounding error of a fraction of a unit at the workloads' scales;
the task's inputs decide every assignment by at least get_inputs.MARGIN = 2 in squared distance,
so this path returns the reference's assignments on them."""

import torch


def run(x, c0, iters):
    bt, n, d = x.shape
    k = c0.shape[1]
    points = x.float()
    centroids = c0.float()
    ones = torch.ones((bt, n), dtype=torch.float32, device=x.device)
    assignments = None
    for _ in range(iters):
        c16 = centroids.to(torch.float16)
        c_norm = (c16.float() * c16.float()).sum(-1).to(torch.float16)  # [bt, k]
        scores = torch.baddbmm(c_norm[:, None, :], x, c16.transpose(1, 2), alpha=-2.0)
        assignments = scores.argmin(dim=2)  # [bt, n]
        sums = torch.zeros((bt, k, d), dtype=torch.float32, device=x.device)
        sums.scatter_add_(1, assignments[:, :, None].expand(bt, n, d), points)
        counts = torch.zeros((bt, k), dtype=torch.float32, device=x.device)
        counts.scatter_add_(1, assignments, ones)
        means = sums / counts.clamp(min=1.0)[:, :, None]
        centroids = torch.where(counts[:, :, None] > 0, means, centroids)
    return assignments.to(torch.int32), centroids
