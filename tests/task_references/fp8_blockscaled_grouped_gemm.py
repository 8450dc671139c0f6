#!/usr/bin/python3
"""CPU checks of tasks/fp8_blockscaled_grouped_gemm: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The e4m3 encoder of get_inputs is checked against an exhaustive nearest-value
search over an independent float64 decode; the reference is compared with an independent
formulation written here: per group, read on the host, a float64 sum over the 128-wide K blocks
of (codes_A codes_B^T) scaled by the outer product of the two blocks' scales (the block-scaled
form, not the dequantize-then-multiply form). It also recounts the work model of every registered
workload from what get_inputs draws.
"""

import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "fp8_blockscaled_grouped_gemm"


def load(name):
    return load_module("fp8_blockscaled_grouped_gemm", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

check = Checks()


def decode_e4m3(codes):
    """e4m3fn code -> float64: sign, exponent e (bias 7), mantissa m: (1 + m/8) 2^(e-7) for e > 0,
    (m/8) 2^-6 for e = 0; 0x7f and 0xff are NaN."""
    codes = codes.long()
    e = (codes >> 3) & 15
    m = (codes & 7).double()
    mag = torch.where(e > 0, (1 + m / 8) * torch.pow(2.0, (e - 7).double()), m / 8 * 2.0 ** -6)
    mag = torch.where((codes & 127) == 127, torch.full_like(mag, float("nan")), mag)
    return torch.where(codes >= 128, -mag, mag)


# --- The encoder: nearest e4m3 value, ties to the even code, for every input. -------------------
# (On PyTorch without float8 this is get_inputs' integer-arithmetic encoder; with float8 it is
# PyTorch's own conversion, which rounds the same way.)
torch.manual_seed(0)
table = decode_e4m3(torch.arange(256))
finite = ~torch.isnan(table)
values = table[finite]
sorted_vals = values.sort().values
mids = ((sorted_vals[1:] + sorted_vals[:-1]) / 2).float()  # exact ties between neighbours
x = torch.cat([torch.linspace(-448, 448, 20001), torch.randn(20000) * 3, torch.randn(5000) * 0.01,
               mids, values.float()])
got = decode_e4m3(GET_INPUTS.e4m3_codes(x))
dist = (x.double()[:, None] - values[None, :]).abs()
best = dist.min(dim=1).values
check(bool(torch.equal((got - x.double()).abs(), best)), "e4m3_codes rounds to a nearest value")
# Ties go to the even code (the value with mantissa bit 0).
tie_codes = GET_INPUTS.e4m3_codes(mids[(mids.abs() < 400)]).long()
check(bool(((tie_codes & 1) == 0).all()), "e4m3_codes breaks ties to the even code")
check(torch.equal(GET_INPUTS.e4m3_codes(torch.tensor([0.0, 448.0, -448.0, 2.0 ** -9, 2.0 ** -6, 1.0])),
                  torch.tensor([0, 126, 254, 1, 8, 56], dtype=torch.uint8)),
      "e4m3_codes fixed codes (zero, max, smallest subnormal, smallest normal, one)")
ref_table = REFERENCE._e4m3_values("cpu").double()
check(torch.equal(ref_table[finite], table[finite]) and bool(torch.isnan(ref_table[~finite]).all()),
      "the reference's e4m3 table matches the independent decode")


# --- The reference against the block-scaled float64 form. --------------------------------------
def blockscaled(a, a_scale, b, b_scale, grouping):
    groups, n, k = b.shape
    kb = k // 128
    bv = decode_e4m3(b).view(groups, n // 128, 128, kb, 128)
    if a.dim() == 2:
        rows = a.shape[0]
        av = decode_e4m3(a).view(rows, kb, 128)
        sa = a_scale.t().double()  # [rows, kb]
        out = torch.zeros((rows, n), dtype=torch.float64)
        for g in range(groups):
            idx = (grouping == g).nonzero().flatten()
            if len(idx) == 0:
                continue
            for j in range(kb):
                part = av[idx, j] @ bv[g, :, :, j].reshape(n, 128).t()        # [rows_g, n]
                scale = sa[idx, j][:, None] * b_scale[g, :, j].double().repeat_interleave(128)[None, :]
                out[idx] += part * scale
        return out
    m_max = a.shape[1]
    out = torch.zeros((groups, m_max, n), dtype=torch.float64)
    for g in range(groups):
        m = int(grouping[g])
        av = decode_e4m3(a[g, :m]).view(m, kb, 128)
        for j in range(kb):
            part = av[:, j] @ bv[g, :, :, j].reshape(n, 128).t()
            scale = a_scale[g, j, :m].double()[:, None] * b_scale[g, :, j].double().repeat_interleave(128)[None, :]
            out[g, :m] += part * scale
    return out


def cfg(entry, seed):
    c = dict(CONFIG["fixed_params"])
    c.update({key: v for key, v in entry.items() if key not in ("label", "specialization_params")})
    c.update(seed=seed, device="cpu")
    return c


for entry in CONFIG["quick_workloads"]:
    label = entry["label"]
    args = GET_INPUTS.get_inputs(cfg(entry, 5))
    again = GET_INPUTS.get_inputs(cfg(entry, 5))
    other = GET_INPUTS.get_inputs(cfg(entry, 6))
    a, a_scale, b, b_scale, grouping = args
    groups, n, k = entry["G"], entry["N"], entry["K"]
    check(all(torch.equal(p, q) for p, q in zip(args, again)), f"{label}: deterministic per seed")
    check(not torch.equal(b, other[2]), f"{label}: differs across seeds")
    check(a.dtype == torch.uint8 and b.dtype == torch.uint8 and a_scale.dtype == torch.float32
          and b_scale.dtype == torch.float32 and grouping.dtype == torch.int32, f"{label}: dtypes")
    check(all(t.is_contiguous() for t in args), f"{label}: contiguous")
    check(tuple(b.shape) == (groups, n, k) and tuple(b_scale.shape) == (groups, n // 128, k // 128),
          f"{label}: weight shapes")
    # The scales are the block amax / 448: every block reaches the largest code in magnitude.
    bmax = decode_e4m3(b).abs().view(groups, n // 128, 128, k // 128, 128).amax(dim=(2, 4))
    check(bool((bmax == 448).all()), f"{label}: every weight block uses the full e4m3 range")
    if entry["layout"] == "contiguous":
        rows = entry["out_rows"]
        check(tuple(a.shape) == (rows, k) and tuple(a_scale.shape) == (k // 128, rows)
              and tuple(grouping.shape) == (rows,), f"{label}: activation shapes")
        check(int((grouping >= 0).sum()) == entry["valid_rows"], f"{label}: valid rows")
        blocks = grouping.view(rows // 128, 128)
        first = blocks[:, :1]
        same = ((blocks == first) | (blocks == -1)).all()
        starts_ok = True
        prev = -1
        for g in range(groups):
            idx = (grouping == g).nonzero().flatten()
            starts_ok &= len(idx) > 0 and int(idx[0]) % 128 == 0 and int(idx[-1] - idx[0]) + 1 == len(idx)
            starts_ok &= int(idx[0]) > prev
            prev = int(idx[0])
        check(bool(same) and starts_ok, f"{label}: segments in group order, aligned to 128, one group per block")
        amax = decode_e4m3(a).abs().view(rows, k // 128, 128).amax(dim=-1)
        check(bool((amax == 448).all()), f"{label}: every activation block uses the full range")
        out_shape = (rows, n)
    else:
        m_max = entry["M_max"]
        check(tuple(a.shape) == (groups, m_max, k) and tuple(a_scale.shape) == (groups, k // 128, m_max)
              and tuple(grouping.shape) == (groups,), f"{label}: activation shapes")
        counts = grouping.tolist()
        check(sum(counts) == entry["valid_rows"] and min(counts) >= entry["m_min"]
              and max(counts) == entry["m_max"] and sum(c > 0 for c in counts) == entry["active_groups"],
              f"{label}: masked_m spans [m_min, m_max] and sums to valid_rows")
        out_shape = (groups, m_max, n)

    exact = blockscaled(*args)
    out = REFERENCE.run(*args)
    check(out.dtype == torch.bfloat16 and tuple(out.shape) == out_shape, f"{label}: output dtype and shape")
    err = rel_err(out, exact)
    # bf16 rounding of the output is the reference's only visible error (0.001 to 0.002), well
    # inside the gate.
    check(err < min(GATE / 2, 2.5e-3), f"{label}: reference vs block-scaled float64: {err:.2e}")
    check(bool((out.double()[exact == 0] == 0).all()), f"{label}: invalid rows are zero")

    # Rows that are not valid must not matter: poison them (activations NaN codes, scales NaN).
    pa, ps = a.clone(), a_scale.clone()
    if entry["layout"] == "contiguous":
        pad = grouping < 0
        pa[pad] = 127
        ps[:, pad] = float("nan")
    else:
        for g in range(groups):
            m = int(grouping[g])
            pa[g, m:] = 127
            ps[g, :, m:] = float("nan")
    err_poison = rel_err(REFERENCE.run(pa, ps, b, b_scale, grouping), exact)
    check(math.isfinite(err_poison) and err_poison == err, f"{label}: invalid rows are ignored")

    # A wrong scale block (the weight scales of one group shifted by one K block) fails the gate.
    if k >= 256:
        wrong = b_scale.clone()
        wrong[:] = torch.roll(b_scale, 1, dims=2)
        err_wrong = rel_err(REFERENCE.run(a, a_scale, b, wrong, grouping), exact)
        check(err_wrong > 10 * GATE, f"{label}: shifted weight scales fail the gate: {err_wrong:.2e}")

# --- The work model counts what the inputs hold. -------------------------------------------------
for entry in CONFIG["workloads"]:
    label = entry["label"]
    groups, n, k = entry["G"], entry["N"], entry["K"]
    if entry["layout"] == "contiguous":
        check(entry["out_rows"] == GET_INPUTS.contiguous_capacity(entry["valid_rows"], groups)
              and entry["active_groups"] == groups, f"{label}: contiguous capacity and groups")
    else:
        counts = GET_INPUTS.even_counts(groups, entry["m_min"], entry["m_max"])
        check(sum(counts) == entry["valid_rows"] and entry["out_rows"] == groups * entry["M_max"]
              and sum(c > 0 for c in counts) == entry["active_groups"]
              and min(counts) == entry["m_min"] and max(counts) == entry["m_max"],
              f"{label}: masked counts, rows and active groups")
    check(n % 128 == 0 and k % 128 == 0, f"{label}: N and K are multiples of 128")
    # flops: 2 valid_rows N K FP8 flops, bounded by the fp8 ceiling; bytes: valid activation rows and their scales, the weights and scales of
    # groups with rows, and the whole output.
    wm = CONFIG["work_model"]
    env = {key: v for key, v in entry.items() if isinstance(v, (int, float))}
    flops = eval(wm["flops"], {}, dict(env))
    bytes_ = eval(wm["bytes"], {}, dict(env))
    rows = entry["valid_rows"]
    want_bytes = (rows * k + rows * (k // 128) * 4 + entry["active_groups"] * (n * k + (n // 128) * (k // 128) * 4)
                  + entry["out_rows"] * n * 2)
    check(flops == 2 * rows * n * k, f"{label}: flops")
    check(abs(bytes_ - want_bytes) < 1e-6 * want_bytes, f"{label}: bytes {bytes_} vs {want_bytes}")
    # A smaller contiguous draw on the CPU has every group at least once and the exact row count.
    if entry["layout"] == "contiguous":
        small = dict(entry, N=128, K=128)
        args = GET_INPUTS.get_inputs(cfg(small, 1))
        grouping = args[4]
        check(int((grouping >= 0).sum()) == rows and len(torch.unique(grouping[grouping >= 0])) == groups,
              f"{label}: drawn rows and groups match the work model")

check.finish()
