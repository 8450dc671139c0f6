"""Inputs of one batched k-means call: points x [Bt, N, d] fp16, starting centroids
c0 [Bt, K, d] fp16 and the iteration count.

Each batch item holds K - K // EMPTY_EVERY groups of points ("live" groups). A group has a centre
drawn from N(0, 1) per dimension; its points are the centre plus N(0, POINT_STD^2) noise. Group
sizes are skewed (log-normal weights with standard deviation SIZE_SKEW, every group non-empty),
and the points of all groups are shuffled together. The starting centroid of a live group is its
centre plus N(0, START_STD^2) noise; the remaining K // EMPTY_EVERY starting centroids are
centres of groups that hold no point, placed at random among the live ones, so they stay empty
in every iteration and keep their starting value.

Every assignment of every iteration is then decided by a wide margin: the first iteration maps
each point to its own group, the first update moves each live centroid to its group's mean, and
from then on the assignments and centroids repeat. check_margins verifies, in float64, that for
the starting centroids and for the group means the nearest centroid of every point is its own
group's and that the next one is at least MARGIN farther in squared distance. Any correct
implementation, whatever precision it computes distances in (fp16 products with fp32
accumulation, dropping |x|^2, rounding the centroids to fp16), stays far inside that margin, so
every correct implementation returns the same assignments.
"""

import torch

POINT_STD = 0.35
START_STD = 0.1
SIZE_SKEW = 0.75
EMPTY_EVERY = 64
MARGIN = 2.0
# Rows of x per block in the float64 margin check.
_CHECK_ROWS = 8192


def _draw(bt, n, d, k, gen, device):
    empty = k // EMPTY_EVERY
    live = k - empty
    if n < live:
        raise ValueError("every live group needs a point: N must be at least K - K // 64")
    centres = torch.randn((bt, k, d), generator=gen, device=device)
    # Which centroid slots hold the empty groups: a random choice per batch item.
    slot_order = torch.argsort(torch.rand((bt, k), generator=gen, device=device), dim=1)
    live_slots = slot_order[:, :live]  # [bt, live]

    weights = torch.exp(SIZE_SKEW * torch.randn((bt, live), generator=gen, device=device))
    extra = torch.multinomial(weights, n - live, replacement=True, generator=gen)
    group = torch.cat([torch.arange(live, device=device).expand(bt, live), extra], dim=1)
    shuffle = torch.argsort(torch.rand((bt, n), generator=gen, device=device), dim=1)
    group = torch.gather(group, 1, shuffle)  # [bt, n], live-group number of each point
    labels = torch.gather(live_slots, 1, group)  # [bt, n], centroid slot of each point

    noise = torch.randn((bt, n, d), generator=gen, device=device) * POINT_STD
    x = torch.gather(centres, 1, labels[:, :, None].expand(bt, n, d)) + noise
    start = centres + START_STD * torch.randn((bt, k, d), generator=gen, device=device)
    return x.to(torch.float16), start.to(torch.float16), labels


def group_means(x, labels, start):
    """Float64 means of the points of each slot; a slot without points keeps start."""
    bt, n, d = x.shape
    k = start.shape[1]
    flat = (labels.long() + torch.arange(bt, device=x.device)[:, None] * k).reshape(-1)
    sums = torch.zeros((bt * k, d), dtype=torch.float64, device=x.device)
    sums.index_add_(0, flat, x.double().reshape(-1, d))
    counts = torch.zeros((bt * k,), dtype=torch.float64, device=x.device)
    counts.index_add_(0, flat, torch.ones_like(flat, dtype=torch.float64))
    means = torch.where(counts[:, None] > 0, sums / counts.clamp(min=1)[:, None],
                        start.double().reshape(bt * k, d))
    return means.reshape(bt, k, d)


def check_margins(x, labels, centroids):
    """Smallest over all points of (second-nearest - nearest) squared distance in float64, and
    whether the nearest centroid of every point is labels' slot."""
    bt, n, _ = x.shape
    c = centroids.double()
    c_norm = (c * c).sum(-1)
    smallest = float("inf")
    all_own = True
    for b in range(bt):
        for first in range(0, n, _CHECK_ROWS):
            xb = x[b, first:first + _CHECK_ROWS].double()
            dist = (xb * xb).sum(-1, keepdim=True) - 2.0 * xb @ c[b].T + c_norm[b][None, :]
            best = dist.topk(2, dim=1, largest=False)
            own = labels[b, first:first + _CHECK_ROWS].long()
            all_own = all_own and bool((best.indices[:, 0] == own).all())
            smallest = min(smallest, float((best.values[:, 1] - best.values[:, 0]).min()))
    return smallest, all_own


def get_inputs(config):
    device = torch.device(config.get("device", "cuda"))
    bt = int(config["Bt"])
    n = int(config["N"])
    d = int(config["d"])
    k = int(config["K"])
    iters = int(config["iters"])
    if k < 2 or iters < 1:
        raise ValueError("need K >= 2 and iters >= 1")

    gen = torch.Generator(device=device)
    gen.manual_seed(int(config.get("seed", 0)))
    x, c0, labels = _draw(bt, n, d, k, gen, device)
    for centroids in (c0, group_means(x, labels, c0)):
        margin, own = check_margins(x, labels, centroids)
        if not own or margin < MARGIN:
            raise RuntimeError(f"k-means inputs without a clear assignment: margin {margin}")
    return [x, c0, iters]
