#!/usr/bin/python3
"""CPU checks of tasks/fused_linear_cross_entropy: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (bf16 logits, library cross-entropy, autograd) is compared with the
closed form written here in float64: the log-sum-exp per row and the logit gradient
(softmax - one-hot) / kept count fed to the two gradient products by hand. The same closed form
with the logit gradient rounded to bf16 and its entries below 2^-12 skipped per 128 x 128 tile
(what a fused implementation computes) must stay inside the gate, and three wrong variants must
fail it. The chunked library anchor must match the reference. It also recounts the work model and checks that the memory bound leaves no room for the
logits of a registered workload.
"""

import importlib.util
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "fused_linear_cross_entropy"


def load(name):
    return load_module("fused_linear_cross_entropy", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]
FILTER_EPS = 2.0 ** -12
TILE = 128

# (N, H, V): tile-aligned, ragged in every dimension, few tokens, a wide vocabulary. (A handful of
# tokens is no test of a relative gate: a confidently right token has a loss and gradient near 0.)
SHAPES = [
    (512, 256, 8192),
    (300, 200, 5001),
    (40, 128, 3000),
    (96, 512, 30000),
]


def config(n, h, v, seed):
    return dict(N=n, H=h, V=v, seed=seed, device="cpu")


def closed_form(hidden, weight, targets, *, round_grad=False, filter_eps=0.0, softmax=True,
                divisor=None):
    """Loss and gradients in float64 from the log-sum-exp; options model a fused kernel's
    rounding and filtering, or wrong variants."""
    h, w = hidden.double(), weight.double()
    logits = h @ w.t()
    valid = targets != -100
    safe = torch.where(valid, targets, torch.zeros_like(targets))
    lse = torch.logsumexp(logits, dim=1)
    target_logit = logits.gather(1, safe[:, None])[:, 0]
    count = valid.sum().double() if divisor is None else torch.tensor(float(divisor))
    loss = ((lse - target_logit) * valid).sum() / count
    grad = torch.exp(logits - lse[:, None]) if softmax else torch.zeros_like(logits)
    grad[torch.arange(len(targets)), safe] -= 1.0
    grad *= valid[:, None].double()
    if filter_eps > 0:
        n, v = grad.shape
        for i in range(0, n, TILE):
            for j in range(0, v, TILE):
                tile = grad[i:i + TILE, j:j + TILE]
                if tile.abs().max() < filter_eps:
                    tile.zero_()
    grad = grad / count
    if round_grad:
        grad = grad.to(torch.bfloat16).double()
    return loss, grad @ w, grad.t() @ h


check = Checks()


