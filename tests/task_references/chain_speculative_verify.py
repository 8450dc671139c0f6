#!/usr/bin/python3
"""CPU checks of tasks/chain_speculative_verify: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (every position's draw computed with tensor operations, then the
one that counts selected) is compared with an independent formulation written here: a loop over
requests that stops at the first failed test, computes the residual weights of that one position
as Python integers and finds the drawn token by bisection over their running sums. The float64
semantics of speculative sampling are checked by sampling: the first emitted token must follow
the target distribution of position 0, and the token at position 1 (given that the first draft
was accepted) that of position 1, whatever the drafter. It also recounts the work model.
"""

import bisect
import itertools
import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "chain_speculative_verify"


def load(name):
    return load_module("chain_speculative_verify", name)


GET_INPUTS = load("get_inputs")
GATHER_ANCHOR = load("anchors/torch_gather_rows")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
SCALE = 2 ** 48

check = Checks()


def config(batch, n_draft, vocab, draft_noise, edge, seed):
    return dict(batch=batch, n_draft=n_draft, vocab=vocab, draft_noise=draft_noise, edge=edge,
                seed=seed, device="cpu")


def literal(draft_probs, draft_token_ids, target_probs, uniforms):
    """The task's rule, request by request, with early exit and Python integers."""
    batch, n_draft, vocab = draft_probs.shape
    tokens = torch.full((batch, n_draft + 1), -1, dtype=torch.int32)
    accepted = torch.zeros(batch, dtype=torch.int32)
    emitted = torch.zeros(batch, dtype=torch.int32)
    for b in range(batch):
        u = [float(x) for x in uniforms[b]]
        results = []
        for i in range(n_draft):
            d = int(draft_token_ids[b, i])
            # Python floats are IEEE doubles: the product is rounded once, as in float64.
            results.append(u[i] * float(draft_probs[b, i, d]) < float(target_probs[b, i, d]))
        accepted[b] = sum(results)
        j = results.index(False) if False in results else n_draft
        emitted[b] = j
        for i in range(j):
            tokens[b, i] = int(draft_token_ids[b, i])
        target_row = target_probs[b, j]
        if j < n_draft:
            residual = torch.clamp(target_row - draft_probs[b, j], min=0.0)  # float32
        else:
            residual = target_row
        # A float32 value times 2^48 is exact in a double; int() truncates toward zero.
        weights = [int(x * SCALE) for x in residual.tolist()]
        if sum(weights) == 0:
            weights = [int(x * SCALE) for x in target_row.tolist()]
        running = list(itertools.accumulate(weights))
        total = running[-1]
        threshold = min(math.floor(u[n_draft] * float(total)), total - 1)
        tokens[b, j] = bisect.bisect_right(running, threshold)
    return tokens, accepted, emitted


