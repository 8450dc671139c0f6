#!/usr/bin/python3
"""CPU checks of tasks/grouped_topk_routing: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (stable sorts over [T, E] tensors) is compared with an independent
formulation written here: a loop over tokens that sorts (score, index) pairs in Python with
float64 scores, the lower index first among equal scores. The checks also cover what the exact
comparison of topk_ids rests on: the margins get_inputs promises, the exact ties of the "ties"
distribution, that the tie rule decides real cases, the torch.topk anchor, and the work model.
"""

import importlib.util
import itertools
import json
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

TASK = Path(__file__).resolve().parents[2] / "tasks" / "grouped_topk_routing"


def load(name):
    spec = importlib.util.spec_from_file_location(f"grouped_topk_{name.replace('/', '_')}",
                                                  TASK / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
TOPK_ANCHOR = load("anchors/torch_topk")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

# CPU-sized token counts for the registered workloads (their other parameters are kept).
SMALL_T = 300


def params(workload, tokens, seed):
    c = dict(CONFIG["fixed_params"])
    c.update({k: v for k, v in workload.items() if k != "specialization_params"})
    c.update(T=tokens, seed=seed, device="cpu")
    return c


def loop_routing(logits, bias, n_group, topk_group, top_k, scaling, higher_index_wins=False):
    """Token by token in float64 with Python sorts. Returns (weights [T, k] float64, ids [T, k])."""
    tokens, experts = logits.shape
    size = experts // n_group
    sign = -1 if higher_index_wins else 1
    scores = torch.sigmoid(logits.double())
    biased = scores + bias.double()[None, :]
    all_ids, all_weights = [], []
    for t in range(tokens):
        row = biased[t].tolist()
        group_score = []
        for g in range(n_group):
            members = sorted(row[g * size:(g + 1) * size], reverse=True)
            group_score.append(members[0] + members[1])
        groups = sorted(range(n_group), key=lambda g: (-group_score[g], sign * g))[:topk_group]
        candidates = [e for g in groups for e in range(g * size, (g + 1) * size)]
        chosen = sorted(sorted(candidates, key=lambda e: (-row[e], sign * e))[:top_k])
        s = [float(scores[t, e]) for e in chosen]
        total = sum(s)
        all_ids.append(chosen)
        all_weights.append([v / total * scaling for v in s])
    return (torch.tensor(all_weights, dtype=torch.float64),
            torch.tensor(all_ids, dtype=torch.int64).view(tokens, top_k))


def rel_err(out, ref):
    return float((out.double() - ref.double()).norm() / ref.double().norm())


def check(condition, message, failures):
    if not condition:
        failures.append(message)


def check_case(label, c, failures, extra=""):
    args = GET_INPUTS.get_inputs(c)
    logits, bias, n_group, topk_group, top_k, scaling = args
    tokens, experts = logits.shape
    check(logits.dtype == torch.float32 and bias.dtype == torch.float32,
          f"{label}: inputs must be float32", failures)
    check(logits.shape == (c["T"], c["E"]) and bias.shape == (c["E"],),
          f"{label}: input shapes {tuple(logits.shape)}, {tuple(bias.shape)}", failures)
    check(logits.is_contiguous(), f"{label}: logits not contiguous", failures)

    weights, ids = REFERENCE.run(*args)
    check(weights.dtype == torch.float32 and ids.dtype == torch.int32,
          f"{label}: output dtypes {weights.dtype}, {ids.dtype}", failures)
    check(weights.shape == (tokens, top_k) and ids.shape == (tokens, top_k),
          f"{label}: output shapes {tuple(weights.shape)}, {tuple(ids.shape)}", failures)
    check(bool((ids[:, 1:] > ids[:, :-1]).all()),
          f"{label}: ids not strictly ascending (a repeated or unordered expert)", failures)
    size = experts // n_group
    groups_used = (ids.long() // size).tolist()
    check(all(len(set(row)) <= topk_group for row in groups_used),
          f"{label}: a token uses more than topk_group groups", failures)
    sums = weights.double().sum(dim=1)
    check(bool(torch.allclose(sums, torch.full_like(sums, scaling), rtol=1e-5)),
          f"{label}: weights do not sum to the scaling factor", failures)

    loop_w, loop_ids = loop_routing(logits, bias, n_group, topk_group, top_k, scaling)
    mismatched = int((ids.long() != loop_ids).any(dim=1).sum())
    check(mismatched == 0, f"{label}: {mismatched} tokens choose other experts than the loop",
          failures)
    if mismatched == 0:
        err = rel_err(weights, loop_w)
        check(err < 1e-6, f"{label}: weights differ from the loop by {err:.2e}", failures)
    print(f"  {label}: T={tokens} E={experts} groups={n_group}/{topk_group} k={top_k} ok"
          f"{extra}")
    return args, weights, ids


def main():
    failures = []
    cases = [(w["label"], w, SMALL_T) for w in CONFIG["workloads"]]
    cases += [(w["label"], w, w["T"]) for w in CONFIG["quick_workloads"]]

    print("reference against a per-token float64 loop:")
    for label, workload, tokens in cases:
        c = params(workload, tokens, seed=11)
        args, weights, ids = check_case(label, c, failures)
        logits, bias, n_group, topk_group, top_k, scaling = args

        if c["distribution"] == "realistic":
            margin = GET_INPUTS.decision_margins(logits, bias, n_group, topk_group, top_k)
            check(bool((margin >= GET_INPUTS.MARGIN).all()),
                  f"{label}: a routing decision is closer than MARGIN ({float(margin.min()):.2e})",
                  failures)
            # Weights that include the bias, or that skip the normalization, must fail the gate.
            biased_w = torch.sigmoid(logits.double()).add(bias.double()[None, :]).gather(1, ids.long())
            biased_w = biased_w / biased_w.sum(dim=1, keepdim=True) * scaling
            check(rel_err(biased_w, weights) > 10 * GATE,
                  f"{label}: weights with the bias pass the gate", failures)
            # The torch.topk anchor agrees where no exact ties occur.
            anchor_w, anchor_ids = TOPK_ANCHOR.run(*args)
            check(torch.equal(anchor_ids, ids) and rel_err(anchor_w, weights) <= GATE,
                  f"{label}: the torch_topk anchor disagrees with the reference", failures)
        else:
            # The tie rule decides real cases: preferring the higher index changes the result.
            other_w, other_ids = loop_routing(logits, bias, n_group, topk_group, top_k, scaling,
                                              higher_index_wins=True)
            changed = int((other_ids != ids.long()).any(dim=1).sum())
            check(changed > 0, f"{label}: no token depends on the tie rule", failures)
            # Every score is one of the levels: equal inputs, equal scores.
            check(logits.unique().numel() <= len(GET_INPUTS.LEVEL_NUMERATORS),
                  f"{label}: more distinct logits than levels", failures)
            line = f"    {changed} of {logits.shape[0]} tokens change when the higher index wins"
            if topk_group < n_group:
                biased = torch.sigmoid(logits) + bias[None, :]
                size = logits.shape[1] // n_group
                top2 = biased.view(logits.shape[0], n_group, size).topk(2, dim=-1).values
                ranked = top2.sum(dim=-1).sort(dim=-1, descending=True).values
                group_ties = int((ranked[:, topk_group - 1] == ranked[:, topk_group]).sum())
                check(group_ties > 0, f"{label}: no exact tie at the group boundary", failures)
                line += f"; {group_ties} have tied group scores at the group boundary"
            print(line)

    print("get_inputs:")
    w0 = CONFIG["workloads"][0]
    a = GET_INPUTS.get_inputs(params(w0, 64, seed=5))
    b = GET_INPUTS.get_inputs(params(w0, 64, seed=5))
    d = GET_INPUTS.get_inputs(params(w0, 64, seed=6))
    check(all(torch.equal(x, y) for x, y in zip(a[:2], b[:2])), "same seed, different inputs",
          failures)
    check(not torch.equal(a[0], d[0]) and not torch.equal(a[1], d[1]),
          "different seeds, same inputs", failures)
    check(a[2:] == [w0["n_group"], w0["topk_group"], w0["top_k"], w0["routed_scaling_factor"]],
          "static arguments differ from the workload", failures)
    sums = [x + y for x, y in itertools.combinations_with_replacement(
        GET_INPUTS.LEVEL_NUMERATORS, 2)]
    check(len(set(sums)) == len(sums), "the level numerators are not a Sidon set", failures)
    print("  deterministic per seed; level pairs have distinct sums")

    print("work model:")
    names = CONFIG["evaluation"]["arguments"]
    check(names == ["router_logits", "correction_bias", "n_group", "topk_group", "top_k",
                    "routed_scaling_factor"], "evaluation.arguments changed", failures)
    for w in CONFIG["workloads"]:
        c = params(w, w["T"], seed=1)
        tokens, experts, top_k = c["T"], c["E"], c["top_k"]
        # Every input read once and every output written once, at their dtypes.
        counted = 4 * tokens * experts + 4 * experts + (4 + 4) * tokens * top_k
        model = eval(CONFIG["work_model"]["bytes"], {}, dict(T=tokens, E=experts, top_k=top_k))
        check(model == counted, f"{w['label']}: work-model bytes {model} != {counted}", failures)
        flops = eval(CONFIG["work_model"]["flops"], {}, dict(T=tokens, E=experts))
        check(flops == tokens * experts, f"{w['label']}: work-model flops {flops}", failures)
        print(f"  {w['label']}: {counted / 1e6:.2f} MB, "
              f"{counted / 4.8e12 * 1e6:.2f} us at 4.8 TB/s")

    if failures:
        print("FAILED:")
        for f in failures:
            print("  " + f)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