for shape in SHAPES:
    n, h, v = shape
    args = GET_INPUTS.get_inputs(config(n, h, v, seed=3))
    again = GET_INPUTS.get_inputs(config(n, h, v, seed=3))
    other = GET_INPUTS.get_inputs(config(n, h, v, seed=4))
    hidden, weight, targets = args
    check(all(torch.equal(a, b) for a, b in zip(args, again)), f"{shape}: deterministic per seed")
    check(not torch.equal(hidden, other[0]), f"{shape}: differs across seeds")
    check(hidden.dtype == torch.bfloat16 and weight.dtype == torch.bfloat16
          and targets.dtype == torch.int64, f"{shape}: dtypes")
    check(tuple(hidden.shape) == (n, h) and tuple(weight.shape) == (v, h)
          and tuple(targets.shape) == (n,), f"{shape}: shapes")
    valid = targets != -100
    check(bool(valid[0]) and bool(((targets[valid] >= 0) & (targets[valid] < v)).all()),
          f"{shape}: targets in range, position 0 kept")
    if n >= 96:
        frac = 1 - float(valid.double().mean())
        check(0.03 < frac < 0.3, f"{shape}: ignored fraction {frac:.3f}")

    exact = closed_form(*args)
    loss, grad_h, grad_w = REFERENCE.run(*args)
    check(loss.dtype == torch.float32 and loss.dim() == 0 and grad_h.dtype == torch.bfloat16
          and grad_w.dtype == torch.bfloat16 and tuple(grad_h.shape) == (n, h)
          and tuple(grad_w.shape) == (v, h), f"{shape}: output dtypes and shapes")
    errs = [rel_err(o, e) for o, e in zip((loss, grad_h, grad_w), exact)]
    check(max(errs) < GATE / 3, f"{shape}: bf16 reference vs float64 closed form: {errs}")
    check(bool((grad_h[~valid] == 0).all()), f"{shape}: ignored rows have zero gradient")

    # The logits are peaked like a trained model's: a mean loss of a few nats, not log(V).
    mean_loss = float(exact[0])
    check(0.3 < mean_loss < 0.8 * torch.log(torch.tensor(float(v))).item(),
          f"{shape}: mean loss {mean_loss:.2f} vs log V")

    fused = closed_form(*args, round_grad=True, filter_eps=FILTER_EPS)
    errs = [rel_err(o, e) for o, e in zip(fused, exact)]
    check(max(errs) < GATE / 2, f"{shape}: filtered, bf16-rounded closed form: {errs}")
    # Against the reference itself, the way the evaluator compares.
    errs = [rel_err(o, r) for o, r in zip(fused, (loss, grad_h, grad_w))]
    check(max(errs) < GATE / 2, f"{shape}: filtered closed form vs reference: {errs}")

    wrong = {
        "no softmax term": closed_form(*args, softmax=False),
        "mean over N": closed_form(*args, divisor=n),
        "sum instead of mean": closed_form(*args, divisor=1),
    }
    for name, outs in wrong.items():
        if outs is None:
            continue
        worst = max(rel_err(o, e) for o, e in zip(outs, exact))
        check(worst > 3 * GATE, f"{shape}: the gate catches '{name}': {worst:.2e}")

# The chunked library anchor computes the task's semantics (its chunks, fp32 grad_weight sum).
spec = importlib.util.spec_from_file_location("flce_anchor_chunked", TASK / "anchors" / "chunked_torch.py")
ANCHOR = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ANCHOR)
for shape in [(300, 200, 3001), (129, 64, 20000)]:
    args = GET_INPUTS.get_inputs(config(*shape, seed=6))
    ref = REFERENCE.run(*args)
    out = ANCHOR.run(*args)
    check(all(o.dtype == r.dtype and o.shape == r.shape for o, r in zip(out, ref)),
          f"{shape}: chunked anchor dtypes and shapes")
    errs = [rel_err(o, r) for o, r in zip(out, ref)]
    check(max(errs) < GATE / 2, f"{shape}: chunked anchor vs reference: {errs}")

# The float32 reference and the closed form are the same function.
args = GET_INPUTS.get_inputs(config(200, 128, 2000, seed=5))
ref32 = REFERENCE.run(args[0].float(), args[1].float(), args[2])
exact = closed_form(*args)
errs = [rel_err(o, e) for o, e in zip(ref32, exact)]
check(max(errs) < 1e-5, f"float32 reference vs closed form: {errs}")
# F.cross_entropy semantics the reference relies on: the mean is over the kept positions.
z = torch.randn(4, 7)
t = torch.tensor([1, -100, 3, -100])
check(torch.allclose(F.cross_entropy(z, t, ignore_index=-100),
                     F.cross_entropy(z[[0, 2]], t[[0, 2]])), "ignore_index mean")

# The work model: the forward logit product is the only product every correct implementation
# does in full (the gradient products skip what the softmax leaves below bf16 resolution), and
# bytes are every input read and every output written once.
for workload in CONFIG["workloads"]:
    p = {k: val for k, val in workload.items() if isinstance(val, (int, float))}
    n, h, v = p["N"], p["H"], p["V"]
    model = {key: eval(CONFIG["work_model"][key], {}, p) for key in ("flops", "bytes")}
    label = workload["label"]
    check(model["flops"] == 2 * n * v * h, f"{label}: work-model flops")
    nbytes = n * h * 2 + v * h * 2 + n * 8 + 4 + n * h * 2 + v * h * 2
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    bound = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, p)
    check(bound < n * v * 2 / 2, f"{label}: the memory bound {bound} leaves no room for bf16 logits")
    check(bound > 4 * n * h + 4 * 16384 * h + 12 * n * 16,
          f"{label}: the memory bound fits the fused design's fp32 accumulators")

check.finish()
