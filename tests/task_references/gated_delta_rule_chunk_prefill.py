#!/usr/bin/python3
"""CPU checks of tasks/gated_delta_rule_chunk_prefill: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. Three formulations written here, all in float64, are compared:

* the literal token loop, one sequence, one value head and one token at a time (the oracle);
* the chunked form over 64-token chunks: gate cumsum, the strictly lower triangular system
  (I + A) solved block by block (16 x 16 diagonal blocks by row substitution, then the
  off-diagonal blocks), W and U, the state passed from chunk to chunk and the outputs of each
  chunk from the state it starts with;
* the same chunks grouped into segments, each summarized as an affine map of its starting state
  (h_out = M h_in + D), the maps composed along the sequence.

The reference (vectorized over sequences and heads, fp32) must match the oracle; the chunked and
segmented forms must match it to float64 accuracy; and the chunked form with bf16 operands at
every tensor-core product must stay inside the gate. It also recounts the work model.
"""

import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "gated_delta_rule_chunk_prefill"


def load(name):
    return load_module("gated_delta_rule_chunk_prefill", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]
CHUNK = 64
SUB = 16

# (h_qk, h_v, seq_lens): one chunk exactly, partial chunks, single-token sequences, several
# sequences, a grouped head map and a plain one.
SHAPES = [
    (2, 4, [64]),
    (1, 2, [1, 63, 65, 200]),
    (2, 8, [300, 77]),
    (1, 1, [129]),
]


