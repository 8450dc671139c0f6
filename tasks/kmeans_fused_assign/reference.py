"""Batched k-means (Lloyd iterations), written the direct way.

Every iteration takes the full [Bt, N, K] matrix of point-to-centroid distances with torch.cdist
in fp32, assigns each point to the column of its smallest distance with argmin (the first, i.e.
lowest-numbered, centroid among equal distances), then adds up the points of each cluster with
index_add_, counts them the same way, and divides; a cluster that received no point keeps its
previous centroid.
"""

import torch


def run(x, c0, iters):
    bt, n, d = x.shape
    k = c0.shape[1]
    device = x.device
    points = x.float()
    centroids = c0.float()
    offsets = torch.arange(bt, device=device)[:, None] * k
    ones = torch.ones((bt * n,), dtype=torch.float32, device=device)
    assignments = None
    for _ in range(iters):
        distances = torch.cdist(points, centroids)  # [bt, n, k]
        assignments = distances.argmin(dim=2)  # [bt, n]
        flat = (assignments + offsets).reshape(-1)
        sums = torch.zeros((bt * k, d), dtype=torch.float32, device=device)
        sums.index_add_(0, flat, points.reshape(bt * n, d))
        counts = torch.zeros((bt * k,), dtype=torch.float32, device=device)
        counts.index_add_(0, flat, ones)
        means = sums / counts.clamp(min=1.0)[:, None]
        centroids = torch.where(counts[:, None] > 0, means,
                                centroids.reshape(bt * k, d)).reshape(bt, k, d)
    return assignments.to(torch.int32), centroids
