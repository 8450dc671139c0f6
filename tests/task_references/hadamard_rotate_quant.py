#!/usr/bin/python3
"""CPU checks of tasks/hadamard_rotate_quant: its inputs, its Hadamard matrices and its reference.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (dense fp32 product with the Kronecker-built matrix, then e4m3
rounding) is compared with an independent formulation written here: the order-p Sylvester
transform as butterflies and the order-m mix from a Paley matrix built with Euler's criterion,
in float64, rounded to e4m3 by a search over the 256 decoded codes. PyTorch 1.13 has no float8
dtype, so the reference's e4m3 cast is replaced by a rounding function that is first checked
against that decoded table. The checks also confirm that the tolerance separates an fp32
rotation from a result without the e4m3 rounding or with bf16 intermediates, and recount the
work model of every registered workload.
"""

import importlib.util
import json
import math
import sys
from pathlib import Path

import torch

sys.dont_write_bytecode = True

TASK = Path(__file__).resolve().parents[2] / "tasks" / "hadamard_rotate_quant"


def load(name):
    spec = importlib.util.spec_from_file_location(f"hadamard_{name}", TASK / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]


def e4m3_table():
    """Every finite e4m3fn value, decoded from its bits (sign, 4 exponent bits with bias 7,
    3 mantissa bits; exponent 0 is subnormal; code 0x7f / 0xff are NaN)."""
    values = set()
    for code in range(128):
        if code == 0x7F:
            continue
        exponent, mantissa = code >> 3, code & 7
        if exponent == 0:
            value = mantissa / 8.0 * 2.0 ** -6
        else:
            value = (1 + mantissa / 8.0) * 2.0 ** (exponent - 7)
        values.add(value)
        values.add(-value)
    return torch.tensor(sorted(values), dtype=torch.float64)


TABLE = e4m3_table()


def round_by_table(values):
    """Nearest e4m3 value, ties to the one with an even code (even mantissa), float64."""
    v = values.double().reshape(-1)
    out = torch.empty_like(v)
    for start in range(0, v.numel(), 1 << 16):
        chunk = v[start:start + (1 << 16)]
        dist = (chunk[:, None] - TABLE[None, :]).abs()
        best = dist.min(dim=1, keepdim=True).values
        ties = dist == best
        candidates = torch.where(ties, TABLE[None, :], torch.full_like(dist, math.inf))
        lo = candidates.min(dim=1).values
        hi = torch.where(ties, TABLE[None, :], torch.full_like(dist, -math.inf)).max(dim=1).values
        # A tie between two neighbours: keep the one whose mantissa (value / its step) is even.
        step = torch.where(lo.abs() < 2.0 ** -6, torch.full_like(lo, 2.0 ** -9),
                           2.0 ** (torch.floor(torch.log2(lo.abs().clamp_min(1e-30))) - 3))
        lo_even = torch.remainder(torch.round(lo / step), 2) == 0
        out[start:start + chunk.numel()] = torch.where(lo == hi, lo, torch.where(lo_even, lo, hi))
    return out.reshape(values.shape)


def round_e4m3(values):
    """Round to nearest even on the e4m3 grid by arithmetic (what the reference's cast does)."""
    v = values.double()
    _, exponent = torch.frexp(v)
    step = torch.pow(2.0, (exponent - 1).clamp_min(-6).double() - 3)
    return torch.round(v / step) * step


def check_rounding():
    grid = TABLE[(TABLE.abs() <= 448)]
    mids = (grid[1:] + grid[:-1]) / 2
    samples = torch.cat([grid, mids, torch.linspace(-448, 448, 20001, dtype=torch.float64),
                         torch.randn(20000, dtype=torch.float64) * 0.01,
                         torch.randn(20000, dtype=torch.float64) * 30]).clamp(-448, 448)
    assert torch.equal(round_e4m3(samples), round_by_table(samples)), "e4m3 rounding"
    assert round_e4m3(torch.tensor([448.0])).item() == 448.0


