#!/usr/bin/python3
"""CPU checks of tasks/shared_prefix_cascade_attention: its inputs and its reference on small
shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (the prefix's pages repeated in every request's page list, one
softmax over the whole list) is compared with two formulations written here in float64, both with
the lengths read on the host: a per-request, per-head loop over an explicit list of token slots,
and the split form (attention over the prefix alone and over the request's own tokens alone,
each with its log-sum-exp, combined by their weights). It also recounts the work model of every
registered workload from the lengths get_inputs draws.
"""

import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "shared_prefix_cascade_attention"


def load(name):
    return load_module("shared_prefix_cascade_attention", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())

# (batch, h_q, h_kv, page_size, prefix_len, suffix_min, suffix_max): a partial last prefix page,
# empty suffixes, a one-token prefix, one query head per KV head, and ragged suffixes.
SHAPES = [
    (3, 8, 2, 16, 100, 0, 40),
    (4, 16, 2, 8, 64, 1, 33),
    (2, 4, 4, 16, 1, 5, 70),
    (5, 8, 1, 32, 77, 10, 10),
]


def config(batch, h_q, h_kv, page_size, prefix_len, suffix_min, suffix_max, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(batch=batch, h_q=h_q, h_kv=h_kv, page_size=page_size, prefix_len=prefix_len,
             suffix_min=suffix_min, suffix_max=suffix_max, seed=seed, device="cpu")
    return c


def token_rows(cache, table, count, page_size):
    """[count, h_kv, head_dim] float64 rows of the first `count` tokens listed by `table`."""
    slots = [(int(table[t // page_size]), t % page_size) for t in range(count)]
    if not slots:
        return torch.zeros((0,) + tuple(cache.shape[2:]), dtype=torch.float64)
    return torch.stack([cache[page, slot] for page, slot in slots]).double()


def direct(q, k_cache, v_cache, prefix_table, suffix_table, suffix_lens, prefix_len, sm_scale):
    """One softmax per (request, head) over an explicit list of the request's token rows."""
    batch, h_q, _ = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    group = h_q // h_kv
    out = torch.empty(q.shape, dtype=torch.float64)
    k_pre = token_rows(k_cache, prefix_table, prefix_len, page_size)
    v_pre = token_rows(v_cache, prefix_table, prefix_len, page_size)
    for b in range(batch):
        n = int(suffix_lens[b])
        k = torch.cat([k_pre, token_rows(k_cache, suffix_table[b], n, page_size)])
        v = torch.cat([v_pre, token_rows(v_cache, suffix_table[b], n, page_size)])
        for h in range(h_q):
            scores = (k[:, h // group] @ q[b, h].double()) * sm_scale
            out[b, h] = torch.softmax(scores, dim=0) @ v[:, h // group]
    return out


def split_and_combine(q, k_cache, v_cache, prefix_table, suffix_table, suffix_lens, prefix_len,
                      sm_scale):
    """Attention over the prefix and over each request's own tokens separately, combined with
    their log-sum-exp weights."""
    batch, h_q, _ = q.shape
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    group = h_q // h_kv
    out = torch.empty(q.shape, dtype=torch.float64)
    k_pre = token_rows(k_cache, prefix_table, prefix_len, page_size)
    v_pre = token_rows(v_cache, prefix_table, prefix_len, page_size)
    for b in range(batch):
        n = int(suffix_lens[b])
        k_own = token_rows(k_cache, suffix_table[b], n, page_size)
        v_own = token_rows(v_cache, suffix_table[b], n, page_size)
        for h in range(h_q):
            kv = h // group
            qd = q[b, h].double()
            s_pre = (k_pre[:, kv] @ qd) * sm_scale
            lse_pre = torch.logsumexp(s_pre, dim=0)
            o_pre = torch.softmax(s_pre, dim=0) @ v_pre[:, kv]
            if n == 0:
                out[b, h] = o_pre
                continue
            s_own = (k_own[:, kv] @ qd) * sm_scale
            lse_own = torch.logsumexp(s_own, dim=0)
            o_own = torch.softmax(s_own, dim=0) @ v_own[:, kv]
            top = torch.maximum(lse_pre, lse_own)
            w_pre, w_own = torch.exp(lse_pre - top), torch.exp(lse_own - top)
            out[b, h] = (w_pre * o_pre + w_own * o_own) / (w_pre + w_own)
    return out


def as_dtype(args, dtype):
    return [a.to(dtype) if torch.is_tensor(a) and a.is_floating_point() else a for a in args]


check = Checks()


GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

for shape in SHAPES:
    batch, h_q, h_kv, page_size, prefix_len, suffix_min, suffix_max = shape
    args = GET_INPUTS.get_inputs(config(*shape, seed=3))
    again = GET_INPUTS.get_inputs(config(*shape, seed=3))
    other = GET_INPUTS.get_inputs(config(*shape, seed=4))
    q, k_cache, v_cache, prefix_table, suffix_table, suffix_lens, p_len, sm_scale = args
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{shape}: get_inputs is deterministic per seed")
    check(not torch.equal(k_cache, other[1]), f"{shape}: get_inputs differs across seeds")
    check(q.dtype == torch.bfloat16 and k_cache.dtype == torch.bfloat16
          and v_cache.dtype == torch.bfloat16 and prefix_table.dtype == torch.int32
          and suffix_table.dtype == torch.int32 and suffix_lens.dtype == torch.int32,
          f"{shape}: dtypes")
    prefix_pages = -(-prefix_len // page_size)
    suffix_pages = -(-suffix_max // page_size)
    check(tuple(q.shape) == (batch, h_q, 128)
          and tuple(k_cache.shape) == (prefix_pages + batch * suffix_pages, page_size, h_kv, 128)
          and tuple(prefix_table.shape) == (prefix_pages,)
          and tuple(suffix_table.shape) == (batch, suffix_pages) and p_len == prefix_len,
          f"{shape}: shapes")
    check(int(suffix_lens.sum()) == batch * (suffix_min + suffix_max) // 2
          and int(suffix_lens.min()) >= suffix_min and int(suffix_lens.max()) == suffix_max,
          f"{shape}: suffix lengths span [suffix_min, suffix_max] and sum to the work model's count")
    every_page = torch.cat([prefix_table, suffix_table.flatten()]).long().sort().values
    check(torch.equal(every_page, torch.arange(k_cache.shape[0])),
          f"{shape}: the two block tables together are a permutation of the pages")

    exact = direct(*args)
    check(rel_err(split_and_combine(*args), exact) < 1e-12,
          f"{shape}: the split form with a log-sum-exp combine equals one softmax")
    # float32: the reference and the direct formulation are the same function.
    err32 = rel_err(REFERENCE.run(*as_dtype(args, torch.float32)), exact)
    check(err32 < 1e-5, f"{shape}: float32 reference vs direct float64: {err32:.2e}")
    # bf16, as timed: the reference's own rounding stays far inside the gate.
    out16 = REFERENCE.run(*args)
    err16 = rel_err(out16, exact)
    check(out16.dtype == torch.bfloat16 and tuple(out16.shape) == (batch, h_q, 128),
          f"{shape}: output dtype and shape")
    check(err16 < GATE / 3, f"{shape}: bf16 reference vs direct float64: {err16:.2e}")
    # Both parts matter: dropping either the prefix or the own tokens is far outside the gate.
    if suffix_min > 0:
        no_prefix = as_dtype(args, torch.float32)
        no_prefix[6] = 1  # only the prefix's first token
        check(rel_err(REFERENCE.run(*no_prefix), exact) > 5 * GATE or prefix_len == 1,
              f"{shape}: the prefix's tokens matter to the result")
    only_prefix = as_dtype(args, torch.float32)
    only_prefix[5] = torch.zeros_like(suffix_lens)
    check(rel_err(REFERENCE.run(*only_prefix), exact) > 5 * GATE or suffix_max == 0,
          f"{shape}: the requests' own tokens matter to the result")

    # What lies past a length must not matter: poison the prefix's slots past prefix_len and each
    # request's slots past its length with NaN, and point the unused suffix-table entries at the
    # prefix's first page.
    poisoned = [a.clone() if torch.is_tensor(a) else a for a in as_dtype(args, torch.float32)]
    k_bad, v_bad, table = poisoned[1], poisoned[2], poisoned[4]
    last = int(prefix_table[-1])
    k_bad[last, prefix_len - (prefix_pages - 1) * page_size:] = float("nan")
    v_bad[last, prefix_len - (prefix_pages - 1) * page_size:] = float("nan")
    for b in range(batch):
        n = int(suffix_lens[b])
        used = -(-n // page_size)
        if used:
            page = int(table[b, used - 1])
            k_bad[page, n - (used - 1) * page_size:] = float("nan")
            v_bad[page, n - (used - 1) * page_size:] = float("nan")
        table[b, used:] = int(prefix_table[0])
    err_poison = rel_err(REFERENCE.run(*poisoned), exact)
    check(math.isfinite(err_poison) and err_poison < 1e-5,
          f"{shape}: slots past the lengths are ignored: {err_poison:.2e}")

# The work model counts exactly what the inputs ask for: every (query head, token) pair of every
# request, a multiply-add for the score and one for the weighted value per head_dim element; and
# the prefix's K and V once, every request's own K and V once, q and o once.
for workload in CONFIG["workloads"] + CONFIG["quick_workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    lengths = GET_INPUTS._suffix_lens(params["batch"], params["suffix_min"], params["suffix_max"])
    batch, h_q, h_kv, d = params["batch"], params["h_q"], params["h_kv"], params["head_dim"]
    prefix_len = params["prefix_len"]
    flops = 4 * h_q * d * (batch * prefix_len + sum(lengths))
    nbytes = 2 * h_kv * d * 2 * (prefix_len + sum(lengths)) + 2 * batch * h_q * d * 2
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    label = workload["label"]
    check(abs(model["flops"] - flops) <= 4 * h_q * d,
          f"{label}: work-model flops {model['flops']} vs {flops}")
    check(abs(model["bytes"] - nbytes) <= 2 * h_kv * d * 2,
          f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    if workload in CONFIG["workloads"]:
        check(model["flops"] == flops and model["bytes"] == nbytes,
              f"{label}: the work model is exact on a registered workload")
        # Reading the prefix once per request, as the page lists do, costs this many bytes more.
        repeated = 2 * h_kv * d * 2 * (batch - 1) * prefix_len
        check(repeated > model["bytes"], f"{label}: the repeated prefix outweighs the least traffic")

check.finish()