def two_level(draft_probs, draft_token_ids, target_probs, uniforms, chunk):
    """The draw split as the guidance splits it: exact integer totals per chunk of `chunk`
    tokens, the chunk where the running total first exceeds T, then a scan of that chunk."""
    batch, n_draft, vocab = draft_probs.shape
    tokens, accepted, emitted = literal(draft_probs, draft_token_ids, target_probs, uniforms)
    for b in range(batch):
        j = int(emitted[b])
        target_row = target_probs[b, j]
        residual = target_row - draft_probs[b, j] if j < n_draft else target_row
        weights = REFERENCE._weights(torch.clamp(residual, min=0.0))
        if int(weights.sum()) == 0:
            weights = REFERENCE._weights(target_row)
        padded = torch.zeros(-(-vocab // chunk) * chunk, dtype=torch.int64)
        padded[:vocab] = weights
        totals = padded.view(-1, chunk).sum(dim=1)
        total = int(totals.sum())
        threshold = min(math.floor(float(uniforms[b, n_draft]) * float(total)), total - 1)
        before = int((torch.cumsum(totals, 0) <= threshold).sum())
        local = threshold - int(totals[:before].sum())
        inside = torch.cumsum(padded.view(-1, chunk)[min(before, totals.numel() - 1)], 0)
        tokens[b, j] = before * chunk + int((inside <= local).sum())
    return tokens, accepted, emitted


def same(outputs, expected):
    return all(o.dtype == e.dtype and o.shape == e.shape and torch.equal(o, e)
               for o, e in zip(outputs, expected))


# 1. Inputs: deterministic, realistic, well formed.
SHAPES = [(4, 3, 7, 1.0, 0), (8, 2, 4097, 0.7, 1), (3, 1, 1000, 0.5, 0), (5, 5, 20001, 1.5, 0),
          (12, 4, 3001, 1.0, 1), (6, 1, 50000, 0.5, 0)]
for shape in SHAPES:
    batch, n_draft, vocab, noise, edge = shape
    args = GET_INPUTS.get_inputs(config(*shape, seed=11))
    again = GET_INPUTS.get_inputs(config(*shape, seed=11))
    other = GET_INPUTS.get_inputs(config(*shape, seed=12))
    draft_probs, draft_token_ids, target_probs, uniforms = args
    check(all(torch.equal(a, b) for a, b in zip(args, again)), f"{shape}: deterministic per seed")
    check(not torch.equal(target_probs, other[2]), f"{shape}: differs across seeds")
    check(draft_probs.dtype == torch.float32 and target_probs.dtype == torch.float32
          and draft_token_ids.dtype == torch.int32 and uniforms.dtype == torch.float64,
          f"{shape}: dtypes")
    check(tuple(draft_probs.shape) == (batch, n_draft, vocab)
          and tuple(target_probs.shape) == (batch, n_draft + 1, vocab)
          and tuple(draft_token_ids.shape) == (batch, n_draft)
          and tuple(uniforms.shape) == (batch, n_draft + 1), f"{shape}: shapes")
    check(bool((draft_token_ids >= 0).all() and (draft_token_ids < vocab).all()),
          f"{shape}: draft ids in range")
    check(bool((uniforms >= 0).all() and (uniforms < 1).all()), f"{shape}: uniforms in [0, 1)")
    check(bool((draft_probs >= 0).all() and (target_probs >= 0).all()), f"{shape}: non-negative")
    plain = [b for b in range(batch) if not edge or b % 4 in (0, 3)]
    sums = torch.cat([draft_probs[plain].sum(-1).flatten(), target_probs[plain].sum(-1).flatten()])
    check(float((sums - 1).abs().max()) < 1e-4, f"{shape}: rows are distributions")

    # 2. The reference against the literal rule.
    out = REFERENCE.run(*args)
    check(same(out, literal(*args)), f"{shape}: reference equals the literal loop")
    check(same(GATHER_ANCHOR.run(*args), out), f"{shape}: the gathered-rows anchor equals it")
    for chunk in (16, 2048):
        check(same(two_level(*args, chunk), out), f"{shape}: chunked draw ({chunk}) equals it")
    tokens, accepted, emitted = out
    check(bool((emitted <= accepted).all()), f"{shape}: the prefix never exceeds the passed tests")
    for b in range(batch):
        j = int(emitted[b])
        check(int(tokens[b, j]) >= 0 and int(tokens[b, j]) < vocab
              and bool((tokens[b, j + 1:] == -1).all()), f"{shape} row {b}: layout")
    if edge:
        for b in range(batch):
            kind = b % 4
            if kind == 0:
                check(int(emitted[b]) == n_draft, f"{shape} row {b}: edge row takes every draft")
            elif kind in (1, 2):
                check(int(emitted[b]) == 0, f"{shape} row {b}: edge row rejects position 0")
            if kind == 2:
                residual = torch.clamp(target_probs[b, 0] - draft_probs[b, 0], min=0.0)
                check(int(REFERENCE._weights(residual).sum()) == 0
                      and float(target_probs[b, 0, int(tokens[b, 0])]) > 0,
                      f"{shape} row {b}: the empty residual falls back to the target row")

# The threshold rule at exact boundaries: p = (1/4, 1/4, 1/2), so C = (2^46, 2^47, 2^48).
boundary_draft = torch.zeros(3, 1, 3)
boundary_target = torch.tensor([[0.25, 0.25, 0.5], [0.25, 0.25, 0.5]]).expand(3, 2, 3).contiguous()
boundary_ids = torch.zeros(3, 1, dtype=torch.int32)
boundary_u = torch.tensor([[0.0, 0.25], [0.0, 0.25 - 2.0 ** -53], [0.0, 1.0 - 2.0 ** -53]],
                          dtype=torch.float64)
boundary = REFERENCE.run(boundary_draft, boundary_ids, boundary_target, boundary_u)
check(boundary[0][:, 1].tolist() == [1, 0, 2],
      f"a threshold equal to a running sum picks the next token: {boundary[0][:, 1].tolist()}")
# A draft token of probability zero under both models fails its test (strict comparison).
zero = REFERENCE.run(torch.tensor([[[0.0, 1.0]]]), torch.zeros(1, 1, dtype=torch.int32),
                     torch.tensor([[[0.0, 1.0], [0.5, 0.5]]]),
                     torch.tensor([[0.0, 0.5]], dtype=torch.float64))
check(int(zero[2][0]) == 0 and int(zero[1][0]) == 0, "a zero-probability draft is rejected")

# 3. Speculative sampling preserves the target distribution (Leviathan et al.): one request
# repeated over many rows with fresh draft tokens and uniforms.
gen = torch.Generator().manual_seed(5)
V, N = 8, 200000
p = torch.softmax(torch.randn(3, V, generator=gen) * 1.5, dim=-1)
q = torch.softmax(torch.randn(2, V, generator=gen) * 1.5, dim=-1)
draft_probs = q.expand(N, 2, V).contiguous()
target_probs = p.expand(N, 3, V).contiguous()
draft_token_ids = torch.stack([torch.multinomial(q[i], N, replacement=True, generator=gen)
                               for i in range(2)], dim=1).to(torch.int32)
uniforms = torch.rand(N, 3, generator=gen, dtype=torch.float64)
tokens, accepted, emitted = REFERENCE.run(draft_probs, draft_token_ids, target_probs, uniforms)


def chi_square(observed_tokens, probs):
    counts = torch.bincount(observed_tokens.long(), minlength=V).double()
    expected = probs.double() * observed_tokens.numel()
    return float(((counts - expected) ** 2 / expected).sum())


# df = 7: the statistic exceeds 42 with probability about 6e-7 for a correct sampler.
stat0 = chi_square(tokens[:, 0], p[0])
check(stat0 < 42, f"first token follows the target of position 0: chi-square {stat0:.1f}")
later = emitted >= 1
stat1 = chi_square(tokens[later, 1], p[1])
check(stat1 < 42, f"second token follows the target of position 1: chi-square {stat1:.1f}")
check(chi_square(draft_token_ids[:, 0], p[0]) > 1000,
      "the check rejects the drafter's own distribution")
rate = float((emitted >= 1).double().mean())
expected_rate = float(torch.minimum(p[0], q[0]).sum())
check(abs(rate - expected_rate) < 0.005,
      f"acceptance rate {rate:.4f} matches sum(min(p, q)) = {expected_rate:.4f}")

# 4. The registered workloads: their inputs at the real vocabulary (a few requests), the
# acceptance rates the description states, and the work model.
RATES = {0.5: (0.80, 0.92), 0.7: (0.74, 0.86), 1.0: (0.66, 0.80)}
for workload in CONFIG["workloads"]:
    params = {k: v for k, v in workload.items() if isinstance(v, (int, float))}
    label = workload["label"]
    args = GET_INPUTS.get_inputs(config(8, params["n_draft"], params["vocab"],
                                        params["draft_noise"], 0, seed=7))
    draft_probs, draft_token_ids, target_probs, uniforms = args
    n = params["n_draft"]
    ideal = float(torch.minimum(target_probs[:, :n], draft_probs).sum(-1).mean())
    low, high = RATES[params["draft_noise"]]
    check(low < ideal < high, f"{label}: mean acceptance probability {ideal:.3f}")
    out = REFERENCE.run(*args)
    check(same(out, literal(*args)), f"{label}: reference equals the literal loop at full vocab")

    batch, vocab = params["batch"], params["vocab"]
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    # Least traffic for any input: the target row the final draw needs (a request that accepts
    # every draft reads only that row), the draft ids, the two probabilities at each draft
    # token, the uniforms, and the three outputs.
    least = batch * (4 * vocab + 4 * n + 8 * n + 8 * (n + 1) + 4 * (n + 1) + 4 + 4)
    check(model["bytes"] == least, f"{label}: work-model bytes {model['bytes']} vs {least}")
    check(model["flops"] == batch * vocab, f"{label}: work-model flops")
    reference_reads = batch * (2 * n + 1) * vocab * 4
    check(model["bytes"] < reference_reads, f"{label}: the bound is below the reference's reads")
    aux = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, params)
    check(aux >= 8 * batch * vocab, f"{label}: scratch bound holds one int64 row per request")

check.finish()
