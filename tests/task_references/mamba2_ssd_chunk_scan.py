#!/usr/bin/python3
"""CPU checks of tasks/mamba2_ssd_chunk_scan: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (a token loop vectorised over sequences and heads) is compared with
two formulations written here in float64: the literal recurrence, one (sequence, head, token) at
a time with scalar step sizes, and the quadratic dual form, every output as a decay-weighted sum
over all earlier tokens plus the decayed initial state; the chunked PyTorch anchor is held to
the same. The checks also show that the tolerance separates the usual mistakes (a wrong group
for a head, a dropped initial state, a decay applied once too often) from rounding, and recount
the work model and the scratch bound of every registered workload.
"""

import importlib.util
import json
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "mamba2_ssd_chunk_scan"


def load(name):
    return load_module("mamba2_ssd_chunk_scan", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
_spec = importlib.util.spec_from_file_location("ssd_chunked_anchor",
                                               TASK / "anchors" / "ssd_chunked_torch.py")
CHUNKED_ANCHOR = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CHUNKED_ANCHOR)
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

# (batch, seq_len, heads, groups, initial_state): one group and several, a sequence shorter than
# any chunk, lengths that are not multiples of a power of two, and carried initial states.
SHAPES = [
    (2, 37, 4, 1, 0),
    (1, 70, 8, 4, 1),
    (3, 5, 2, 2, 1),
    (1, 129, 6, 3, 1),
    (1, 600, 4, 2, 1),  # three 256-token chunks for the chunked anchor, the last partial
]
HEAD_DIM, D_STATE = 8, 16  # small state for the float64 loops; the workloads use 64 x 128


def config(batch, seq_len, heads, groups, initial_state, seed, head_dim=HEAD_DIM, d_state=D_STATE):
    c = dict(CONFIG["fixed_params"])
    c.update(batch=batch, seq_len=seq_len, heads=heads, groups=groups,
             initial_state=initial_state, head_dim=head_dim, d_state=d_state, seed=seed,
             device="cpu")
    return c


def literal(x, dt, A, B, C, D, dt_bias, initial_states, group_of=None):
    """The recurrence as written, float64, one (sequence, head) and one token at a time."""
    batch, seq_len, heads, _ = x.shape
    groups = B.shape[2]
    if group_of is None:
        group_of = lambda h: h // (heads // groups)  # noqa: E731
    x, B, C = x.double(), B.double(), C.double()
    y = torch.empty(x.shape, dtype=torch.float64)
    final = torch.empty(initial_states.shape, dtype=torch.float64)
    for b in range(batch):
        for h in range(heads):
            g = group_of(h)
            state = initial_states[b, h].double().clone()
            for t in range(seq_len):
                v = float(dt[b, t, h]) + float(dt_bias[h])
                step = math.log1p(math.exp(v)) if v < 30 else v
                state = math.exp(step * float(A[h])) * state + step * torch.outer(x[b, t, h], B[b, t, g])
                y[b, t, h] = state @ C[b, t, g] + float(D[h]) * x[b, t, h]
            final[b, h] = state
    return y, final


def dual(x, dt, A, B, C, D, dt_bias, initial_states):
    """The quadratic form, float64: y_t = sum_{k<=t} (C_t . B_k) exp(sum_{k<j<=t} dt_j A) dt_k x_k
    + exp(sum_{j<=t} dt_j A) C_t . h_0 + D x_t, and the final state likewise."""
    batch, seq_len, heads, _ = x.shape
    per_group = heads // B.shape[2]
    step = F.softplus(dt.double() + dt_bias.double())  # [b, t, h]
    cum = torch.cumsum(step * A.double(), dim=1)  # inclusive
    b_h = B.double().repeat_interleave(per_group, dim=2)
    c_h = C.double().repeat_interleave(per_group, dim=2)
    gap = cum[:, :, None, :] - cum[:, None, :, :]  # [b, t, k, h] = sum_{k<j<=t}
    causal = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()[None, :, :, None]
    weight = torch.where(causal, torch.exp(gap.clamp(max=0.0)), torch.zeros((), dtype=torch.float64))
    scores = torch.einsum("bthn,bkhn->btkh", c_h, b_h) * weight * step[:, None, :, :]
    y = torch.einsum("btkh,bkhp->bthp", scores, x.double())
    y += torch.exp(cum)[..., None] * torch.einsum("bthn,bhpn->bthp", c_h, initial_states.double())
    y += D.double()[:, None] * x.double()
    to_end = torch.exp(cum[:, -1:, :] - cum) * step  # [b, t, h]
    final = torch.exp(cum[:, -1, :])[..., None, None] * initial_states.double()
    final += torch.einsum("bth,bthp,bthn->bhpn", to_end, x.double(), b_h)
    return y, final