def euler_chi(d, q):
    d %= q
    if d == 0:
        return 0
    return 1 if pow(d, (q - 1) // 2, q) == 1 else -1


def paley(m):
    """Order m in {12, 20, 28}: Paley I for q = m - 1 = 3 mod 4, Paley II for q = m / 2 - 1."""
    if (m - 1) % 4 == 3 and all((m - 1) % k for k in range(2, m - 1)):
        q = m - 1
        h = [[0] * m for _ in range(m)]
        for i in range(m):
            for j in range(m):
                if i == 0 and j == 0:
                    s = 0
                elif i == 0:
                    s = 1
                elif j == 0:
                    s = -1
                else:
                    s = euler_chi(j - i, q)
                h[i][j] = s + (1 if i == j else 0)
        return torch.tensor(h, dtype=torch.float64)
    q = m // 2 - 1
    size = q + 1
    conf = [[0 if i == j else (1 if i == 0 or j == 0 else euler_chi(j - i, q))
             for j in range(size)] for i in range(size)]
    h = torch.zeros((m, m), dtype=torch.float64)
    for a in range(size):
        for b in range(size):
            for s in range(2):
                for t in range(2):
                    outer = 1 if (s, t) == (0, 0) else -1
                    inner = -1 if (s, t) == (1, 1) else 1
                    h[2 * a + s, 2 * b + t] = conf[a][b] * outer + (inner if a == b else 0)
    return h


def independent(x):
    """float64 rotation by butterflies and the Paley mix, then per-row e4m3 quantization."""
    tokens, heads, n = x.shape
    m, p = REFERENCE.split_order(n)
    v = x.double().reshape(-1, m, p)
    half = 1
    while half < p:
        w = v.reshape(v.shape[0], m, p // (2 * half), 2, half)
        a, b = w[:, :, :, 0, :], w[:, :, :, 1, :]
        v = torch.stack([a + b, a - b], dim=3).reshape(-1, m, p)
        half *= 2
    if m > 1:
        v = torch.einsum("rip,ij->rjp", v, paley(m))
    rotated = v.reshape(-1, n) / math.sqrt(n)
    scale = rotated.abs().amax(dim=1, keepdim=True).clamp_min(1e-4) / 448.0
    y = round_by_table((rotated / scale).clamp(-448, 448))
    return rotated, y.reshape(tokens, heads, n), scale.reshape(tokens, heads)


def to_tf32(t):
    """Round fp32 values to tf32 (10 mantissa bits), nearest even."""
    bits = t.float().contiguous().view(torch.int32)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return bits.view(torch.float32)


def rel(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm()).item()


def check_matrices():
    for m in (12, 20, 28):
        h = REFERENCE.special_hadamard(m, "cpu").double()
        assert torch.equal(h, paley(m)), f"H_{m} differs from the independent construction"
        assert torch.equal(h @ h.t(), m * torch.eye(m, dtype=torch.float64)), f"H_{m}"
    for n in (128, 256, 768, 1792, 2560):
        h = REFERENCE.hadamard_matrix(n, "cpu").double()
        assert torch.equal(h @ h.t(), n * torch.eye(n, dtype=torch.float64)), f"H_{n}"
    for entry in CONFIG["workloads"] + CONFIG["quick_workloads"]:
        m, p = REFERENCE.split_order(entry["n"])
        assert m * p == entry["n"] and p & (p - 1) == 0 and m in (1, 12, 20, 28)
    for bad in (96 * 9, 44 * 64, 9 * 128):
        try:
            REFERENCE.split_order(bad)
        except ValueError:
            continue
        raise AssertionError(f"n = {bad} should be refused")


def check_reference():
    if not hasattr(torch, "float8_e4m3fn"):
        REFERENCE.to_e4m3 = lambda v: round_e4m3(v).to(torch.bfloat16)
    shapes = [(9, 2, 128), (3, 5, 256), (5, 1, 768), (3, 1, 2560), (4, 3, 1792), (2, 1, 14336)]
    for seed, (tokens, heads, n) in enumerate(shapes):
        cfg = {"T": tokens, "heads": heads, "n": n, "seed": 100 + seed, "device": "cpu"}
        (x,) = GET_INPUTS.get_inputs(cfg)
        assert x.shape == (tokens, heads, n) and x.dtype == torch.bfloat16 and x.is_contiguous()
        (x2,) = GET_INPUTS.get_inputs(cfg)
        assert torch.equal(x, x2), "get_inputs must be deterministic"
        y, scales = REFERENCE.run(x)
        assert y.shape == x.shape and y.dtype == torch.bfloat16
        assert scales.shape == (tokens, heads) and scales.dtype == torch.float32
        rotated, y64, s64 = independent(x)
        assert rel(scales, s64) < 1e-6, f"scales {n}: {rel(scales, s64)}"
        err = rel(y, y64)
        assert err < GATE / 5, f"y {n}: relative error {err}"
        flipped = (y.double() != y64).double().mean().item()
        assert flipped < 1e-3, f"y {n}: {flipped} of the values differ"
        assert (y.double().abs() <= 448).all() and (y.double().abs().amax(dim=2) == 448).all()
        # Dequantized, the output is the rotation to within the e4m3 step.
        deq = y.double() * scales.double()[..., None]
        assert rel(deq, rotated.reshape(x.shape)) < 0.05

        # The gate rejects the shortcuts it must reject.
        scaled = (rotated / s64.reshape(-1, 1)).reshape(x.shape)
        unrounded = scaled.to(torch.bfloat16)
        assert rel(unrounded, y64) > 5 * GATE, f"unrounded output passes at n = {n}"
        m, p = REFERENCE.split_order(n)
        if n >= 768:
            # Stages of the butterfly rounded to bf16, or to tf32 (10 mantissa bits).
            for name, rounding in (("bf16", lambda t: t.bfloat16().float()), ("tf32", to_tf32)):
                v = x.float().reshape(-1, m, p)
                half = 1
                while half < p:
                    w = v.reshape(v.shape[0], m, p // (2 * half), 2, half)
                    a, b = w[:, :, :, 0, :], w[:, :, :, 1, :]
                    v = rounding(torch.stack([a + b, a - b], dim=3).reshape(-1, m, p))
                    half *= 2
                v = torch.einsum("rip,ij->rjp", v.double(), paley(m)) if m > 1 else v.double()
                r = v.reshape(-1, n) / math.sqrt(n)
                s = r.abs().amax(dim=1, keepdim=True) / 448.0
                yb = round_by_table((r / s).clamp(-448, 448)).reshape(x.shape)
                err = rel(yb, y64)
                assert err > GATE, f"{name} intermediates pass at n = {n}: {err}"


def check_work_model():
    for entry in CONFIG["workloads"]:
        tokens, heads, n = entry["T"], entry["heads"], entry["n"]
        rows = tokens * heads
        bytes_needed = rows * n * 2 + rows * n * 2 + rows * 4  # x read, y written, scales written
        formula = CONFIG["work_model"]["bytes"]
        value = eval(formula, {"log2": math.log2}, {"T": tokens, "heads": heads, "n": n})
        assert value == bytes_needed, entry["label"]
        flops = eval(CONFIG["work_model"]["flops"], {"log2": math.log2},
                     {"T": tokens, "heads": heads, "n": n})
        # Half an add per element and butterfly level: below any Hadamard transform's count.
        assert flops <= rows * n * math.log2(n)
        for key in entry:
            assert key in ("label", "T", "heads", "n", "specialization_params"), key


def main():
    check_rounding()
    check_matrices()
    check_reference()
    check_work_model()
    print("hadamard_rotate_quant: all checks passed")


if __name__ == "__main__":
    main()
