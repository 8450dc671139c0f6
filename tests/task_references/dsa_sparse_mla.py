#!/usr/bin/python3
"""CPU checks of tasks/dsa_sparse_mla: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. It checks the FP8 encoder against a brute-force nearest-value search, the 656-byte
records (power-of-two scales, codes within range), the index lists (counts, padding, distinct
rows, no row shared across requests), and compares the reference with an independent
formulation written here: a loop over query rows that keeps only the valid entries of each list
(duplicates included), decodes the FP8 bytes with its own formula, and computes o and lse in
float64. It also checks the semantics of invalid, duplicate and all-invalid rows, and recounts
the work model of every registered workload.
"""

import json
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "dsa_sparse_mla"


def load(name):
    return load_module("dsa_sparse_mla", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

# (batch, s_q, h, ctx_min, ctx_max, topk, kv_row_bytes, dup_frac, invalid_frac): a prefill-like
# chunk whose early rows see fewer positions than topk, decode rows with FP8 records, ragged
# lengths with two query tokens, and lists with duplicates and invalid entries.
SHAPES = [
    (1, 24, 8, 300, 300, 256, 1152, 0.0, 0.0),
    (3, 1, 16, 200, 900, 256, 656, 0.0, 0.0),
    (2, 2, 4, 2, 700, 256, 656, 0.0, 0.0),
    (2, 3, 8, 500, 500, 200, 1152, 0.2, 0.2),
    (3, 1, 4, 400, 1000, 256, 656, 0.1, 0.3),
]


def config(batch, s_q, h, ctx_min, ctx_max, topk, row_bytes, dup, invalid, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(batch=batch, s_q=s_q, h=h, ctx_min=ctx_min, ctx_max=ctx_max, topk=topk,
             kv_row_bytes=row_bytes, dup_frac=dup, invalid_frac=invalid,
             sm_scale=CONFIG["workloads"][0]["sm_scale"], seed=seed, device="cpu")
    return c


def decode_e4m3(codes):
    """e4m3fn code -> value as float64: (8 + m) 2^(e - 10) for e > 0, m 2^-9 for e = 0."""
    codes = codes.long()
    sign = torch.where(codes >= 128, -1.0, 1.0).double()
    e = torch.div(codes % 128, 8, rounding_mode="floor")
    m = (codes % 8).double()
    significand = torch.where(e > 0, m + 8.0, m)
    return sign * significand * torch.pow(2.0, torch.clamp(e, min=1).double() - 10.0)


def cache_rows_f64(kv_cache):
    """Every cache row as [num_kv, 576] float64."""
    if kv_cache.dtype == torch.bfloat16:
        return kv_cache.double()
    n = kv_cache.shape[0]
    values = decode_e4m3(kv_cache[:, :512]).reshape(n, 4, 128)
    scales = kv_cache[:, 512:528].contiguous().view(torch.float32).double()
    rope = kv_cache[:, 528:].contiguous().view(torch.bfloat16).double()
    return torch.cat([(values * scales[:, :, None]).reshape(n, 512), rope], dim=1)


def independent(q, kv_cache, indices, sm_scale):
    rows = cache_rows_f64(kv_cache)
    num_kv = rows.shape[0]
    n_rows, h, _ = q.shape
    out = torch.zeros((n_rows, h, 512), dtype=torch.float64)
    lse = torch.full((n_rows, h), float("-inf"), dtype=torch.float64)
    for r in range(n_rows):
        listed = [int(i) for i in indices[r] if 0 <= int(i) < num_kv]
        if not listed:
            continue
        kv = rows[torch.tensor(listed)]
        scores = q[r].double() @ kv.T * sm_scale  # [h, entries]
        lse[r] = torch.logsumexp(scores, dim=-1)
        out[r] = torch.softmax(scores, dim=-1) @ kv[:, :512]
    return out, lse


check = Checks()


# The encoder returns the nearest e4m3 value (ties to the even code) for every input.
gen = torch.Generator().manual_seed(0)
table = decode_e4m3(torch.arange(256))
finite = torch.tensor([c for c in range(256) if c % 128 != 127])
x = torch.cat([torch.randn(20000, generator=gen) * 40, torch.randn(2000, generator=gen) * 0.01,
               table[finite].float(), (table[finite][:-1] + table[finite][1:]).float() / 2])
x = x[x.abs() <= 448]
got = decode_e4m3(GET_INPUTS.e4m3_encode(x))
best = (table[finite][None, :] - x.double()[:, None]).abs().min(dim=1).values
check(torch.equal((got - x.double()).abs(), best), "e4m3_encode rounds to the nearest value")
check(torch.equal(GET_INPUTS.e4m3_encode(torch.tensor([0.0, 448.0, -448.0, 0.875 * 2 ** -6, 3.5 * 2 ** -9])),
                  torch.tensor([0, 126, 254, 7, 4], dtype=torch.uint8)),
      "e4m3_encode fixed codes (zero, max, largest subnormal, a tie to even)")
check(torch.equal(REFERENCE._e4m3_table("cpu").double()[finite], table[finite])
      and bool(torch.isnan(REFERENCE._e4m3_table("cpu")[127])),
      "the reference's e4m3 table matches the independent decode")

for shape in SHAPES:
    batch, s_q, h, ctx_min, ctx_max, topk, row_bytes, dup, invalid = shape
    args = GET_INPUTS.get_inputs(config(*shape, seed=3))
    again = GET_INPUTS.get_inputs(config(*shape, seed=3))
    other = GET_INPUTS.get_inputs(config(*shape, seed=4))
    q, kv_cache, indices, sm_scale = args
    n_rows = batch * s_q
    pages = batch * ((ctx_max + 63) // 64)
    num_kv = pages * 64
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{shape}: get_inputs is deterministic per seed")
    check(not torch.equal(indices, other[2]) and not torch.equal(kv_cache, other[1]),
          f"{shape}: get_inputs differs across seeds")
    want_kv = (num_kv, 576) if row_bytes == 1152 else (num_kv, 656)
    want_dtype = torch.bfloat16 if row_bytes == 1152 else torch.uint8
    check(q.dtype == torch.bfloat16 and tuple(q.shape) == (n_rows, h, 576)
          and kv_cache.dtype == want_dtype and tuple(kv_cache.shape) == want_kv
          and indices.dtype == torch.int32 and tuple(indices.shape) == (n_rows, topk)
          and indices.is_contiguous() and kv_cache.is_contiguous(),
          f"{shape}: dtypes and shapes")

    if row_bytes == 656:
        scales = kv_cache[:, 512:528].contiguous().view(torch.float32)
        mantissa, _ = torch.frexp(scales)
        amax = decode_e4m3(kv_cache[:, :512]).abs().reshape(num_kv, 4, 128).amax(dim=-1)
        check(bool((mantissa == 0.5).all()) and bool((amax <= 448).all())
              and bool((amax >= 224).all()) and not bool((kv_cache[:, :512] % 128 == 127).any()),
              f"{shape}: FP8 records hold power-of-two scales fitted to each 128-value tile")

    valid = (indices >= 0) & (indices < num_kv)
    if dup == 0 and invalid == 0:
        lengths = sorted(GET_INPUTS.seq_lens(batch, ctx_min, ctx_max))
        counts = valid.sum(dim=1)
        # Per request, its rows see len - s_q + 1 + i positions and list min(that, topk) of them.
        per_request = counts.view(batch, s_q)
        firsts = sorted(int(c) for c in per_request[:, 0])
        check(firsts == sorted(min(n - s_q + 1, topk) for n in lengths),
              f"{shape}: each row lists min(visible, topk) entries")
        tail_ok = all(bool(valid[r, :int(counts[r])].all()) and not bool(valid[r, int(counts[r]):].any())
                      for r in range(n_rows))
        check(tail_ok and bool(((indices == -1) | valid).all()), f"{shape}: -1 padding only at the end")
        distinct = all(len(set(indices[r, :int(counts[r])].tolist())) == int(counts[r])
                       for r in range(n_rows))
        check(distinct, f"{shape}: a row lists distinct cache rows")
        owners = {}
        shared = False
        for r in range(n_rows):
            for i in indices[r, :int(counts[r])].tolist():
                shared |= owners.setdefault(i // 64, r // s_q) != r // s_q
        check(not shared, f"{shape}: the rows of a request lie in pages of that request only")
    else:
        first_ok = bool(valid[:, 0].all())
        has_dup = any(len(set(indices[r][valid[r]].tolist())) < int(valid[r].sum())
                      for r in range(n_rows))
        check(first_ok and (has_dup or dup == 0) and bool((~valid).any())
              and bool((indices >= num_kv).any()) and bool((indices == -1).any()),
              f"{shape}: lists carry duplicates, -1 and past-the-end entries")

    exact_o, exact_lse = independent(*args)
    out, lse = REFERENCE.run(*args)
    check(out.dtype == torch.bfloat16 and tuple(out.shape) == (n_rows, h, 512)
          and lse.dtype == torch.float32 and tuple(lse.shape) == (n_rows, h),
          f"{shape}: output dtypes and shapes")
    err_o, err_lse = rel_err(out, exact_o), rel_err(lse, exact_lse)
    check(err_o < GATE / 3, f"{shape}: reference o vs float64: {err_o:.2e}")
    check(err_lse < 1e-6, f"{shape}: reference lse vs float64: {err_lse:.2e}")

    # Invalid entries are ignored whatever their value.
    moved = indices.clone()
    moved[moved < 0] = -7
    moved[moved >= num_kv] = num_kv + 12345
    moved_o, moved_lse = REFERENCE.run(q, kv_cache, moved, sm_scale)
    check(torch.equal(moved_o, out) and torch.equal(moved_lse, lse),
          f"{shape}: the value of an invalid entry does not matter")

    # Duplicates count once per entry: listing row j twice is not listing it once.
    doubled = indices.clone()
    doubled[0, -1] = doubled[0, 0]
    d_o, d_lse = REFERENCE.run(q, kv_cache, doubled, sm_scale)
    e_o, e_lse = independent(q, kv_cache, doubled, sm_scale)
    check(rel_err(d_o[0], e_o[0]) < GATE / 3 and rel_err(d_lse[0], e_lse[0]) < 1e-6
          and rel_err(d_lse[0], lse[0]) > 1e-5,
          f"{shape}: a duplicated entry carries its own weight")

    # A row without a valid entry: o = 0, lse = -inf; the other rows are untouched.
    empty = indices.clone()
    empty[-1] = -1
    z_o, z_lse = REFERENCE.run(q, kv_cache, empty, sm_scale)
    check(bool((z_o[-1] == 0).all()) and bool(torch.isneginf(z_lse[-1]).all())
          and torch.equal(z_o[:-1], out[:-1]) and torch.equal(z_lse[:-1], lse[:-1]),
          f"{shape}: a row with no valid entry gives o = 0 and lse = -inf")

# The work model: every valid entry costs a 576-column score and a 512-column weighted sum per
# head; the bytes are the rows each request must read at least once, the queries, the index
# lists and both outputs. The attended and kv_rows keys of every workload are what get_inputs
# draws.
for workload in CONFIG["workloads"] + CONFIG["quick_workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    label = workload["label"]
    attended, kv_rows = GET_INPUTS.work_counts(params["batch"], params["s_q"], params["ctx_min"],
                                               params["ctx_max"], params["topk"])
    check(params["attended"] == attended and params["kv_rows"] == kv_rows,
          f"{label}: attended/kv_rows {params['attended']}/{params['kv_rows']} "
          f"vs {attended}/{kv_rows}")
    if workload in CONFIG["quick_workloads"]:
        continue
    h, rows = params["h"], params["batch"] * params["s_q"]
    flops = 2 * h * attended * (576 + 512)
    nbytes = (kv_rows * params["kv_row_bytes"]
              + rows * (h * 576 * 2 + params["topk"] * 4 + h * 512 * 2 + h * 4))
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    # The gathered-copy route moves at least a bf16 row per valid entry to memory and back.
    check(model["bytes"] < attended * 1152 * 2 or rows * h * 576 * 2 > attended * 1152,
          f"{label}: the work model is below the gathered copy's traffic")

check.finish()
