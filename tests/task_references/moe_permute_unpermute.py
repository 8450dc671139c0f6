#!/usr/bin/python3
"""CPU checks of tasks/moe_permute_unpermute: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (stable argsort, index_add_, index_put_) is compared with an
independent formulation written here: a Python loop over experts and slots that places every
slot by counting, and sums the combine in float64. The checks also measure what the tolerance
note claims (the error of another fp32 summation order, of bf16 accumulation, of one misplaced
row), and recount the work model of every registered workload from routings get_inputs draws.
"""

import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "moe_permute_unpermute"


def load(name):
    return load_module("moe_permute_unpermute", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]


def config(entry, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(entry)
    c.update(seed=seed, device="cpu")
    return c


def looped(x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align):
    """The operator by counting, one slot at a time, with the combine in float64."""
    tokens, top_k = topk_ids.shape
    rows = x_perm.shape[0]
    ids = topk_ids.tolist()
    counts = [0] * num_experts
    for t in range(tokens):
        for j in range(top_k):
            if 0 <= ids[t][j] < num_experts:
                counts[ids[t][j]] += 1
    offsets = [0]
    for e in range(num_experts):
        offsets.append(offsets[-1] + (counts[e] + align - 1) // align * align)
    cursor = offsets[:-1]
    cursor = list(cursor)
    slot_ids = [-1] * rows
    inverse = [[-1] * top_k for _ in range(tokens)]
    permuted = x_perm.clone()
    y = torch.zeros((tokens, expert_out.shape[1]), dtype=torch.float64)
    for t in range(tokens):            # increasing t * top_k + j: the stable order
        for j in range(top_k):
            e = ids[t][j]
            if not 0 <= e < num_experts:
                continue
            row = cursor[e]
            cursor[e] += 1
            slot_ids[row] = t * top_k + j
            inverse[t][j] = row
            permuted[row] = x[t]
            y[t] += float(topk_weights[t, j]) * expert_out[row].double()
    return (torch.tensor(slot_ids, dtype=torch.int32), torch.tensor(counts, dtype=torch.int32),
            torch.tensor(offsets, dtype=torch.int32), torch.tensor(inverse, dtype=torch.int32),
            y, permuted)


check = Checks()


# The quick workloads (ragged counts, dropped slots, empty experts, FP8 rows, align 1) plus one
# where most tokens have no local expert.
SHAPES = list(CONFIG["quick_workloads"])
SHAPES.append(dict(SHAPES[1], label="mostly_dropped", T=64, E=4, E_global=64, ep_rank=15))

for entry in SHAPES:
    label = entry["label"]
    args = GET_INPUTS.get_inputs(config(entry, seed=11))
    again = GET_INPUTS.get_inputs(config(entry, seed=11))
    other = GET_INPUTS.get_inputs(config(entry, seed=12))
    x, topk_ids, topk_weights, expert_out, x_perm, num_experts, align = args
    T, k, E, H = entry["T"], entry["top_k"], entry["E"], entry["H"]
    rows = T * k + E * (align - 1)
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{label}: get_inputs is deterministic per seed")
    check(not torch.equal(expert_out, other[3]), f"{label}: get_inputs differs across seeds")
    payload_dtype = torch.bfloat16 if entry["payload"] == "bf16" else torch.uint8
    check(x.dtype == payload_dtype and x_perm.dtype == payload_dtype
          and tuple(x.shape) == (T, entry["row_bytes"] // x.element_size())
          and tuple(x_perm.shape) == (rows, x.shape[1])
          and tuple(expert_out.shape) == (rows, H) and expert_out.dtype == torch.bfloat16
          and topk_ids.dtype == torch.int32 and topk_weights.dtype == torch.float32
          and tuple(topk_ids.shape) == (T, k) and (num_experts, align) == (E, entry["align"]),
          f"{label}: shapes and dtypes")
    ids = topk_ids.long()
    valid = ids >= 0
    check(bool(((ids >= -1) & (ids < E)).all()), f"{label}: ids are local or -1")
    distinct = all(len(set(r)) == len([v for v in r if v >= 0]) + (1 if -1 in r else 0)
                   for r in topk_ids.tolist())
    check(distinct, f"{label}: local experts are distinct within a token")
    # Each token's weights over all its choices sum to the router's scale.
    check(torch.allclose(topk_weights.sum(1), torch.full((T,), entry["routed_scaling_factor"]),
                         rtol=1e-5), f"{label}: weights sum to the scaling factor")

    ref_inputs = [a.clone() if torch.is_tensor(a) else a for a in args]
    ref = REFERENCE.run(*ref_inputs)
    ref_perm = ref_inputs[4]
    loop_inputs = [a.clone() if torch.is_tensor(a) else a for a in args]
    exp_slots, exp_counts, exp_offsets, exp_inverse, exp_y, exp_perm = looped(*loop_inputs)
    names = ["sorted_slot_ids", "expert_counts", "expert_offsets", "inverse"]
    for name, got, want in zip(names, ref[:4], (exp_slots, exp_counts, exp_offsets, exp_inverse)):
        check(got.dtype == torch.int32 and torch.equal(got, want), f"{label}: {name} exact")
    check(torch.equal(ref_perm, exp_perm), f"{label}: permuted rows exact, other rows untouched")
    for i, (a, b) in enumerate(zip(args, ref_inputs)):
        if i != 4 and torch.is_tensor(a):
            check(torch.equal(a, b), f"{label}: reference leaves argument {i} unchanged")
    y = ref[4]
    check(y.dtype == torch.bfloat16 and tuple(y.shape) == (T, H), f"{label}: y dtype and shape")
    # The reference's fp32 sum rounded once equals the float64 sum rounded once, but for
    # elements near a rounding boundary.
    exact_rounded = exp_y.to(torch.bfloat16)
    if float(exp_y.norm()) > 0:
        err = rel_err(y, exact_rounded)
        check(err < 1e-4, f"{label}: y vs float64 rounded once: {err:.2e}")
        err_exact = rel_err(y, exp_y)
        check(err_exact < 4e-3, f"{label}: y vs float64: {err_exact:.2e}")
    else:
        check(float(y.double().norm()) == 0, f"{label}: no local slot, y is zero")

    # One real row left stale costs about sqrt(c / R) of the buffer's norm: c = 2 for bf16
    # rows of unit scale, c = 0.5 for rows of uniform-looking bytes.
    coef = 2.0 if entry["payload"] == "bf16" else 0.5
    real = exp_inverse[exp_inverse >= 0].long()
    if real.numel():
        stale = ref_perm.clone()
        stale[real[0]] = x_perm[real[0]]
        ratio = rel_err(stale, ref_perm) / math.sqrt(coef / rows)
        check(0.5 < ratio < 2.0, f"{label}: one stale row costs sqrt({coef} / R) x {ratio:.2f}")

    # Rows of expert_out that hold no slot must not matter: poison them with NaN.
    used = torch.zeros(rows, dtype=torch.bool)
    used[exp_inverse[exp_inverse >= 0].long()] = True
    poisoned = [a.clone() if torch.is_tensor(a) else a for a in args]
    poisoned[3][~used] = float("nan")
    y_poison = REFERENCE.run(*poisoned)[4]
    check(bool(torch.isfinite(y_poison.float()).all()) and torch.equal(y_poison, y),
          f"{label}: rows without a slot are ignored")

    # What the tolerance note claims, at this shape.
    if float(exp_y.norm()) > 0:
        inv = exp_inverse.long()
        w = torch.where(inv >= 0, topk_weights, torch.zeros_like(topk_weights))
        terms = expert_out[inv.clamp(min=0)].float() * w[:, :, None]          # [T, k, H]
        reverse = torch.zeros((T, H))
        for j in reversed(range(k)):
            reverse = reverse + terms[:, j]
        err_order = rel_err(reverse.to(torch.bfloat16), y)
        check(err_order < GATE / 10, f"{label}: another fp32 order: {err_order:.2e}")
        if E == entry["E_global"] and k >= 4 and T >= 32:
            low = torch.zeros((T, H), dtype=torch.bfloat16)
            for j in range(k):
                low = (low.float() + terms[:, j].to(torch.bfloat16).float()).to(torch.bfloat16)
            err_bf16 = rel_err(low, y)
            check(err_bf16 > GATE, f"{label}: bf16 accumulation fails the gate: {err_bf16:.2e}")
            print(f"{label}: fp32 reordered {err_order:.2e}, bf16 accumulation {err_bf16:.2e}")

# So one permuted row left stale at a registered shape stays above the gate.
for workload in CONFIG["workloads"]:
    rows = workload["T"] * workload["top_k"] + workload["E"] * (workload["align"] - 1)
    coef = 2.0 if workload["payload"] == "bf16" else 0.5
    check(math.sqrt(coef / rows) > 2 * GATE, f"{workload['label']}: one stale row exceeds the gate")

# The work model: what the inputs ask for, read and written once. local_slots is the expected
# number of local slots (T * top_k * E / E_global, by the symmetry of the router over experts);
# active_tokens the tokens with at least one local slot, at most their mean over draws so that
# the bound is never above what a call needs.
for workload in CONFIG["workloads"]:
    label = workload["label"]
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    T, k, E, H = params["T"], params["top_k"], params["E"], params["H"]
    check(params["local_slots"] * params["E_global"] == T * k * E,
          f"{label}: local_slots is the expectation")
    draws = 6 if E < params["E_global"] else 1
    slots, active = [], []
    for seed in range(draws):
        gen = torch.Generator()
        gen.manual_seed(seed)
        topk_ids, _ = GET_INPUTS.draw_routing(config(workload, seed), gen, "cpu")
        valid = topk_ids >= 0
        slots.append(int(valid.sum()))
        active.append(int(valid.any(1).sum()))
    mean_slots = sum(slots) / draws
    mean_active = sum(active) / draws
    check(abs(mean_slots - params["local_slots"]) < 0.15 * params["local_slots"],
          f"{label}: drawn local slots {mean_slots} near {params['local_slots']}")
    check(params["active_tokens"] <= mean_active <= params["active_tokens"] * 1.3,
          f"{label}: active_tokens {params['active_tokens']} at most the drawn {mean_active}")
    row_bytes = params["row_bytes"]
    rows = T * k + E * (params["align"] - 1)
    nbytes = (params["active_tokens"] * row_bytes                 # x, each active token once
              + params["local_slots"] * row_bytes                 # x_perm, each local slot
              + params["local_slots"] * H * 2                     # expert_out rows read
              + T * H * 2                                         # y
              + T * k * 4 * 2                                     # topk_ids, inverse
              + params["active_tokens"] * k * 4                   # weights of active tokens
              + rows * 4                                          # sorted_slot_ids
              + (2 * E + 1) * 4)                                  # counts, offsets
    flops = 2 * params["local_slots"] * H
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    aux = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, params)
    y_bytes = T * H * 2
    check(0 < aux < y_bytes / 4, f"{label}: peak_aux_bytes {aux} well below the output y")

check.finish()