def as_fp32(args):
    return [a.float() if torch.is_tensor(a) and a.is_floating_point() else a for a in args]


check = Checks()


for shape in SHAPES:
    batch, seq_len, heads, groups, initial_state = shape
    args = GET_INPUTS.get_inputs(config(*shape, seed=3))
    again = GET_INPUTS.get_inputs(config(*shape, seed=3))
    other = GET_INPUTS.get_inputs(config(*shape, seed=4))
    x, dt, A, B, C, D, dt_bias, initial_states = args
    check(all(torch.equal(a, b) for a, b in zip(args, again)), f"{shape}: deterministic per seed")
    check(not torch.equal(x, other[0]) and not torch.equal(dt, other[1]),
          f"{shape}: inputs differ across seeds")
    check(x.dtype == dt.dtype == B.dtype == C.dtype == torch.bfloat16
          and A.dtype == D.dtype == dt_bias.dtype == initial_states.dtype == torch.float32,
          f"{shape}: dtypes")
    check(tuple(x.shape) == (batch, seq_len, heads, HEAD_DIM) and tuple(dt.shape) == (batch, seq_len, heads)
          and tuple(B.shape) == tuple(C.shape) == (batch, seq_len, groups, D_STATE)
          and tuple(initial_states.shape) == (batch, heads, HEAD_DIM, D_STATE),
          f"{shape}: shapes")
    check(bool((A <= -1.0).all() and (A >= -16.0).all()), f"{shape}: A in [-16, -1]")
    step0 = F.softplus(dt_bias)
    check(bool((step0 > 0.9e-4).all() and (step0 < 0.1001).all()),
          f"{shape}: softplus(dt_bias) in [1e-4, 0.1]")
    check(bool(initial_states.abs().sum() > 0) == bool(initial_state),
          f"{shape}: initial states are zero exactly when the workload starts fresh")

    exact_y, exact_final = literal(*args)
    dual_y, dual_final = dual(*args)
    check(rel_err(dual_y, exact_y) < 1e-10 and rel_err(dual_final, exact_final) < 1e-10,
          f"{shape}: the two float64 formulations agree")

    # float32 inputs: the reference is the same function up to fp32 rounding.
    y32, final32 = REFERENCE.run(*as_fp32(args))
    e_y, e_f = rel_err(y32, exact_y), rel_err(final32, exact_final)
    check(e_y < 1e-5 and e_f < 1e-5, f"{shape}: fp32 reference vs float64: y {e_y:.2e}, final {e_f:.2e}")
    # As timed: bf16 inputs and y.
    y16, final16 = REFERENCE.run(*args)
    check(y16.dtype == torch.bfloat16 and tuple(y16.shape) == tuple(x.shape)
          and final16.dtype == torch.float32 and tuple(final16.shape) == tuple(initial_states.shape),
          f"{shape}: output dtypes and shapes")
    e_y, e_f = rel_err(y16, exact_y), rel_err(final16, exact_final)
    check(e_y < GATE / 3 and e_f < 1e-5, f"{shape}: bf16 reference vs float64: y {e_y:.2e}, final {e_f:.2e}")
    check(torch.equal(x, again[0]) and torch.equal(initial_states, again[7]),
          f"{shape}: the reference leaves its inputs unchanged")

    # The chunked PyTorch anchor (256-token chunks: one partial chunk here) is the same function.
    ya, fa = CHUNKED_ANCHOR.run(*as_fp32(args))
    e_y, e_f = rel_err(ya, exact_y), rel_err(fa, exact_final)
    check(e_y < 1e-5 and e_f < 1e-5, f"{shape}: chunked anchor vs float64: y {e_y:.2e}, final {e_f:.2e}")

    # The tolerance separates the usual mistakes from rounding.
    if groups > 1:
        per_group = heads // groups
        wrong_y, _ = literal(*args, group_of=lambda h: (h // per_group + 1) % groups)
        check(rel_err(wrong_y, exact_y) > 5 * GATE, f"{shape}: a wrong head-to-group map fails the gate")
    if initial_state:
        zero_init = list(args)
        zero_init[7] = torch.zeros_like(initial_states)
        fresh_y, _ = literal(*zero_init)
        # The state a sequence starts from fades with each head's decay: it shows in the early
        # outputs (about 0.02 of y's norm at 4096 tokens, more on shorter sequences), less in
        # the final state.
        check(rel_err(fresh_y, exact_y) > 2 * GATE,
              f"{shape}: ignoring the initial state fails the gate")
    doubled = list(args)
    doubled[2] = 2 * A  # every decay applied twice
    twice_y, twice_final = literal(*doubled)
    check(rel_err(twice_y, exact_y) > 2 * GATE and rel_err(twice_final, exact_final) > 2 * GATE,
          f"{shape}: a doubled decay fails the gate")

# The registered shapes draw as stated (checked at a reduced length: get_inputs does not depend
# on it beyond the shapes).
for workload in CONFIG["workloads"] + CONFIG["quick_workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update(workload)
    check(params["heads"] % params["groups"] == 0, f"{workload['label']}: heads divisible by groups")
    small = dict(params, seq_len=min(params["seq_len"], 3), batch=1, seed=1, device="cpu")
    x, dt, A, B, C, D, dt_bias, initial_states = GET_INPUTS.get_inputs(small)
    check(tuple(x.shape) == (1, small["seq_len"], params["heads"], 64)
          and tuple(B.shape) == (1, small["seq_len"], params["groups"], 128),
          f"{workload['label']}: head_dim 64 and d_state 128")

# The work model: the least flops are the state contractions (2 head_dim d_state to fold a token
# into a state and as many to read its output), below any chunked form's count, and the least
# bytes read every input and write every output once.
for workload in CONFIG["workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    b, t, h, g = params["batch"], params["seq_len"], params["heads"], params["groups"]
    p, n = params["head_dim"], params["d_state"]
    flops = 2 * 2 * p * n * b * t * h
    nbytes = (b * t * h * p * 2 * 2  # x, y
              + b * t * h * 2  # dt
              + b * t * g * n * 2 * 2  # B, C
              + b * h * p * n * 4 * 2  # initial and final states
              + 3 * h * 4)  # A, D, dt_bias
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    label = workload["label"]
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    # Any chunked form adds the intra-chunk products to the state contractions.
    chunk = 64
    check(model["flops"] < flops + b * t * h * chunk * p, f"{label}: flops below a chunked form's")

# peak_aux_bytes is twice the expert's scratch: fp32 step sizes and cumulative decays per
# (sequence, head, padded token) and one bf16 state per (sequence, 256-token chunk, head).
for workload in CONFIG["workloads"] + CONFIG["quick_workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    b, t, h = params["batch"], params["seq_len"], params["heads"]
    chunks = -(-t // 256)
    scratch = 2 * b * h * chunks * 256 * 4 + b * chunks * h * params["head_dim"] * params["d_state"] * 2
    bound = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, params)
    check(2 * scratch <= bound < 2 * scratch + 2 * b * h * (256 * 8 + 64 * 128 * 2) + 1,
          f"{workload['label']}: peak_aux_bytes {bound} doubles the scratch {scratch}")

check.finish()
