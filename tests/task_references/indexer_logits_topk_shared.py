#!/usr/bin/python3
"""CPU checks of tasks/indexer_logits_topk_shared: its inputs, its reference and its anchors on
small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (gathered keys, einsum over [queries, heads, keys], stable sorts) is
compared with an independent formulation written here: a loop over queries that reads the keys
page by page on the host, computes the scores in float64 with the heads summed in another order,
and selects with a Python sort of (-score, position) pairs. The checks also cover what the exact
comparison rests on (float32 scores equal to the float64 ones bit for bit, in two summation
orders; ties that the tie rule decides), the radix select the kernels use (emulated in PyTorch:
float-order keys, four 8-bit digit passes, the equal-key count), the torch.topk anchor, and the
work model of every registered workload.
"""

import json
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "indexer_logits_topk_shared"
sys.path.insert(0, str(TASK))  # the anchors import `reference` as the harness lets them


def load(name):
    return load_module("indexer_logits_topk_shared", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
TOPK_ANCHOR = load("anchors/torch_topk")
CONFIG = json.loads((TASK / "config.json").read_text())

check = Checks()


def params(overrides, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(overrides)
    c.update(seed=seed, device="cpu")
    return c


def loop_scores(q, k_cache, k_scale, weights, block_table, query_req, ks, ke):
    """Per query, in float64: the scores of the positions [ks, ke) read page by page, the heads
    summed from the last to the first. Returns a list of (positions, scores) pairs."""
    table = REFERENCE.e4m3_table("cpu").double()
    page_size = k_cache.shape[1]
    result = []
    for t in range(q.shape[0]):
        r, lo, hi = int(query_req[t]), int(ks[t]), int(ke[t])
        pos = torch.arange(lo, hi)
        pages = block_table[r].long()[pos // page_size]
        slots = pos % page_size
        keys = table[k_cache[pages, slots].long()]                        # [n, 128]
        scale = k_scale[pages, slots].double()
        queries = table[q[t].long()]                                      # [H, 128]
        total = torch.zeros(hi - lo, dtype=torch.float64)
        for h in reversed(range(q.shape[1])):
            total += weights[t, h].double() * torch.clamp(keys @ queries[h], min=0.0)
        result.append((pos, total * scale))
    return result


def loop_select(per_query, topk):
    rows = []
    for pos, score in per_query:
        pairs = sorted(zip((-score).tolist(), pos.tolist()))[:topk]
        chosen = sorted(p for _, p in pairs)
        rows.append(chosen + [-1] * (topk - len(chosen)))
    return torch.tensor(rows, dtype=torch.int32)


def ordered_keys(scores):
    """The kernels' float-order keys, as int64 values of the uint32 bit patterns."""
    return TOPK_ANCHOR.ordered_score_keys(scores)


def radix_select(per_query, topk):
    """The expert's selection emulated: four 8-bit digit passes to the exact threshold key and
    the count of equal keys still needed, then a position-order pass."""
    rows = []
    for pos, score in per_query:
        u = ordered_keys(score.float())
        n = u.numel()
        thr, need = 0, topk
        if n > topk:
            prefix, pmask = 0, 0
            for shift in (24, 16, 8, 0):
                match = (u & pmask) == prefix
                digit = (u[match] >> shift) & 255
                hist = torch.bincount(digit, minlength=256)
                at_or_above = hist.flip(0).cumsum(0).flip(0)
                b = int(torch.nonzero(at_or_above >= need).max())
                need -= int(hist[b + 1:].sum())
                prefix |= b << shift
                pmask |= 255 << shift
            thr = prefix
        eq = u == thr
        eq_rank = torch.cumsum(eq.long(), 0) - eq.long()
        sel = (u > thr) | (eq & (eq_rank < need))
        chosen = pos[sel].tolist()
        rows.append(chosen + [-1] * (topk - len(chosen)))
    return torch.tensor(rows, dtype=torch.int32)


# CPU-sized cases: decode, ragged ranges shorter than topk, prefill with windows (ks > 0), another
# page size and topk, and the tie-heavy distribution.
CASES = [
    dict(batch=2, q_per_req=1, H=64, ctx_min=3000, ctx_max=3000, topk=512),
    dict(batch=5, q_per_req=1, H=32, ctx_min=100, ctx_max=1500, topk=256),
    dict(batch=3, q_per_req=24, H=64, ctx_min=64, ctx_max=700, window=300, topk=128),
    dict(batch=4, q_per_req=1, H=16, ctx_min=2500, ctx_max=2500, topk=1000, distribution="ties"),
    dict(batch=2, q_per_req=9, H=32, ctx_min=300, ctx_max=900, topk=200, distribution="ties"),
    dict(batch=3, q_per_req=7, H=8, ctx_min=7, ctx_max=333, topk=100, page_size=16),
]

boundary_ties = 0
for case in CASES:
    label = ", ".join(f"{k}={v}" for k, v in case.items())
    args = GET_INPUTS.get_inputs(params(case, seed=11))
    again = GET_INPUTS.get_inputs(params(case, seed=11))
    other = GET_INPUTS.get_inputs(params(case, seed=12))
    q, k_cache, k_scale, weights, block_table, query_req, ks, ke, topk = args
    tokens = case["batch"] * case["q_per_req"]
    page_size = case.get("page_size", CONFIG["fixed_params"]["page_size"])
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{label}: get_inputs is deterministic per seed")
    check(not torch.equal(k_cache, other[1]), f"{label}: get_inputs differs across seeds")
    check(q.dtype == torch.uint8 and k_cache.dtype == torch.uint8 and k_scale.dtype == torch.float32
          and weights.dtype == torch.float32 and block_table.dtype == torch.int32
          and query_req.dtype == torch.int32 and ks.dtype == torch.int32 and ke.dtype == torch.int32,
          f"{label}: dtypes")
    max_pages = (case["ctx_max"] + page_size - 1) // page_size
    check(tuple(q.shape) == (tokens, case["H"], 128)
          and tuple(k_cache.shape) == (case["batch"] * max_pages, page_size, 128)
          and tuple(block_table.shape) == (case["batch"], max_pages)
          and tuple(weights.shape) == (tokens, case["H"]), f"{label}: shapes")
    check(torch.equal(block_table.flatten().sort().values.int(),
                      torch.arange(k_cache.shape[0], dtype=torch.int32)),
          f"{label}: the block table is a permutation of the pages")
    check(bool((ks >= 0).all() and (ks <= ke).all() and (ke <= max_pages * page_size).all()),
          f"{label}: ranges inside the capacity")
    table = REFERENCE.e4m3_table("cpu")
    values = table[k_cache.long()]
    check(bool((values == values.round()).all() and (values.abs() <= 7).all()),
          f"{label}: key codes decode to integers in [-7, 7]")

    per_query = loop_scores(*args[:8])
    # Exactness: float32 scores in two different summation orders equal the float64 ones.
    out_of_order = []
    for t, (pos, exact) in enumerate(per_query):
        r = int(query_req[t])
        pages = block_table[r].long()[pos // page_size]
        slots = pos % page_size
        keys = table[k_cache[pages, slots].long()] * k_scale[pages, slots][:, None]
        dots = table[q[t].long()] @ keys.T                               # float32, [H, n]
        forward = (torch.relu(dots) * weights[t][:, None]).sum(0)
        backward = torch.zeros_like(forward)
        for h in reversed(range(dots.shape[0])):
            backward += torch.relu(dots[h].flip(0)).flip(0) * weights[t, h]
        if not (torch.equal(forward.double(), exact) and torch.equal(backward.double(), exact)):
            out_of_order.append(t)
        if exact.numel() > topk:
            top = torch.sort(exact, descending=True).values
            boundary_ties += int(top[topk - 1] == top[topk])
    check(not out_of_order, f"{label}: float32 scores are exact in any order (bad rows {out_of_order[:5]})")

    expected = loop_select(per_query, topk)
    out = REFERENCE.run(*args)
    check(out.dtype == torch.int32 and tuple(out.shape) == (tokens, topk), f"{label}: output dtype and shape")
    check(torch.equal(out, expected), f"{label}: reference == float64 loop with (-score, position) sort")
    check(torch.equal(radix_select(per_query, topk), expected),
          f"{label}: emulated radix select == float64 loop")
    check(torch.equal(TOPK_ANCHOR.run(*args), expected), f"{label}: torch.topk anchor == float64 loop")
    counts = (out >= 0).sum(1)
    check(torch.equal(counts, torch.clamp(ke - ks, max=topk).to(counts.dtype)),
          f"{label}: min(topk, ke - ks) positions per row, then -1")

    # What lies outside a query's range must not matter: poison those keys and scales (NaN scale,
    # NaN codes) and point the block table's unused slots at another request's page.
    poisoned = [a.clone() if torch.is_tensor(a) else a for a in args]
    cache, scale_p, table_p = poisoned[1], poisoned[2], poisoned[4]
    used = torch.zeros(cache.shape[0] * page_size, dtype=torch.bool)
    for t in range(tokens):
        r = int(query_req[t])
        pos = torch.arange(int(ks[t]), int(ke[t]))
        used[block_table[r].long()[pos // page_size] * page_size + pos % page_size] = True
    cache.view(-1, 128)[~used] = 0x7F
    scale_p.view(-1)[~used] = float("nan")
    longest = [int(ke[query_req == r].max()) for r in range(case["batch"])]
    for r in range(case["batch"]):
        table_p[r, (longest[r] + page_size - 1) // page_size:] = table_p[(r + 1) % case["batch"], 0]
    check(torch.equal(REFERENCE.run(*poisoned), expected), f"{label}: keys outside the ranges are ignored")

check(boundary_ties > 0, f"the tie rule decides real boundaries ({boundary_ties} rows)")

# The registered workloads at full size: the ranges and the work model.
for workload in CONFIG["workloads"]:
    p = dict(CONFIG["fixed_params"])
    p.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    lengths = GET_INPUTS.seq_lens(p["batch"], p["ctx_min"], p["ctx_max"])
    n = p["q_per_req"]
    attended = sum(n * length - n * (n - 1) // 2 for length in lengths)
    tokens = p["batch"] * n
    flops = 2 * p["H"] * p["head_dim"] * attended       # FP8 products, at the fp8 ceiling
    nbytes = sum(lengths) * (p["head_dim"] + 4) + tokens * (p["H"] * (p["head_dim"] + 4) + p["topk"] * 4 + 12)
    model = {key: eval(CONFIG["work_model"][key], {}, p) for key in ("flops", "bytes")}
    label = workload["label"]
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    width = -(-p["ctx_max"] // p["page_size"]) * p["page_size"]
    aux = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, p)
    check(aux >= 2 * tokens * width * 4, f"{label}: peak_aux_bytes holds twice the float32 scores")
    check(p["H"] <= 64 and 64 * 40 * 6272 < 2**24, f"{label}: the weighted head sum stays exact")

# The registered workloads' draws, small: the prefill layout (request by request, causal ranges).
small = GET_INPUTS.get_inputs(params(dict(batch=4, q_per_req=16, H=8, ctx_min=32, ctx_max=128), 5))
req, ks_s, ke_s = small[5], small[6], small[7]
check(torch.equal(req, torch.arange(4, dtype=torch.int32).repeat_interleave(16)),
      "queries are listed request by request")
check(bool((ke_s.view(4, 16)[:, 1:] - ke_s.view(4, 16)[:, :-1] == 1).all()) and int(ks_s.abs().sum()) == 0,
      "prefill ranges start at 0 and grow by one per query")

check.finish()
