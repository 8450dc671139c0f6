#!/usr/bin/python3
"""CPU checks of tasks/mla_latent_decode: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (per-head keys and values expanded from the latent) is compared with
an independent formulation written here: a loop over requests with the lengths read on the host,
the queries projected into the latent space (q_nope w_uk[h]), scores against the latent rows and
the value projection applied after the softmax, computed in float64. It also recounts the work
model of every registered workload from the lengths get_inputs draws.
"""

import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "mla_latent_decode"


def load(name):
    return load_module("mla_latent_decode", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())

# (batch, s_q, h, ctx_min, ctx_max, page_size): decode and speculative rows, a partial last page,
# ragged lengths down to s_q, and a page size that is not the workloads'.
SHAPES = [
    (2, 1, 8, 130, 130, 64),
    (5, 1, 4, 1, 300, 64),
    (3, 2, 16, 2, 200, 16),
    (2, 3, 4, 97, 97, 16),
]


def config(batch, s_q, h, ctx_min, ctx_max, page_size, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(batch=batch, s_q=s_q, h=h, ctx_min=ctx_min, ctx_max=ctx_max, page_size=page_size,
             sm_scale=CONFIG["workloads"][0]["sm_scale"], seed=seed, device="cpu")
    return c


def absorbed(q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale):
    """The same operator computed in float64 with the up-projections moved off the tokens."""
    batch, s_q, h, _ = q_nope.shape
    kv_lora_rank = w_uk.shape[2]
    page_size = kv_cache.shape[1]
    w_uk, w_uv = w_uk.double(), w_uv.double()
    out = torch.empty((batch, s_q, h, w_uv.shape[1]), dtype=torch.float64)
    for b in range(batch):
        n = int(seq_lens[b])
        pages = block_table[b, : (n + page_size - 1) // page_size].long()
        rows = kv_cache[pages].reshape(-1, kv_cache.shape[2])[:n].double()
        c, k_rope = rows[:, :kv_lora_rank], rows[:, kv_lora_rank:]
        for i in range(s_q):
            seen = n - s_q + i + 1
            q_lat = torch.einsum("hd,hdc->hc", q_nope[b, i].double(), w_uk)
            scores = (q_lat @ c[:seen].T + q_rope[b, i].double() @ k_rope[:seen].T) * sm_scale
            o_lat = torch.softmax(scores, dim=-1) @ c[:seen]  # [h, kv_lora_rank]
            out[b, i] = torch.einsum("hc,hvc->hv", o_lat, w_uv)
    return out


def as_dtype(args, dtype):
    return [a.to(dtype) if torch.is_tensor(a) and a.is_floating_point() else a for a in args]


check = Checks()


for shape in SHAPES:
    batch, s_q, h, ctx_min, ctx_max, page_size = shape
    args = GET_INPUTS.get_inputs(config(*shape, seed=3))
    again = GET_INPUTS.get_inputs(config(*shape, seed=3))
    other = GET_INPUTS.get_inputs(config(*shape, seed=4))
    q_nope, q_rope, kv_cache, block_table, seq_lens, w_uk, w_uv, sm_scale = args
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{shape}: get_inputs is deterministic per seed")
    check(not torch.equal(kv_cache, other[2]), f"{shape}: get_inputs differs across seeds")
    check(q_nope.dtype == torch.bfloat16 and kv_cache.dtype == torch.bfloat16
          and block_table.dtype == torch.int32 and seq_lens.dtype == torch.int32,
          f"{shape}: dtypes")
    check(tuple(kv_cache.shape) == (batch * block_table.shape[1], page_size, 576)
          and tuple(w_uk.shape) == (h, 128, 512) and tuple(w_uv.shape) == (h, 128, 512),
          f"{shape}: shapes")
    check(int(seq_lens.sum()) == batch * (ctx_min + ctx_max) // 2
          and int(seq_lens.min()) >= max(ctx_min, s_q) and int(seq_lens.max()) == ctx_max,
          f"{shape}: lengths span [ctx_min, ctx_max] and sum to the work model's count (rounded down)")
    check(torch.equal(block_table.flatten().sort().values, torch.arange(kv_cache.shape[0])),
          f"{shape}: the block table is a permutation of the pages")

    exact = absorbed(*args)
    # float32: the reference and the absorbed formulation are the same function.
    err32 = rel_err(REFERENCE.run(*as_dtype(args, torch.float32)), exact)
    check(err32 < 1e-5, f"{shape}: float32 reference vs absorbed float64: {err32:.2e}")
    # bf16, as timed: the reference's own rounding stays far inside the gate.
    out16 = REFERENCE.run(*args)
    err16 = rel_err(out16, exact)
    gate = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]
    check(out16.dtype == torch.bfloat16 and tuple(out16.shape) == (batch, s_q, h, 128),
          f"{shape}: output dtype and shape")
    check(err16 < gate / 3, f"{shape}: bf16 reference vs absorbed float64: {err16:.2e}")

    # What lies past a request's length must not matter: poison those cache slots with NaN and
    # point the unused block-table slots at page 0 (another request's page).
    poisoned = [a.clone() if torch.is_tensor(a) else a for a in args]
    cache, table = poisoned[2], poisoned[3]
    for b in range(batch):
        n = int(seq_lens[b])
        used = (n + page_size - 1) // page_size
        last = int(table[b, used - 1])
        cache[last, n - (used - 1) * page_size:] = float("nan")
        table[b, used:] = 0
    err_poison = rel_err(REFERENCE.run(*as_dtype(poisoned, torch.float32)), exact)
    check(math.isfinite(err_poison) and err_poison < 1e-5,
          f"{shape}: slots past the lengths are ignored: {err_poison:.2e}")

# The work model counts exactly what the inputs ask for: every (query token, cached token) pair a
# causal limit admits, over 576 score columns and 512 value columns, plus the two projections; and
# every attended latent row, both weights, the queries and the output once.
for workload in CONFIG["workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    lengths = GET_INPUTS._seq_lens(params["batch"], params["ctx_min"], params["ctx_max"])
    s_q, h = params["s_q"], params["h"]
    pairs = sum(s_q * n - s_q * (s_q - 1) // 2 for n in lengths)
    rows = params["batch"] * s_q * h
    flops = 2 * h * pairs * (512 + 64 + 512) + 2 * rows * 512 * (128 + 128)
    nbytes = sum(lengths) * 576 * 2 + h * 512 * 256 * 2 + rows * (128 + 64 + 128) * 2
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    label = workload["label"]
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    # The expanded form's up-projection alone costs 2 * 512 * 256 flops per cached token and head.
    check(model["flops"] * 50 < 2 * 512 * 256 * h * sum(lengths),
          f"{label}: the work model is far below the expanded form's count")

check.finish()
