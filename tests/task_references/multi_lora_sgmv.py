#!/usr/bin/python3
"""CPU checks of tasks/multi_lora_sgmv: its inputs and its reference on small shapes.

Run with Debian's interpreter (PyTorch 1.13 CPU): /usr/bin/python3 THIS_FILE. Exits non-zero when
a check fails. The reference (a masked loop over all adapters with a widened up-projection) is
compared with an independent formulation written here: a loop over tokens with the adapter ids
and slice offsets read on the host, each token's slices multiplied separately, in float64. It
checks the adapter assignment get_inputs draws (counts, distinct adapters, contiguous requests),
that the gate catches one token routed to the wrong adapter, and recounts the work model of
every registered workload.

Where Triton is not installed (this CPU machine), it also runs the expert's and the baseline's
kernels through a small stand-in for `triton` / `triton.language` written below: every program of
a grid is executed in turn with torch tensors, loads and stores go through bounds-checked flat
offsets, and `tl.dot` is a float64 product. It checks index arithmetic, masks, grids and the
plan, not compilation, layouts or speed: those need the device.
"""

import importlib.util
import json
import math
import sys
from pathlib import Path

import torch

# Leave no __pycache__ in the task folder.
sys.dont_write_bytecode = True

from support.task_checks import Checks, rel_err  # noqa: E402

TASK = Path(__file__).resolve().parents[2] / "tasks" / "multi_lora_sgmv"


