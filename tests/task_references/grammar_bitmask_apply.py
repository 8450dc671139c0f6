#!/usr/bin/python3
"""CPU checks of tasks/grammar_bitmask_apply: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (int64 unpacking, masked_fill_, index_put) is compared bit for bit
with an independent formulation written here: a loop over the listed rows that reads every
token's bit from the mask word as an unsigned Python integer and builds the expected row in
float64. The checks also cover what the inputs promise (the row list, the grammar states'
allowed fractions, the never-allowed padding ids, stale rows that must not be applied), what
the tolerance note claims, and recount the work model from masks get_inputs draws at the
registered shapes.
"""

import json
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "grammar_bitmask_apply"


def load(name):
    return load_module("grammar_bitmask_apply", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

check = Checks()


def config(entry, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(entry)
    c.update(seed=seed, device="cpu")
    return c


def params(entry):
    p = dict(CONFIG["fixed_params"])
    p.update({k: v for k, v in entry.items() if isinstance(v, (int, float))})
    return p


def formula(text, entry):
    return eval(text, {"min": min, "max": max}, params(entry))


def bits_of(bitmask):
    """[rows, words] int32 -> bool [rows, 32 * words], token 32 * w + j at bit j of word w."""
    shifts = torch.arange(32, dtype=torch.int64)
    return ((bitmask.long()[:, :, None] >> shifts) & 1).reshape(bitmask.shape[0], -1) == 1


def looped(logits, bitmask, indices):
    """The operator token by token, with unsigned Python integers, into a float64 copy."""
    out = logits.double().clone()
    vocab = logits.shape[1]
    words = bitmask.shape[1]
    for b in indices.tolist():
        row_words = [w & 0xFFFFFFFF for w in bitmask[b].tolist()]
        values = out[b].tolist()
        for v in range(vocab):
            allowed = v < 32 * words and (row_words[v // 32] >> (v % 32)) & 1 == 1
            if not allowed:
                values[v] = float("-inf")
        out[b] = torch.tensor(values, dtype=torch.float64)
    return out


def same_bits(a, b):
    view = torch.int16 if a.dtype == torch.bfloat16 else torch.int32
    return a.dtype == b.dtype and torch.equal(a.view(view), b.view(view))


# --- Inputs and reference on the quick workloads and two more uneven shapes ---------------------
SHAPES = list(CONFIG["quick_workloads"])
SHAPES.append(dict(SHAPES[0], label="b6_v4100_w100_fp32_rows5", batch=6, vocab=4100,
                   mask_words=100, rows=5, open_rows=2, tokens=4000))
SHAPES.append(dict(SHAPES[0], label="b3_v70_w5_bf16_rows2", batch=3, vocab=70, mask_words=5,
                   dtype="bf16", elem_bytes=2, rows=2, open_rows=0, tokens=60))

for entry in SHAPES:
    label = entry["label"]
    B, V, W, R = entry["batch"], entry["vocab"], entry["mask_words"], entry["rows"]
    args = GET_INPUTS.get_inputs(config(entry, seed=21))
    again = GET_INPUTS.get_inputs(config(entry, seed=21))
    other = GET_INPUTS.get_inputs(config(entry, seed=22))
    logits, bitmask, indices = args
    check(all(torch.equal(a, b) for a, b in zip(args, again)),
          f"{label}: get_inputs is deterministic per seed")
    check(not torch.equal(logits, other[0]) and (B * W < 4 or not torch.equal(bitmask, other[1])),
          f"{label}: get_inputs differs across seeds")
    dtype = torch.float32 if entry["dtype"] == "fp32" else torch.bfloat16
    check(logits.dtype == dtype and tuple(logits.shape) == (B, V) and logits.is_contiguous()
          and bitmask.dtype == torch.int32 and tuple(bitmask.shape) == (B, W)
          and indices.dtype == torch.int32 and tuple(indices.shape) == (R,),
          f"{label}: shapes and dtypes")
    listed = indices.tolist()
    check(listed == sorted(set(listed)) and all(0 <= i < B for i in listed),
          f"{label}: indices distinct, increasing, in range")
    check(bool(torch.isfinite(logits.float()).all()), f"{label}: logits finite")
    # Ids from the tokenizer's end to the end of the logits row are never allowed.
    allowed = bits_of(bitmask)
    live_end = min(V, 32 * W)
    if entry["tokens"] < live_end:
        check(not bool(allowed[:, entry["tokens"]:live_end].any()),
              f"{label}: padding ids never allowed")

    ref_args = [a.clone() for a in args]
    out = REFERENCE.run(*ref_args)
    check(out is ref_args[0], f"{label}: the reference returns the logits tensor itself")
    check(torch.equal(ref_args[1], bitmask) and torch.equal(ref_args[2], indices),
          f"{label}: bitmask and indices unchanged")
    expected = looped(logits, bitmask, indices)
    check(same_bits(out, expected.to(dtype)), f"{label}: reference equals the token loop")
    negative_inf = torch.isinf(out.float()) & (out.float() < 0)
    check(torch.equal(negative_inf, torch.isinf(expected)),
          f"{label}: exactly the disallowed tokens are -inf")
    unlisted = [b for b in range(B) if b not in set(listed)]
    if unlisted:
        check(same_bits(out[unlisted], logits[unlisted]), f"{label}: unlisted rows untouched")
        # Applying every row's mask would change the unlisted rows: their stale masks matter.
        every = REFERENCE.run(logits.clone(), bitmask,
                              torch.arange(B, dtype=torch.int32))
        check(not same_bits(every[unlisted], logits[unlisted]),
              f"{label}: stale masks of unlisted rows would change them")
    if 32 * W < V:
        check(bool(torch.isinf(out[listed][:, 32 * W:].float()).all()),
              f"{label}: tokens past the mask are -inf")
    # Bits past the end of the logits row are noise: flipping them changes nothing.
    if 32 * W > V:
        flipped = bitmask.clone()
        first_past = max(0, V - 32 * (W - 1))        # bit of the last word at the row's end
        flipped[:, -1] = flipped[:, -1] ^ torch.tensor(-(1 << first_past), dtype=torch.int32)
        check(not torch.equal(flipped, bitmask), f"{label}: flip test changes the mask")
        out_flipped = REFERENCE.run(logits.clone(), flipped, indices)
        check(same_bits(out_flipped, out), f"{label}: bits past the logits row are ignored")

# --- The tolerance ---------------------------------------------------------------------------------
entry = dict(SHAPES[0], label="tolerance", batch=4, vocab=4096, mask_words=128, rows=4,
             open_rows=2, tokens=4096)
logits, bitmask, indices = GET_INPUTS.get_inputs(config(entry, seed=5))
out = REFERENCE.run(logits.clone(), bitmask, indices)
finite = torch.isfinite(out)
rounded = out.clone()
rounded[finite] = out[finite].to(torch.bfloat16).float()
err = float((rounded[finite].double() - out[finite].double()).norm() / out[finite].double().norm())
check(err > 100 * GATE, f"tolerance: a bf16 round trip of fp32 logits ({err:.1e}) fails the gate")
check(bool((out[~finite] == float("-inf")).all()), "tolerance: masked values are exactly -inf")

# --- Workloads: grammar states and the work model ---------------------------------------------
for workload in CONFIG["workloads"]:
    label = workload["label"]
    p = params(workload)
    B, V, W, R, O = p["batch"], p["vocab"], p["mask_words"], p["rows"], p["open_rows"]
    check(W == (V + 31) // 32, f"{label}: the mask covers the vocabulary exactly")
    check(p["elem_bytes"] == {"fp32": 4, "bf16": 2}[workload["dtype"]],
          f"{label}: elem_bytes matches the dtype")
    logits, bitmask, indices = GET_INPUTS.get_inputs(config(workload, seed=3))
    listed = indices.long()
    allowed = bits_of(bitmask[listed])
    live = min(p["tokens"], 32 * W)
    fractions = allowed[:, :live].double().mean(dim=1)
    structural = fractions[fractions < 0.5]
    open_ = fractions[fractions >= 0.5]
    check(structural.numel() == R - O and open_.numel() == O,
          f"{label}: {R - O} structural and {O} open rows")
    if structural.numel():
        check(float(structural.min()) > p["allowed_lo"] * 0.8
              and float(structural.max()) < p["allowed_hi"] * 1.1,
              f"{label}: structural rows allow {p['allowed_lo']} to {p['allowed_hi']}")
    if open_.numel():
        check(float(open_.min()) > p["open_lo"] - 0.01 and float(open_.max()) < p["open_hi"] + 0.01,
              f"{label}: open rows allow {p['open_lo']} to {p['open_hi']}")
    # Least traffic: the row list and the listed rows' mask words read once, and every
    # disallowed logit of a listed row written once; nothing else must be read or written.
    masked = R * V - int(allowed[:, :min(V, 32 * W)].sum())
    drawn = 4 * R + 4 * R * W + p["elem_bytes"] * masked
    struct_p = GET_INPUTS.evenly_spaced(R - O, p["allowed_lo"], p["allowed_hi"]) if R > O else []
    open_p = GET_INPUTS.evenly_spaced(O, p["open_lo"], p["open_hi"]) if O else []
    expected = 4 * R + 4 * R * W + p["elem_bytes"] * (R * V - live * (sum(struct_p) + sum(open_p)))
    model = formula(CONFIG["work_model"]["bytes"], workload)
    check(abs(model - expected) <= 1e-6 * expected,
          f"{label}: work-model bytes {model:.0f} vs expectation {expected:.0f}")
    check(abs(model - drawn) <= 0.002 * drawn,
          f"{label}: work-model bytes {model:.0f} vs drawn {drawn} ({(drawn - model) / model:+.2e})")
    check(formula(CONFIG["work_model"]["flops"], workload) == 0, f"{label}: no flops")
    aux = formula(CONFIG["evaluation"]["peak_aux_bytes"], workload)
    check(0 < aux < logits.numel() * logits.element_size(),
          f"{label}: peak_aux_bytes {aux} below the logits' size")
    print(f"{label}: work model {model / 1e6:.3f} MB, drawn {drawn / 1e6:.3f} MB")

check.finish()
