#!/usr/bin/python3
"""CPU checks of tasks/kmeans_fused_assign: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (torch.cdist, argmin, index_add_) is compared with an independent
Lloyd loop written here in float64: one batch item at a time, squared distances by broadcasting
(x - c)^2 over the dimensions, the lowest index among minima, and per-cluster means by a mask.
It also checks the tie policy on exact ties, that the drawn inputs decide every assignment by
the stated margin even when distances are computed the low-precision way (fp16 centroids, |x|^2
dropped, float32 sums), and recounts the work model of every registered workload.
"""

import json
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "kmeans_fused_assign"


def load(name):
    return load_module("kmeans_fused_assign", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())

# (Bt, N, d, K, iters): tiny and uneven sizes, d = 64, one iteration, K below 64 (no empty
# cluster) and above (empty clusters), N barely above the live-cluster count.
SHAPES = [
    (2, 500, 128, 64, 3),
    (3, 777, 128, 130, 2),
    (1, 1500, 64, 257, 4),
    (4, 300, 128, 200, 1),
    (2, 600, 64, 40, 2),
]


def config(bt, n, d, k, iters, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(Bt=bt, N=n, d=d, K=k, iters=iters, seed=seed, device="cpu")
    return c


def lloyd64(x, c0, iters):
    """Lloyd iterations in float64, one batch item at a time."""
    bt, n, d = x.shape
    k = c0.shape[1]
    assignments = torch.empty((bt, n), dtype=torch.int64)
    centroids = c0.double().clone()
    for _ in range(iters):
        for b in range(bt):
            xb = x[b].double()
            dist = ((xb[:, None, :] - centroids[b][None, :, :]) ** 2).sum(-1)  # [n, k]
            smallest = dist.min(dim=1, keepdim=True).values
            index = torch.arange(k, dtype=torch.int64)[None, :].expand(n, k)
            assignments[b] = torch.where(dist == smallest, index, k).min(dim=1).values
        for b in range(bt):
            for j in range(k):
                members = assignments[b] == j
                if bool(members.any()):
                    centroids[b, j] = x[b][members].double().mean(dim=0)
    return assignments, centroids


check = Checks()


gate = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

for shape in SHAPES:
    bt, n, d, k, iters = shape
    x, c0, it = GET_INPUTS.get_inputs(config(*shape, seed=3))
    again = GET_INPUTS.get_inputs(config(*shape, seed=3))
    other = GET_INPUTS.get_inputs(config(*shape, seed=4))
    check(torch.equal(x, again[0]) and torch.equal(c0, again[1]) and it == again[2] == iters,
          f"{shape}: get_inputs is deterministic per seed")
    check(not torch.equal(x, other[0]), f"{shape}: get_inputs differs across seeds")
    check(x.dtype == torch.float16 and c0.dtype == torch.float16
          and tuple(x.shape) == (bt, n, d) and tuple(c0.shape) == (bt, k, d)
          and x.is_contiguous() and c0.is_contiguous(), f"{shape}: dtypes and shapes")

    assign_ref, cent_ref = REFERENCE.run(x, c0, iters)
    assign64, cent64 = lloyd64(x, c0, iters)
    check(assign_ref.dtype == torch.int32 and tuple(assign_ref.shape) == (bt, n)
          and cent_ref.dtype == torch.float32 and tuple(cent_ref.shape) == (bt, k, d),
          f"{shape}: output dtypes and shapes")
    check(torch.equal(assign_ref.long(), assign64), f"{shape}: assignments equal float64 Lloyd")
    err = rel_err(cent_ref, cent64)
    check(err < gate / 20, f"{shape}: centroids vs float64 Lloyd: {err:.2e}")

    # Empty clusters exist when K >= 64 and keep their starting value exactly.
    counts = torch.stack([torch.bincount(assign64[b], minlength=k) for b in range(bt)])
    empty = counts == 0
    check(int(empty.sum()) == bt * (k // GET_INPUTS.EMPTY_EVERY),
          f"{shape}: K // 64 empty clusters per batch item")
    check(torch.equal(cent_ref[empty], c0.float()[empty]), f"{shape}: empty clusters keep c0")
    # Cluster sizes are skewed.
    live = counts[~empty].double()
    check(k < 64 or float(live.max()) > 2.0 * float(live.mean()), f"{shape}: skewed cluster sizes")

    # The low-precision way of computing the distances decides the same way in every iteration:
    # fp16 centroids, |x|^2 dropped, float32 products.
    centroids = c0.float()
    for step in range(iters):
        c16 = centroids.half().float()
        scores = (c16 * c16).sum(-1)[:, None, :] - 2.0 * torch.bmm(x.float(), c16.transpose(1, 2))
        fast = scores.argmin(dim=2)
        dist64 = ((x.double()[:, :, None, :] - centroids.double()[:, None, :, :]) ** 2).sum(-1)
        top2 = dist64.topk(2, dim=2, largest=False).values
        check(float((top2[..., 1] - top2[..., 0]).min()) >= GET_INPUTS.MARGIN,
              f"{shape}: iteration {step} decides by the margin")
        check(torch.equal(fast, dist64.argmin(dim=2)),
              f"{shape}: iteration {step}: low-precision distances assign the same")
        # Advance with the float64 reference loop's update.
        _, centroids64 = lloyd64(x, c0, step + 1)
        centroids = centroids64.float()

# Tie policy: duplicated centroids tie exactly; the lower index wins, and the duplicate that
# loses stays empty and keeps its value.
gen = torch.Generator().manual_seed(11)
x = torch.randn((1, 50, 16), generator=gen).half()
c0 = torch.randn((1, 6, 16), generator=gen).half()
c0[0, 4] = c0[0, 1]
c0[0, 5] = c0[0, 1]
assign_ref, cent_ref = REFERENCE.run(x, c0, 1)
assign64, cent64 = lloyd64(x, c0, 1)
check(torch.equal(assign_ref.long(), assign64), "ties: reference matches the float64 loop")
check(bool((assign64 != 4).all() and (assign64 != 5).all()) and bool((assign64 == 1).any()),
      "ties: the lowest duplicate takes the points")
check(torch.equal(cent_ref[0, 4], c0[0, 4].float()), "ties: the losing duplicate keeps c0")

# The matmul anchor on CPU: PyTorch 1.13 has no fp16 baddbmm there, so it runs with a stand-in
# that computes the product in float32 and rounds the result to fp16 once, as the GPU GEMM does.
ANCHOR = load("anchors/matmul_argmin")
library_baddbmm = torch.baddbmm


def baddbmm_fp16(input, batch1, batch2, alpha=1.0):
    product = torch.bmm(batch1.float(), batch2.float())
    return (input.float() + alpha * product).to(torch.float16)


torch.baddbmm = baddbmm_fp16
try:
    for shape in SHAPES[:3]:
        x, c0, iters = GET_INPUTS.get_inputs(config(*shape, seed=5))
        assign_ref, cent_ref = REFERENCE.run(x, c0, iters)
        assign_anchor, cent_anchor = ANCHOR.run(x, c0, iters)
        check(assign_anchor.dtype == torch.int32 and torch.equal(assign_anchor, assign_ref),
              f"{shape}: matmul anchor assigns as the reference")
        err = rel_err(cent_anchor, cent_ref)
        check(cent_anchor.dtype == torch.float32 and err < gate / 20,
              f"{shape}: matmul anchor centroids: {err:.2e}")
finally:
    torch.baddbmm = library_baddbmm

# Work model: every distance of every iteration (2 d flops per point-centroid pair) plus the
# sums of the update; bytes: x once per iteration, c0 once, both outputs once.
for workload in CONFIG["workloads"] + CONFIG["quick_workloads"]:
    params = {k: v for k, v in workload.items() if isinstance(v, (int, float))}
    bt, n, d, k, iters = (params[key] for key in ("Bt", "N", "d", "K", "iters"))
    label = workload["label"]
    check(n >= k - k // GET_INPUTS.EMPTY_EVERY and d in (64, 128),
          f"{label}: drawable (every live cluster gets a point) and d in (64, 128)")
    if workload in CONFIG["quick_workloads"]:
        continue
    flops = iters * bt * n * (k * 2 * d + d)
    nbytes = iters * bt * n * d * 2 + bt * k * d * 2 + bt * n * 4 + bt * k * d * 4
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    aux = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, params)
    check(aux >= bt * k * d * 6 + bt * n * 4, f"{label}: peak_aux_bytes covers the scratch")
    check(set(params) == {"Bt", "N", "d", "K", "iters"}, f"{label}: every key is used")

check.finish()