def config(h_qk, h_v, lens, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(h_qk=h_qk, h_v=h_v, T=sum(lens), n_seqs=len(lens), seq_lens=lens, seed=seed,
             device="cpu")
    return c


def literal_loop(q, k, v, g, beta, h0, cu, scale):
    """The definition: token by token, per sequence and value head, float64."""
    total, h_qk, _ = q.shape[1:]
    h_v, d_v = v.shape[2], v.shape[3]
    group = h_v // h_qk
    o = torch.zeros((total, h_v, d_v), dtype=torch.float64)
    final = torch.zeros(h0.shape, dtype=torch.float64)
    for s in range(cu.shape[0] - 1):
        for j in range(h_v):
            h = h0[s, j].double().clone()
            for t in range(int(cu[s]), int(cu[s + 1])):
                kt = k[0, t, j // group].double()
                h = math.exp(float(g[0, t, j])) * h
                delta = float(beta[0, t, j]) * (v[0, t, j].double() - h.T @ kt)
                h = h + torch.outer(kt, delta)
                o[t, j] = scale * (h.T @ q[0, t, j // group].double())
            final[s, j] = h
    return o, final


def bf16(x, on):
    return x.to(torch.bfloat16).double() if on else x


def blocked_unit_lower_inverse(a):
    """(I + a)^-1 for strictly lower triangular a [heads, 64, 64], as a kernel computes it: the
    16 x 16 diagonal blocks by row substitution, then the blocks below the diagonal."""
    heads, n, _ = a.shape
    nb = n // SUB
    blk = lambda x, i, j: x[:, i * SUB:(i + 1) * SUB, j * SUB:(j + 1) * SUB]
    eye = torch.eye(SUB, dtype=a.dtype)
    inv = torch.zeros_like(a)
    for b in range(nb):
        low = blk(a, b, b)
        # N = (I + L)^-1 - I satisfies N = -L - L N; row i needs only rows j < i.
        nmat = -low.clone()
        for i in range(2, SUB):
            row = low[:, i, :]
            nmat[:, i, :] = -row - torch.einsum("hj,hjc->hc", row, nmat)
        blk(inv, b, b)[:] = eye + nmat
    for i in range(1, nb):
        for j in range(i - 1, -1, -1):
            acc = sum(blk(a, i, m) @ blk(inv, m, j) for m in range(j, i))
            blk(inv, i, j)[:] = -blk(inv, i, i) @ acc
    return inv


def chunk_terms(q, k, v, g, beta, lo, hi, group, rounding):
    """Per-chunk quantities of tokens lo .. hi - 1 of the packed axis, all value heads:
    Q, K [h_v, n, d_k], G (cumulative log decay), W, U."""
    n = hi - lo
    qc = q[0, lo:hi].double().repeat_interleave(group, dim=1).transpose(0, 1)
    kc = k[0, lo:hi].double().repeat_interleave(group, dim=1).transpose(0, 1)
    vc = v[0, lo:hi].double().transpose(0, 1)
    gc = torch.cumsum(g[0, lo:hi].double().T, dim=-1)  # [h_v, n]
    bc = beta[0, lo:hi].double().T
    rows = torch.arange(n)
    strict = rows[:, None] > rows[None, :]
    diff = gc[:, :, None] - gc[:, None, :]
    a = torch.where(strict, bc[:, :, None] * (kc @ kc.transpose(1, 2))
                    * torch.exp(diff.clamp(max=0)), torch.zeros(()).double())
    pad = torch.zeros((a.shape[0], CHUNK, CHUNK), dtype=torch.float64)
    pad[:, :n, :n] = a
    tmat = blocked_unit_lower_inverse(pad)[:, :n, :n]
    tmat = bf16(tmat, rounding)
    w = tmat @ bf16(kc * (bc * gc.exp())[:, :, None], rounding)
    u = tmat @ bf16(vc * bc[:, :, None], rounding)
    return qc, kc, gc, bf16(w, rounding), bf16(u, rounding)


def chunk_step(h, qc, kc, gc, w, u, scale, rounding):
    """One chunk from state h [h_v, d_k, d_v]: its outputs [h_v, n, d_v] and the next state."""
    n = qc.shape[1]
    rows = torch.arange(n)
    hb = bf16(h, rounding)
    v_new = u - w @ hb
    vb = bf16(v_new, rounding)
    lower = rows[:, None] >= rows[None, :]
    decay = torch.where(lower, torch.exp((gc[:, :, None] - gc[:, None, :]).clamp(max=0)),
                        torch.zeros(()).double())
    scores = bf16((qc @ kc.transpose(1, 2)) * decay, rounding)
    o = scale * (bf16(qc * gc.exp()[:, :, None], rounding) @ hb + scores @ vb)
    g_last = gc[:, -1]
    k_tilde = bf16(kc * torch.exp(g_last[:, None] - gc)[:, :, None], rounding)
    h = g_last.exp()[:, None, None] * h + k_tilde.transpose(1, 2) @ vb
    return o, h


def chunked(q, k, v, g, beta, h0, cu, scale, rounding=False):
    h_qk, h_v = q.shape[2], v.shape[2]
    group = h_v // h_qk
    o = torch.zeros((q.shape[1], h_v, v.shape[3]), dtype=torch.float64)
    final = torch.zeros(h0.shape, dtype=torch.float64)
    for s in range(cu.shape[0] - 1):
        h = h0[s].double().clone()
        for lo in range(int(cu[s]), int(cu[s + 1]), CHUNK):
            hi = min(lo + CHUNK, int(cu[s + 1]))
            qc, kc, gc, w, u = chunk_terms(q, k, v, g, beta, lo, hi, group, rounding)
            oc, h = chunk_step(h, qc, kc, gc, w, u, scale, rounding)
            o[lo:hi] = oc.transpose(0, 1)
        final[s] = h
    return o, final


def segmented(q, k, v, g, beta, h0, cu, scale, seg_chunks):
    """Segments of seg_chunks chunks: each one's map (M, D) from the chunk recurrence run on
    [D | M] from [0 | I] with no value input for the M columns, composed along the sequence;
    then every segment's outputs from its composed starting state."""
    h_qk, h_v = q.shape[2], v.shape[2]
    d_k, d_v = q.shape[3], v.shape[3]
    group = h_v // h_qk
    o = torch.zeros((q.shape[1], h_v, d_v), dtype=torch.float64)
    final = torch.zeros(h0.shape, dtype=torch.float64)
    for s in range(cu.shape[0] - 1):
        bounds = list(range(int(cu[s]), int(cu[s + 1]), CHUNK * seg_chunks)) + [int(cu[s + 1])]
        maps = []
        for lo_seg, hi_seg in zip(bounds[:-1], bounds[1:]):
            x = torch.zeros((h_v, d_k, d_v + d_k), dtype=torch.float64)
            x[:, :, d_v:] = torch.eye(d_k, dtype=torch.float64)
            for lo in range(lo_seg, hi_seg, CHUNK):
                hi = min(lo + CHUNK, hi_seg)
                qc, kc, gc, w, u = chunk_terms(q, k, v, g, beta, lo, hi, group, False)
                u_aug = torch.cat([u, torch.zeros((h_v, hi - lo, d_k), dtype=torch.float64)], -1)
                _, x = chunk_step(x, qc, kc, gc, w, u_aug, scale, False)
            maps.append((x[:, :, d_v:], x[:, :, :d_v]))
        h = h0[s].double().clone()
        starts = []
        for m, d in maps:
            starts.append(h)
            h = m @ h + d
        final[s] = h
        for (lo_seg, hi_seg), h_start in zip(zip(bounds[:-1], bounds[1:]), starts):
            hc = h_start
            for lo in range(lo_seg, hi_seg, CHUNK):
                hi = min(lo + CHUNK, hi_seg)
                qc, kc, gc, w, u = chunk_terms(q, k, v, g, beta, lo, hi, group, False)
                oc, hc = chunk_step(hc, qc, kc, gc, w, u, scale, False)
                o[lo:hi] = oc.transpose(0, 1)
    return o, final


check = Checks()


# The blocked inverse is the inverse.
gen = torch.Generator().manual_seed(0)
a = torch.tril(torch.randn((3, CHUNK, CHUNK), generator=gen, dtype=torch.float64) * 0.1, -1)
eye = torch.eye(CHUNK, dtype=torch.float64)
err_inv = float((blocked_unit_lower_inverse(a) @ (eye + a) - eye).abs().max())
check(err_inv < 1e-12, f"blocked triangular inverse: {err_inv:.2e}")

worst_bf16 = 0.0
for h_qk, h_v, lens in SHAPES:
    tag = f"h_qk={h_qk} h_v={h_v} lens={lens}"
    args = GET_INPUTS.get_inputs(config(h_qk, h_v, lens, seed=5))
    again = GET_INPUTS.get_inputs(config(h_qk, h_v, lens, seed=5))
    other = GET_INPUTS.get_inputs(config(h_qk, h_v, lens, seed=6))
    q, k, v, g, beta, h0, cu, scale = args
    total = sum(lens)
    check(all(torch.equal(x, y) if torch.is_tensor(x) else x == y for x, y in zip(args, again)),
          f"{tag}: get_inputs is deterministic per seed")
    check(not torch.equal(v, other[2]), f"{tag}: get_inputs differs across seeds")
    check(q.dtype == k.dtype == v.dtype == beta.dtype == torch.bfloat16
          and g.dtype == h0.dtype == torch.float32 and cu.dtype == torch.int32,
          f"{tag}: dtypes")
    check(tuple(q.shape) == (1, total, h_qk, 128) and tuple(v.shape) == (1, total, h_v, 128)
          and tuple(g.shape) == (1, total, h_v) and tuple(h0.shape) == (len(lens), h_v, 128, 128),
          f"{tag}: shapes")
    seq = (cu[1:] - cu[:-1]).tolist()
    check(int(cu[0]) == 0 and int(cu[-1]) == total and sorted(seq) == sorted(lens),
          f"{tag}: cu_seqlens packs the workload's lengths")
    check(float((q.double().norm(dim=-1) - 1).abs().max()) < 1e-2
          and float((k.double().norm(dim=-1) - 1).abs().max()) < 1e-2, f"{tag}: unit q and k")
    check(float(g.max()) <= 0 and 0 < float(beta.min()) and float(beta.max()) < 1,
          f"{tag}: g <= 0 and beta in (0, 1)")

    o_ref, h_ref = literal_loop(*args)
    # fp32 inputs: the reference computes the definition.
    args32 = [x.float() if torch.is_tensor(x) and x.is_floating_point() else x for x in args]
    o32, h32 = REFERENCE.run(*args32)
    e_o32, e_h32 = rel_err(o32[0], o_ref), rel_err(h32, h_ref)
    check(e_o32 < 1e-5 and e_h32 < 1e-5,
          f"{tag}: float32 reference vs literal loop: o {e_o32:.2e}, state {e_h32:.2e}")
    # bf16, as timed: only the output's rounding.
    o16, h16 = REFERENCE.run(*args)
    check(o16.dtype == torch.bfloat16 and tuple(o16.shape) == (1, total, h_v, 128)
          and h16.dtype == torch.float32 and tuple(h16.shape) == tuple(h0.shape),
          f"{tag}: output dtypes and shapes")
    e_o16, e_h16 = rel_err(o16[0], o_ref), rel_err(h16, h_ref)
    check(e_o16 < GATE / 3 and e_h16 < 1e-5,
          f"{tag}: bf16 reference vs literal loop: o {e_o16:.2e}, state {e_h16:.2e}")

    o_c, h_c = chunked(*args)
    e_oc, e_hc = rel_err(o_c, o_ref), rel_err(h_c, h_ref)
    check(e_oc < 1e-10 and e_hc < 1e-10,
          f"{tag}: chunked form vs literal loop: o {e_oc:.2e}, state {e_hc:.2e}")
    o_s, h_s = segmented(*args, seg_chunks=2)
    e_os, e_hs = rel_err(o_s, o_ref), rel_err(h_s, h_ref)
    check(e_os < 1e-10 and e_hs < 1e-10,
          f"{tag}: composed segment maps vs literal loop: o {e_os:.2e}, state {e_hs:.2e}")
    o_b, h_b = chunked(*args, rounding=True)
    e_ob, e_hb = rel_err(o_b, o_ref), rel_err(h_b, h_ref)
    worst_bf16 = max(worst_bf16, e_ob, e_hb)
    check(e_ob < GATE / 2 and e_hb < GATE / 2,
          f"{tag}: chunked form with bf16 operands: o {e_ob:.2e}, state {e_hb:.2e}")

    # A sequence's outputs do not depend on another sequence's tokens.
    if len(lens) > 1:
        changed = [x.clone() if torch.is_tensor(x) else x for x in args32]
        first, second = int(cu[0]), int(cu[1])
        changed[2][0, first:second] = -changed[2][0, first:second]
        o_changed, h_changed = REFERENCE.run(*changed)
        check(torch.equal(o_changed[0, second:], o32[0, second:])
              and torch.equal(h_changed[1:], h32[1:]),
              f"{tag}: sequences are independent")

print(f"largest error of the bf16-operand chunked form: {worst_bf16:.2e}")

# The work model: the three d_k x d_v products per token and value head (the key's read of the
# state, the state's update, the query's read), every input read once and every output written
# once at its dtype.
for workload in CONFIG["workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    lens = workload["seq_lens"]
    total, h_qk, h_v = sum(lens), workload["h_qk"], workload["h_v"]
    check(total == workload["T"] and len(lens) == workload["n_seqs"],
          f"{workload['label']}: T and n_seqs agree with seq_lens")
    flops = 3 * 2 * 128 * 128 * total * h_v
    nbytes = (total * h_qk * 128 * 2 * 2 + total * h_v * 128 * 2 * 2 + total * h_v * (4 + 2)
              + 2 * len(lens) * h_v * 128 * 128 * 4)
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    label = workload["label"]
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    aux = eval(CONFIG["evaluation"]["peak_aux_bytes"], {}, params)
    check(aux > 0, f"{label}: peak_aux_bytes evaluates")

for workload in CONFIG["quick_workloads"]:
    lens = workload["seq_lens"]
    check(sum(lens) == workload["T"] and len(lens) == workload["n_seqs"] and min(lens) >= 1
          and workload["h_v"] % workload["h_qk"] == 0,
          f"{workload['label']}: T, n_seqs, lengths and head counts agree")

check.finish()
