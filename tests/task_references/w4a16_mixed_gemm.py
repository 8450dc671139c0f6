#!/usr/bin/python3
"""CPU checks of tasks/w4a16_mixed_gemm: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The packed inputs are decoded here a second way (Python integer arithmetic on the
words, element by element, for a sample of positions, and a float64 decode of the whole tensor
with division and modulo instead of shifts) and the reference's product is compared with the
float64 product of that decode. It also checks that the inputs look like a quantized checkpoint
(codes spread over 0..15 around the zero points, symmetric zero points 8), and recounts the work
model and the scratch bound of every registered workload.
"""

import json
import random
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, load_module, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "w4a16_mixed_gemm"


def load(name):
    return load_module("w4a16_mixed_gemm", name)


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GROUP = CONFIG["fixed_params"]["group_size"]

# (M, K, N, symmetric): one row, a ragged row count, a column count that is not a multiple of
# 64, several groups, and both zero-point kinds.
SHAPES = [
    (1, 256, 64, 1),
    (5, 384, 200, 0),
    (17, 1024, 136, 0),
    (16, 2048, 48, 1),
]


def config(M, K, N, symmetric, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(M=M, K=K, N=N, symmetric=symmetric, seed=seed, device="cpu")
    return c


def nibble(word, i):
    """Bits 4 i .. 4 i + 3 of a 32-bit word given as a (possibly negative) Python int."""
    return ((word % 2**32) // 16**i) % 16


def decode64(qweight, scales, qzeros):
    """W [K, N] in float64 from the packed inputs, with division and modulo on the unsigned
    words instead of shifts and masks; each weight rounded to bf16 as the task defines it."""
    K, N = qweight.shape[0] * 8, qweight.shape[1]
    words = qweight.double() % 2**32                      # [K / 8, N], exact in float64
    powers = 16.0 ** torch.arange(8, dtype=torch.float64)
    codes = torch.floor(words[:, None, :] / powers[None, :, None]) % 16   # [K / 8, 8, N]
    codes = codes.reshape(K, N)
    zwords = qzeros.double() % 2**32                      # [groups, N / 8]
    zeros = (torch.floor(zwords[:, :, None] / powers[None, None, :]) % 16).reshape(-1, N)
    rows = torch.arange(K) // GROUP
    weight = (codes - zeros[rows]) * scales.double()[rows]
    return weight.to(torch.bfloat16).double(), codes, zeros


check = Checks()


rng = random.Random(7)
gate = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]
for shape in SHAPES:
    M, K, N, symmetric = shape
    args = GET_INPUTS.get_inputs(config(*shape, seed=3))
    again = GET_INPUTS.get_inputs(config(*shape, seed=3))
    other = GET_INPUTS.get_inputs(config(*shape, seed=4))
    x, qweight, scales, qzeros = args
    check(all(torch.equal(a, b) for a, b in zip(args, again)), f"{shape}: deterministic per seed")
    check(not torch.equal(qweight, other[1]), f"{shape}: inputs differ across seeds")
    check(x.dtype == torch.bfloat16 and qweight.dtype == torch.int32
          and scales.dtype == torch.bfloat16 and qzeros.dtype == torch.int32, f"{shape}: dtypes")
    check(tuple(x.shape) == (M, K) and tuple(qweight.shape) == (K // 8, N)
          and tuple(scales.shape) == (K // GROUP, N) and tuple(qzeros.shape) == (K // GROUP, N // 8),
          f"{shape}: shapes")

    weight, codes, zeros = decode64(qweight, scales, qzeros)
    # Element by element with Python integers, for a sample of positions.
    ok = True
    for _ in range(200):
        k, n = rng.randrange(K), rng.randrange(N)
        code = nibble(int(qweight[k // 8, n]), k % 8)
        zero = nibble(int(qzeros[k // GROUP, n // 8]), n % 8)
        w = torch.tensor((code - zero) * float(scales[k // GROUP, n]), dtype=torch.float64)
        ok &= code == int(codes[k, n]) and float(w.to(torch.bfloat16)) == float(weight[k, n])
    check(ok, f"{shape}: the two decodes of the packed words agree")

    # What a quantized checkpoint looks like.
    check(int(codes.min()) == 0 and int(codes.max()) == 15, f"{shape}: codes use 0..15")
    if symmetric:
        check(bool((zeros == 8).all()), f"{shape}: symmetric zero points are 8")
    else:
        check(int(zeros.min()) >= 0 and int(zeros.max()) <= 15 and len(zeros.unique()) > 3,
              f"{shape}: asymmetric zero points vary within 0..15")
    centred = (codes - zeros[torch.arange(K) // GROUP]).abs().double().mean()
    check(2.0 < float(centred) < 5.0, f"{shape}: codes cluster around the zero point ({float(centred):.2f})")
    spread = float(weight.std() * K ** 0.5)
    check(0.8 < spread < 1.2, f"{shape}: dequantized weights have std near 1/sqrt(K) ({spread:.3f})")

    exact = x.double() @ weight
    out = REFERENCE.run(*args)
    check(out.dtype == torch.bfloat16 and tuple(out.shape) == (M, N), f"{shape}: output dtype and shape")
    err = rel_err(out, exact)
    check(err < gate / 3, f"{shape}: bf16 reference vs float64 product of the decode: {err:.2e}")
    # The gate separates: a wrong zero point in one group of every column, or a swapped nibble
    # order, lands far outside it.
    wrong_zero = weight.clone()
    wrong_zero[:GROUP] += scales.double()[0]
    err_zero = rel_err(x.double() @ wrong_zero, exact)
    check(err_zero > 3 * gate, f"{shape}: a zero point off by one in one group fails: {err_zero:.2e}")
    swapped = weight.reshape(K // 8, 8, N).flip(1).reshape(K, N)
    err_swap = rel_err(x.double() @ swapped, exact)
    check(err_swap > 30 * gate, f"{shape}: reversed nibble order fails: {err_swap:.2e}")

# The work model: 2 M N K flops; bytes are the activations, the packed codes, the scales and the
# packed zero points read once and y written once.
for workload in CONFIG["workloads"] + CONFIG["quick_workloads"]:
    params = dict(CONFIG["fixed_params"])
    params.update({k: v for k, v in workload.items() if isinstance(v, (int, float))})
    M, K, N = params["M"], params["K"], params["N"]
    groups = K // GROUP
    flops = 2 * M * N * K
    nbytes = M * K * 2 + K * N // 2 + groups * N * 2 + groups * (N // 8) * 4 + M * N * 2
    model = {key: eval(CONFIG["work_model"][key], {"max": max, "min": min}, params)
             for key in ("flops", "bytes")}
    aux = eval(CONFIG["evaluation"]["peak_aux_bytes"], {"max": max, "min": min}, params)
    label = workload["label"]
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    # On the registered workloads the scratch bound leaves no room for a dequantized bf16 copy
    # of the weight (quick shapes are too small for the bound to matter).
    if workload in CONFIG["workloads"]:
        check(aux < 2 * K * N, f"{label}: peak_aux_bytes {aux} below a bf16 weight copy {2 * K * N}")
    check(K % GROUP == 0 and N % 8 == 0, f"{label}: K is whole groups and N whole zero words")
    check(set(workload) - {"label", "specialization_params"} <= {"M", "K", "N", "symmetric"},
          f"{label}: every key is read by get_inputs")

check.finish()
