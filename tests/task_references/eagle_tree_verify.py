#!/usr/bin/python3
"""CPU checks of tasks/eagle_tree_verify: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (a vectorized walk over all requests, one depth and one sibling at a
time, with the target's argmax or softmax over every node) is compared with an independent
formulation written here: a per-request walk on the host over Python lists, following the
first-child and next-sibling pointers, with the probabilities computed in float64 for the nodes it
visits only. The final draw is checked for membership and, over many seeds, against the exact
residual distribution. The registered workloads are rebuilt with a reduced vocabulary to check
that their walks accept exactly the lengths their work model counts.
"""

import importlib.util
import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

TASK = Path(__file__).resolve().parents[2] / "tasks" / "eagle_tree_verify"


def load(name):
    spec = importlib.util.spec_from_file_location(f"etv_{name}", TASK / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL:", message)


def make_config(workload, seed, **overrides):
    c = dict(CONFIG["fixed_params"])
    c.update(workload)
    c.update(overrides)
    c.update(seed=seed, device="cpu")
    return c


def host_walk(logits, candidates, first_child, next_sibling, coins, temperature,
              max_depth, topk, greedy, threshold_single, threshold_acc):
    """Per request: (path of nodes, last node's residual distribution in float64 or argmax)."""
    results = []
    batch = logits.shape[0]
    for b in range(batch):
        def probs(node):
            return torch.softmax(logits[b, node].double() / float(temperature[b]), dim=0)

        def argmax(node):
            row = logits[b, node].tolist()
            best = max(row)
            return row.index(best)          # the first index holding the maximum

        def children(node):
            out, c = [], int(first_child[b, node])
            while c >= 0:
                out.append(c)
                c = int(next_sibling[b, c])
            return out

        path = [0]
        while True:
            u = path[-1]
            kids = children(u)
            assert len(kids) <= topk
            accepted = None
            if greedy:
                target = argmax(u)
                for c in kids:
                    if int(candidates[b, c]) == target:
                        accepted = c
                        break
            else:
                p = probs(u)
                acc = 0.0
                for c in kids:
                    q = float(p[int(candidates[b, c])])
                    acc += q
                    if float(coins[b, u]) <= acc / threshold_acc or q >= threshold_single:
                        accepted = c
                        break
            if accepted is None:
                break
            path.append(accepted)
        u = path[-1]
        assert len(path) - 1 <= max_depth
        if greedy:
            final = argmax(u)
        else:
            final = probs(u)
            for c in children(u):
                final[int(candidates[b, c])] = 0.0
            final = final / final.sum()
        results.append((path, final))
    return results


def compare(workload, seed):
    args = GET_INPUTS.get_inputs(make_config(workload, seed))
    (logits, candidates, first_child, next_sibling, coins, temperature,
     max_depth, topk, greedy, threshold_single, threshold_acc, sample_seed) = args
    label = f"{workload['label']} seed {seed}"
    batch, num_nodes, vocab = logits.shape
    check(logits.dtype == torch.float32 and candidates.dtype == torch.int32
          and first_child.dtype == torch.int32 and next_sibling.dtype == torch.int32
          and coins.dtype == torch.float32 and temperature.dtype == torch.float32,
          f"{label}: input dtypes")
    again = GET_INPUTS.get_inputs(make_config(workload, seed))
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{label}: get_inputs is not deterministic")

    accept_index, accept_len, next_token = REFERENCE.run(*args)
    check(accept_index.dtype == torch.int32 and tuple(accept_index.shape) == (batch, max_depth + 1),
          f"{label}: accept_index dtype/shape")
    check(accept_len.dtype == torch.int32 and next_token.dtype == torch.int64, f"{label}: dtypes")
    probabilities, support = REFERENCE.target_probabilities(*args)
    expected = host_walk(logits, candidates, first_child, next_sibling, coins, temperature,
                         max_depth, topk, greedy, threshold_single, threshold_acc)
    lengths = []
    for b, (path, final) in enumerate(expected):
        row = path + [-1] * (max_depth + 1 - len(path))
        check(accept_index[b].tolist() == row, f"{label}: request {b} path {accept_index[b].tolist()} != {row}")
        check(int(accept_len[b]) == len(path) - 1, f"{label}: request {b} accept_len")
        lengths.append(len(path) - 1)
        # every accepted node is a child of the previous one
        for a, c in zip(path, path[1:]):
            kid, ok = int(first_child[b, a]), False
            while kid >= 0:
                ok |= kid == c
                kid = int(next_sibling[b, kid])
            check(ok, f"{label}: request {b} node {c} is not a child of {a}")
        if greedy:
            check(int(next_token[b]) == final, f"{label}: request {b} greedy next token")
            check(int(support[b].sum()) == 1 and int(support[b, final]) == 1,
                  f"{label}: request {b} greedy support")
        else:
            check(int(support[b, int(next_token[b])]) == 1, f"{label}: request {b} draw outside the support")
            check(torch.allclose(probabilities[b].double(), final, rtol=1e-5, atol=1e-9),
                  f"{label}: request {b} target probabilities")
            check(torch.equal(support[b].bool(), final > 0), f"{label}: request {b} support")
        # the coins of the path's nodes keep their distance to every acceptance boundary
        if not greedy:
            for u in path:
                kid, acc = int(first_child[b, u]), 0.0
                p_row = torch.softmax(logits[b, u].double() / float(temperature[b]), dim=0)
                while kid >= 0:
                    q = float(p_row[int(candidates[b, kid])])
                    acc += q
                    gap = abs(float(coins[b, u]) - acc / threshold_acc)
                    check(gap >= 0.9 * GET_INPUTS.COIN_MARGIN or acc / threshold_acc >= 1.0,
                          f"{label}: request {b} node {u} coin {float(coins[b, u])} within {gap} of a boundary")
                    kid = int(next_sibling[b, kid])
    pattern = sorted(workload["accept_lengths"] * (batch // len(workload["accept_lengths"])))
    check(sorted(lengths) == pattern, f"{label}: accepted lengths {sorted(lengths)} != {pattern}")
    return args, expected


def draw_distribution(workload, seed, draws):
    """The reference's final draws over many seeds against the exact residual distribution."""
    args, expected = compare(workload, seed)
    counts = [dict() for _ in expected]
    for d in range(draws):
        call = list(args)
        call[-1] = 1000003 * d + 17
        _, _, token = REFERENCE.run(*call)
        for b, t in enumerate(token.tolist()):
            counts[b][t] = counts[b].get(t, 0) + 1
    for b, (_, final) in enumerate(expected):
        # the heaviest tokens: empirical frequency within 5 standard deviations
        top = torch.topk(final, 3)
        for p, t in zip(top.values.tolist(), top.indices.tolist()):
            seen = counts[b].get(t, 0) / draws
            sd = math.sqrt(max(p * (1 - p), 1e-12) / draws)
            check(abs(seen - p) <= 5 * sd + 1e-9,
                  f"{workload['label']}: request {b} token {t} drawn {seen:.4f}, expected {p:.4f}")
        outside = sum(n for t, n in counts[b].items() if float(final[t]) <= 0.0)
        check(outside == 0, f"{workload['label']}: request {b} drew {outside} tokens of zero probability")


def evaluate(formula, params):
    names = {k: v for k, v in params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return eval(formula.replace("^", "**"), {"max": max, "min": min}, names)


def main():
    for workload in CONFIG["quick_workloads"]:
        for seed in (1, 2):
            compare(workload, seed)
    sampling = [w for w in CONFIG["quick_workloads"] if not w["greedy"] and w["vocab"] <= 5000]
    for workload in sampling:
        draw_distribution(workload, 7, 600)

    # Registered workloads at a reduced vocabulary: the walk accepts exactly the pattern, so the
    # work model's row count is what any correct implementation must read.
    model = CONFIG["work_model"]
    for workload in CONFIG["workloads"]:
        small = dict(workload, vocab=3000)
        compare(small, 5)
        params = make_config(workload, 0)
        rows = sum(x + 1 for x in workload["accept_lengths"]) * workload["batch"] // len(workload["accept_lengths"])
        check(abs(rows - workload["batch"] * (workload["mean_accept"] + 1)) < 1e-9,
              f"{workload['label']}: mean_accept does not match accept_lengths")
        want = 4 * rows * workload["vocab"] + 4 * workload["batch"] * (workload["max_depth"] + 1) \
            + 12 * workload["batch"]
        check(abs(evaluate(model["bytes"], params) - want) < 1e-6 * want,
              f"{workload['label']}: work model bytes")
        check(evaluate(model["flops"], params) > 0, f"{workload['label']}: work model flops")
        draws = CONFIG["evaluation"]["output_checks"]["next_token"]["draws"]
        n = 1 if workload["greedy"] else max(1000, 16000 / workload["batch"])
        check(n >= 1, f"{workload['label']}: draws")
        assert "greedy ?" in draws

    if FAILURES:
        print(f"{len(FAILURES)} checks failed")
        sys.exit(1)
    print("eagle_tree_verify: all checks passed")


if __name__ == "__main__":
    main()