def load_path(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(name):
    return load_path(TASK / f"{name}.py", f"lora_{name}")




# --- A CPU stand-in for the Triton subset the task's kernels use -------------------------------

def _fake_triton():
    import builtins
    import itertools
    import types

    tl = types.ModuleType("triton.language")
    pid = [0, 0, 0]

    def tensor(v):
        if torch.is_tensor(v):
            return v
        if isinstance(v, bool):
            return torch.tensor(v)
        return torch.tensor(v, dtype=torch.int32 if isinstance(v, int) else torch.float32)

    class Pointer:
        def __init__(self, base, off):
            self.base, self.off = base, off

        def __add__(self, other):
            return Pointer(self.base, self.off + tensor(other).to(torch.int64))

        __radd__ = __add__

    def program_id(axis):
        return torch.tensor(pid[axis], dtype=torch.int32)

    def load(ptr, mask=None, other=None):
        flat = ptr.base.reshape(-1)
        if mask is None:
            mask = torch.ones((), dtype=torch.bool)
        shape = torch.broadcast_shapes(ptr.off.shape, tensor(mask).shape)
        off = torch.broadcast_to(ptr.off, shape)
        mask = torch.broadcast_to(tensor(mask), shape)
        safe = torch.where(mask, off, torch.zeros_like(off))
        assert safe.numel() == 0 or (int(safe.min()) >= 0 and int(safe.max()) < flat.numel()), \
            "load out of bounds"
        fill = torch.zeros((), dtype=flat.dtype) if other is None else torch.tensor(other, dtype=flat.dtype)
        return torch.where(mask, flat[safe], fill)

    def store(ptr, value, mask=None):
        flat = ptr.base.view(-1)
        value = tensor(value).to(flat.dtype)
        if mask is None:
            mask = torch.ones((), dtype=torch.bool)
        shape = torch.broadcast_shapes(ptr.off.shape, value.shape, tensor(mask).shape)
        keep = torch.broadcast_to(tensor(mask), shape)
        off = torch.broadcast_to(ptr.off, shape)[keep]
        assert off.numel() == 0 or (int(off.min()) >= 0 and int(off.max()) < flat.numel()), \
            "store out of bounds"
        flat[off] = torch.broadcast_to(value, shape)[keep]

    def promote(a, b):
        a, b = tensor(a), tensor(b)
        dtype = torch.promote_types(a.dtype, b.dtype)
        return a.to(dtype), b.to(dtype)

    def where(cond, a, b):
        return torch.where(tensor(cond), *promote(a, b))

    def dot(a, b, acc=None):
        assert a.dim() == b.dim() == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype
        assert min(a.shape[0], a.shape[1], b.shape[1]) >= 16, "tl.dot needs every dimension >= 16"
        product = (a.double() @ b.double()).float()
        return product if acc is None else acc + product

    def trange(a, b=None, step=1, num_stages=None):
        if b is None:
            a, b = 0, a
        return builtins.range(int(a), int(b), int(step))

    tl.constexpr = object
    tl.float32, tl.bfloat16, tl.int32, tl.int64 = torch.float32, torch.bfloat16, torch.int32, torch.int64
    tl.program_id, tl.load, tl.store, tl.where, tl.dot = program_id, load, store, where, dot
    tl.arange = lambda a, b: torch.arange(a, b, dtype=torch.int32)
    tl.zeros = lambda shape, dtype: torch.zeros(shape, dtype=dtype)
    tl.sum = lambda x, axis: x.sum(axis).to(torch.int32 if x.dtype == torch.bool else x.dtype)
    tl.cumsum = lambda x, axis: torch.cumsum(x, axis).to(x.dtype)
    tl.minimum = lambda a, b: torch.minimum(*promote(a, b))
    tl.maximum = lambda a, b: torch.maximum(*promote(a, b))
    tl.range = trange
    tl.static_range = trange

    class Kernel:
        def __init__(self, fn):
            self.fn = fn

        def __getitem__(self, grid):
            def launch(*args, num_warps=4, num_stages=None, **constexprs):
                grid3 = tuple(grid) + (1,) * (3 - len(grid))
                wrapped = [Pointer(a, torch.zeros((), dtype=torch.int64))
                           if torch.is_tensor(a) and a.dim() > 0 else a for a in args]
                for z, y, x in itertools.product(*(builtins.range(g) for g in reversed(grid3))):
                    pid[:] = [x, y, z]
                    self.fn(*wrapped, **constexprs)
            return launch

    triton = types.ModuleType("triton")
    triton.language = tl
    triton.jit = lambda fn=None, **kw: Kernel(fn) if fn is not None else Kernel
    triton.cdiv = lambda a, b: (a + b - 1) // b
    triton.next_power_of_2 = lambda n: 1 << max(0, int(n) - 1).bit_length()
    return triton, tl


def emulated(impl):
    """Load TASK/impl/solution.py against the stand-in."""
    triton, tl = _fake_triton()
    saved = {name: sys.modules.get(name) for name in ("triton", "triton.language")}
    sys.modules["triton"], sys.modules["triton.language"] = triton, tl
    try:
        return load_path(TASK / impl / "solution.py", f"lora_{impl}")
    finally:
        for name, module_before in saved.items():
            if module_before is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module_before


class _Device:
    """What torch.cuda.get_device_properties answers while the emulated kernels run."""

    def __init__(self, num_sms):
        self.multi_processor_count = num_sms


GET_INPUTS = load("get_inputs")
REFERENCE = load("reference")
CONFIG = json.loads((TASK / "config.json").read_text())
GATE = CONFIG["tolerance"]["rel_norm_rtol"] * CONFIG["tolerance"]["grader_scale"]

# Small shapes: three unequal slices, no adapter at all, an H that is no power of two, prefill
# segments, more adapters than tokens, and every quick workload that is small enough.
SHAPES = [
    dict(T=9, H=64, N=96, S=3, slices="64,16,16", L=4, r=16, lora_tokens=7, active_adapters=3,
         segments=0, scale=2.0),
    dict(T=5, H=32, N=32, S=1, slices="32", L=2, r=8, lora_tokens=0, active_adapters=0,
         segments=0, scale=2.0),
    dict(T=40, H=72, N=48, S=2, slices="32,16", L=6, r=8, lora_tokens=33, active_adapters=5,
         segments=0, scale=0.5),
    dict(T=50, H=64, N=128, S=2, slices="64,64", L=3, r=32, lora_tokens=50, active_adapters=3,
         segments=5, scale=2.0),
    dict(T=256, H=128, N=192, S=3, slices="128,32,32", L=32, r=16, lora_tokens=224,
         active_adapters=32, segments=0, scale=2.0),
] + [{k: v for k, v in w.items() if k != "label"} for w in CONFIG["quick_workloads"]
     if w["T"] * w["N"] <= 400_000]


def config(shape, seed):
    c = dict(CONFIG["fixed_params"])
    c.update(shape, seed=seed, device="cpu")
    return c


def per_token(x, base, lora_a, lora_b, slice_offsets, lora_ids, scale):
    """The operator token by token in float64, with ids and offsets on the host."""
    r = lora_b.shape[2]
    offsets = [int(v) for v in slice_offsets]
    out = base.double().clone()
    for t in range(x.shape[0]):
        a = int(lora_ids[t])
        if a < 0:
            continue
        xt = x[t].double()
        for s in range(len(offsets) - 1):
            u = lora_a[a, s * r:(s + 1) * r].double() @ xt                      # [r]
            out[t, offsets[s]:offsets[s + 1]] += scale * (lora_b[a, offsets[s]:offsets[s + 1]].double() @ u)
    return out


def as_dtype(args, dtype):
    return [a.to(dtype) if torch.is_tensor(a) and a.is_floating_point() else a for a in args]


check = Checks()


for shape in SHAPES:
    name = ",".join(f"{k}={v}" for k, v in shape.items() if k in ("T", "H", "N", "L", "r", "segments"))
    T, N, L, S, r = shape["T"], shape["N"], shape["L"], shape["S"], shape["r"]
    args = GET_INPUTS.get_inputs(config(shape, seed=3))
    again = GET_INPUTS.get_inputs(config(shape, seed=3))
    other = GET_INPUTS.get_inputs(config(shape, seed=4))
    x, base, lora_a, lora_b, slice_offsets, lora_ids, scale = args
    check(all(torch.equal(a, b) if torch.is_tensor(a) else a == b for a, b in zip(args, again)),
          f"{name}: get_inputs is deterministic per seed")
    check(not torch.equal(x, other[0]), f"{name}: get_inputs differs across seeds")
    check(x.dtype == base.dtype == lora_a.dtype == lora_b.dtype == torch.bfloat16
          and slice_offsets.dtype == lora_ids.dtype == torch.int32, f"{name}: dtypes")
    check(tuple(x.shape) == (T, shape["H"]) and tuple(base.shape) == (T, N)
          and tuple(lora_a.shape) == (L, S * r, shape["H"]) and tuple(lora_b.shape) == (L, N, r)
          and tuple(slice_offsets.shape) == (S + 1,) and tuple(lora_ids.shape) == (T,),
          f"{name}: shapes")
    check(int(slice_offsets[0]) == 0 and int(slice_offsets[-1]) == N
          and bool((slice_offsets[1:] > slice_offsets[:-1]).all()), f"{name}: slice offsets")
    used = lora_ids[lora_ids >= 0]
    check(int((lora_ids >= 0).sum()) == shape["lora_tokens"] and bool((lora_ids >= -1).all())
          and bool((lora_ids < L).all()), f"{name}: exactly lora_tokens tokens carry an adapter")
    check(len(set(used.tolist())) == shape["active_adapters"],
          f"{name}: exactly active_adapters distinct adapters")
    if shape["segments"] > 0:
        ids = lora_ids[: shape["lora_tokens"]].tolist()
        runs = 1 + sum(1 for i in range(1, len(ids)) if ids[i] != ids[i - 1])
        check(runs <= shape["segments"], f"{name}: tokens come as at most {shape['segments']} runs")

    exact = per_token(*args)
    # float32: the reference and the per-token formulation are the same function.
    err32 = rel_err(REFERENCE.run(*as_dtype(args, torch.float32)), exact)
    check(err32 < 1e-5, f"{name}: float32 reference vs per-token float64: {err32:.2e}")
    # bf16, as timed: the reference's own rounding stays far inside the gate.
    out16 = REFERENCE.run(*args)
    err16 = rel_err(out16, exact)
    check(out16.dtype == torch.bfloat16 and tuple(out16.shape) == (T, N),
          f"{name}: output dtype and shape")
    check(err16 < GATE / 3, f"{name}: bf16 reference vs per-token float64: {err16:.2e}")
    idle = lora_ids < 0
    check(torch.equal(out16[idle], base[idle]), f"{name}: tokens without adapter return base")

    # The gate catches one token sent to another adapter, once the batch is decode-sized.
    if T >= 200 and shape["lora_tokens"] > 0:
        wrong = lora_ids.clone()
        t = int((lora_ids >= 0).nonzero()[0])
        wrong[t] = (int(lora_ids[t]) + 1) % L
        moved = per_token(x, base, lora_a, lora_b, slice_offsets, wrong, scale)
        err_wrong = rel_err(moved, exact)
        check(err_wrong > GATE, f"{name}: one wrong adapter exceeds the gate: {err_wrong:.2e}")
        check(0.5 / math.sqrt(T) < err_wrong < 3.0 / math.sqrt(T),
              f"{name}: one wrong adapter costs about 1.3/sqrt(T): {err_wrong:.2e}")

# The GPU implementations' kernels, emulated on CPU where Triton is absent. Shapes with stripes
# that cross slice boundaries (N = 300 in slices of 100, 150, 50), an idle-only batch, one token,
# prefill segments with split-K, and many adapters; two SM counts change the plan.
EMULATED_SHAPES = [
    dict(T=9, H=64, N=96, S=3, slices="64,16,16", L=4, r=16, lora_tokens=7, active_adapters=3,
         segments=0, scale=2.0),
    dict(T=5, H=32, N=32, S=1, slices="32", L=2, r=8, lora_tokens=0, active_adapters=0,
         segments=0, scale=2.0),
    dict(T=1, H=256, N=384, S=3, slices="256,64,64", L=1, r=16, lora_tokens=1, active_adapters=1,
         segments=0, scale=2.0),
    dict(T=70, H=200, N=300, S=3, slices="100,150,50", L=20, r=8, lora_tokens=60,
         active_adapters=15, segments=0, scale=2.0),
    dict(T=150, H=256, N=320, S=2, slices="192,128", L=3, r=64, lora_tokens=150, active_adapters=3,
         segments=5, scale=2.0),
]
if importlib.util.find_spec("triton") is None:
    real_properties = torch.cuda.get_device_properties
    for impl in ("expert", "baseline"):
        module = emulated(impl)
        for num_sms in (4, 132):
            torch.cuda.get_device_properties = lambda device, n=num_sms: _Device(n)
            for shape in EMULATED_SHAPES:
                args = GET_INPUTS.get_inputs(config(shape, seed=11))
                name = f"{impl} ({num_sms} SMs) T={shape['T']} slices={shape['slices']}"
                try:
                    out = module.run(*args)
                except AssertionError as error:
                    check(False, f"{name}: {error}")
                    continue
                err = rel_err(out, per_token(*args))
                check(out.dtype == torch.bfloat16 and tuple(out.shape) == tuple(args[1].shape),
                      f"{name}: output dtype and shape")
                check(err < GATE / 3, f"{name}: emulated kernels vs per-token float64: {err:.2e}")
                idle = args[5] < 0
                check(torch.equal(out[idle], args[1][idle]), f"{name}: tokens without adapter return base")
    torch.cuda.get_device_properties = real_properties

# The work model counts what an ideal kernel must do: the two low-rank products of every token
# that has an adapter, and reading each used adapter's weights once, the adapter tokens' inputs,
# base and the output once, plus the ids and the offsets.
for workload in CONFIG["workloads"]:
    params = {k: v for k, v in workload.items() if isinstance(v, (int, float))}
    args = GET_INPUTS.get_inputs(dict(workload, seed=1, device="cpu")) if workload["T"] <= 256 else None
    T, H, N, S, r = (params[k] for k in ("T", "H", "N", "S", "r"))
    k, active = params["lora_tokens"], params["active_adapters"]
    flops = k * (2 * S * r * H + 2 * N * r)
    nbytes = k * H * 2 + T * N * 2 * 2 + active * (S * r * H + N * r) * 2 + T * 4 + (S + 1) * 4
    model = {key: eval(CONFIG["work_model"][key], {}, params) for key in ("flops", "bytes")}
    label = workload["label"]
    check(model["flops"] == flops, f"{label}: work-model flops {model['flops']} vs {flops}")
    check(model["bytes"] == nbytes, f"{label}: work-model bytes {model['bytes']} vs {nbytes}")
    check(len(workload["slices"].split(",")) == S and sum(map(int, workload["slices"].split(","))) == N,
          f"{label}: slices match S and N")
    if args is not None:
        ids = args[5]
        check(int((ids >= 0).sum()) == k and len(set(ids[ids >= 0].tolist())) == active,
              f"{label}: get_inputs draws the counts the work model uses")
    # The masked loop of the reference multiplies every token by every adapter.
    check(2 * T * params["L"] * S * r * (H + N) > 4 * flops,
          f"{label}: the reference does far more products than the work model counts")

check.finish()
