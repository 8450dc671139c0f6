"""Check baseline/solution.py and expert/solution.cu against the exact target distribution.

    python3 tasks/topk_topp_sampling/expert/check.py                    # small shapes, both
    python3 tasks/topk_topp_sampling/expert/check.py --impl expert --full --time
    python3 tasks/topk_topp_sampling/expert/check.py --impl expert --batch-scan 1,64,256
    python3 tasks/topk_topp_sampling/expert/check.py --impl expert --source OTHER.cu --phases

For every case it draws D samples per row (D calls of run with different seeds) and applies the
task's gate, the same three checks the evaluator makes:
  * support: every sampled token is allowed by reference.target_probabilities;
  * greedy: a row with one allowed token returns it;
  * fit: a pooled chi-square over (row, token) cells, cells with expected count < 5 merged per
    row, must not reject at significance 1e-6 (p-value from the regularized upper gamma).
It also checks that a call does not change its inputs and that a seed repeats its samples.
With --time it times the registered workloads as the task does: baseline and expert by CUDA-graph
replay (the median per-call time of replays of a graph of many calls), the reference, which
cannot be captured, by CUDA events around back-to-back calls; and the expert's %SOL: T_SOL =
bytes / 4241 GB/s (the work model's flops, 6 per logit, are far below that at any ceiling).
It also measures two floors under the same graph replay: an empty kernel launch, and a
kernel that only reads every logit once (split rows, one max per slice), the data movement no
exact sampler can avoid. --batch-scan times the expert and the one-read floor on the first
workload's setting at other batch sizes, which shows where the per-row latency stops being
hidden. --source checks and times another native sampler in the expert's place (the designs
measured earlier are in git history, docs/history.md). --phases builds it with -DD2K_PHASE_TIMES and prints,
per workload, the mean cycles of each phase its profiling build counts (a source without one
says so). Exits with status 1 on any failure.

The expert is CUDA C++ against d2k's native ABI: it is built here with nvcc (the flags d2k uses)
and called through ctypes with DLPack tensors, on the current stream, as d2k's worker calls it.
"""

import argparse
import ctypes
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import triton
import triton.language as tl

TASK_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TASK_DIR.parent))  # tasks/check_support.py
import check_support  # noqa: E402
COPY_BANDWIDTH = 4241e9  # bytes/s, measured device-to-device copy on our H200
SIGNIFICANCE = 1e-6
MIN_EXPECTED = 5.0
GRAPH_CALLS, GRAPH_REPLAYS = 200, 7  # calls captured in one graph, timed replays of it


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _NativeParam(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32),
                ("int64_value", ctypes.c_int64), ("float64_value", ctypes.c_double)]


class _NativeCall(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int32), ("num_inputs", ctypes.c_int32),
                ("inputs", ctypes.POINTER(_DLTensor)), ("num_outputs", ctypes.c_int32),
                ("outputs", ctypes.POINTER(_DLTensor)), ("num_params", ctypes.c_int32),
                ("params", ctypes.POINTER(_NativeParam)), ("stream", ctypes.c_void_p),
                ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_uint64)]


_DL_CODES = {torch.float32: (2, 32), torch.int32: (0, 32), torch.int64: (0, 64)}
_ABI_VERSION = 1


class _NativeSampler:
    """A sampler in CUDA C++ (d2k's native ABI) with the Python candidates' run(...)."""

    def __init__(self, source, defines=()):
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        repo = TASK_DIR.parent.parent
        # dlpack/dlpack.h: the carried Debian package on the GPU machine, else the system's.
        dlpack = [d for d in (repo / ".device" / "root" / "usr" / "include",)
                  if (d / "dlpack" / "dlpack.h").exists()]
        self._object = pathlib.Path(tempfile.mkdtemp(prefix="d2k-check-")) / "solution.so"
        command = [nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-shared",
                   "-Xcompiler", "-fPIC", f"-I{repo / 'include'}"]
        command += [f"-I{d}" for d in dlpack] + list(defines) + [str(source), "-o", str(self._object)]
        subprocess.run(command, check=True)
        self._library = ctypes.CDLL(str(self._object))
        self._library.d2k_native_abi_version.restype = ctypes.c_int32
        self._library.d2k_native_run.restype = ctypes.c_int32
        self._library.d2k_native_run.argtypes = [ctypes.POINTER(_NativeCall), ctypes.c_char_p,
                                                 ctypes.c_size_t]
        self._setup = getattr(self._library, "d2k_native_setup", None)
        if self._setup is not None:
            self._setup.restype = ctypes.c_int32
            self._setup.argtypes = [ctypes.POINTER(_NativeCall), ctypes.POINTER(ctypes.c_uint64),
                                    ctypes.c_char_p, ctypes.c_size_t]
        self._workspaces = {}  # (shapes) -> device buffer, as d2k's worker keeps one per workload
        version = self._library.d2k_native_abi_version()
        if version != _ABI_VERSION:
            raise RuntimeError(f"{source}: native ABI version {version}, expected {_ABI_VERSION}")

    @staticmethod
    def _tensor(t, keep):
        shape = (ctypes.c_int64 * t.dim())(*t.shape)
        strides = (ctypes.c_int64 * t.dim())(*t.stride())
        keep += [shape, strides]
        code, bits = _DL_CODES[t.dtype]
        return _DLTensor(t.data_ptr(), _DLDevice(2, t.device.index or 0), t.dim(),
                         _DLDataType(code, bits, 1), shape, strides, 0)

    def run(self, logits, top_k, top_p, temperature, seed):
        samples = torch.empty((logits.shape[0],), dtype=torch.int64, device=logits.device)
        keep = []
        inputs = (_DLTensor * 4)(*[self._tensor(t, keep) for t in (logits, top_k, top_p, temperature)])
        outputs = (_DLTensor * 1)(self._tensor(samples, keep))
        params = (_NativeParam * 1)(_NativeParam(b"seed", 0, int(seed), 0.0))
        call = _NativeCall(_ABI_VERSION, 4, inputs, 1, outputs, 1, params,
                           torch.cuda.current_stream().cuda_stream, None, 0)
        error = ctypes.create_string_buffer(4096)
        if self._setup is not None:
            key = (tuple(logits.shape), tuple(logits.stride()))
            if key not in self._workspaces:
                size = ctypes.c_uint64(0)
                if self._setup(ctypes.byref(call), ctypes.byref(size), error, len(error)) != 0:
                    raise RuntimeError(f"d2k_native_setup: {error.value.decode()}")
                self._workspaces[key] = torch.empty((max(1, size.value),), dtype=torch.uint8,
                                                    device=logits.device)
            workspace = self._workspaces[key]
            call.workspace = workspace.data_ptr()
            call.workspace_bytes = workspace.numel()
        if self._library.d2k_native_run(ctypes.byref(call), error, len(error)) != 0:
            raise RuntimeError(f"d2k_native_run: {error.value.decode()}")
        return samples


def _draw(impl, args, draws, seed_base):
    """[draws, batch] samples from `draws` calls with different seeds."""
    rows = []
    call_args = list(args)
    for d in range(draws):
        call_args[4] = (seed_base * 1000003 + d * 7919 + 17) % (1 << 63)
        rows.append(impl.run(*call_args))
    return torch.stack(rows)


def _goodness_of_fit(samples, probs, support):
    """(problems, chi2, dof, p_value) for [D, B] samples against [B, V] probabilities."""
    draws, batch = samples.shape
    vocab = probs.shape[1]
    problems = []
    if samples.dtype != torch.int64:
        return [f"samples dtype {samples.dtype}, expected int64"], 0.0, 0, 1.0
    bad_range = (samples < 0) | (samples >= vocab)
    if bool(bad_range.any()):
        d, r = [int(v) for v in bad_range.nonzero()[0]]
        return [f"draw {d} row {r}: token {int(samples[d, r])} outside [0, {vocab})"], 0.0, 0, 1.0
    support = support.bool()
    allowed = support.gather(1, samples.t())  # [B, D]
    if not bool(allowed.all()):
        r, d = [int(v) for v in (~allowed).nonzero()[0]]
        token = int(samples[d, r])
        problems.append(f"sample_outside_support: row {r} draw {d} token {token} "
                        f"(target probability {float(probs[r, token]):.3e}); "
                        f"{int((~allowed).sum())} of {allowed.numel()} samples outside")
    single = support.sum(1) == 1
    if bool(single.any()):
        only = support.float().argmax(1)
        wrong = single[:, None] & (samples.t() != only[:, None])
        if bool(wrong.any()):
            r, d = [int(v) for v in wrong.nonzero()[0]]
            problems.append(f"greedy_mismatch: row {r} draw {d} returned {int(samples[d, r])}, "
                            f"the only allowed token is {int(only[r])}")

    counts = torch.zeros((batch, vocab), dtype=torch.float64, device=probs.device)
    counts.scatter_add_(1, samples.t().contiguous(),
                        torch.ones((batch, draws), dtype=torch.float64, device=probs.device))
    expected = probs.double() * draws
    big = expected >= MIN_EXPECTED
    rest_expected = torch.where(big, torch.zeros_like(expected), expected).sum(1)
    rest_observed = torch.where(big, torch.zeros_like(counts), counts).sum(1)
    chi2 = (torch.where(big, (counts - expected) ** 2 / expected.clamp_min(1e-300),
                        torch.zeros_like(expected))).sum(1)
    cells = big.sum(1)
    # The merged cell of a row counts as a cell when it is large enough; otherwise it joins the
    # row's smallest large cell (one fewer degree of freedom for that row).
    rest_ok = rest_expected >= MIN_EXPECTED
    chi2 = chi2 + torch.where(rest_ok, (rest_observed - rest_expected) ** 2 /
                              rest_expected.clamp_min(1e-300), torch.zeros_like(chi2))
    cells = cells + rest_ok.long()
    small_rows = (~rest_ok) & (big.sum(1) > 0) & (rest_expected + rest_observed > 0)
    if bool(small_rows.any()):
        masked = torch.where(big, expected, torch.full_like(expected, float("inf")))
        smallest = masked.argmin(1)
        e_small = expected.gather(1, smallest[:, None]).squeeze(1)
        o_small = counts.gather(1, smallest[:, None]).squeeze(1)
        old = (o_small - e_small) ** 2 / e_small
        new = (o_small + rest_observed - e_small - rest_expected) ** 2 / (e_small + rest_expected)
        chi2 = chi2 + torch.where(small_rows, new - old, torch.zeros_like(chi2))
    dof = int((cells - 1).clamp_min(0).sum())
    chi2_total = float(chi2.sum())
    if dof == 0:
        return problems, chi2_total, 0, 1.0
    p_value = float(torch.special.gammaincc(torch.tensor(dof / 2.0, dtype=torch.float64),
                                            torch.tensor(chi2_total / 2.0, dtype=torch.float64)))
    if p_value < SIGNIFICANCE:
        problems.append(f"distribution_mismatch: chi2 {chi2_total:.1f} on {dof} dof, "
                        f"p-value {p_value:.2e} < {SIGNIFICANCE:g}")
    return problems, chi2_total, dof, p_value


def _small_cases(gen):
    """(label, args) pairs on shapes that stress masks, ties, limits and strides."""
    dev = "cuda"

    def make(label, batch, vocab, k, p, t, logits=None):
        if logits is None:
            logits = torch.randn((batch, vocab), generator=gen, device=dev) * 2.0
        def per_row(value, dtype):
            if isinstance(value, (list, tuple)):
                return torch.tensor(value, dtype=dtype, device=dev)
            return torch.full((batch,), value, dtype=dtype, device=dev)
        return (label, [logits, per_row(k, torch.int32), per_row(p, torch.float32),
                        per_row(t, torch.float32), 0])

    cases = [
        make("b4_v7_k3_p0.9", 4, 7, 3, 0.9, 1.0),
        make("b3_v1000_k20_p0.95", 3, 1000, 20, 0.95, 0.6),
        make("b2_v8193_k50_p1", 2, 8193, 50, 1.0, 1.0),            # a tile plus one token
        make("b5_v4097_k0_p0.8", 5, 4097, 0, 0.8, 0.6),           # top-p only
        make("b3_v3000_k0_p1_full", 3, 3000, 0, 1.0, 1.5),        # no limit: plain softmax
        make("b4_v5000_greedy", 4, 5000, 1, 0.95, 0.7),           # top_k = 1
        make("b2_v5000_tiny_p", 2, 5000, 100, 1e-4, 0.7),         # top_p keeps the argmax only
        make("b3_v2000_cold", 3, 2000, 40, 0.99, 0.05),
        make("b3_v2000_hot", 3, 2000, 40, 0.99, 5.0),
        # Flat rows whose small nucleus still holds thousands of tokens: the expert's lists fall
        # short, and most of its exact proposals are rejected, so it samples the whole row.
        make("b2_v100000_flat_p0.05", 2, 100000, 0, 0.05, 5.0),
        # Flat rows with a small top-k: the expert's weight bins place the end of the kept set in
        # one bin, where the count (k) or the mass (p) limit binds.
        make("b3_v20000_flat_k100", 3, 20000, 100, 0.95, 3.0),
        make("b3_v20000_flat_k300_p0.01", 3, 20000, 300, 0.01, 3.0),
        make("b6_v3000_per_row", 6, 3000, [1, 5, 0, 50, 3000, 7], [0.5, 1.0, 0.9, 0.95, 0.3, 1.0],
             [0.6, 1.0, 0.8, 1.2, 0.4, 2.0]),
    ]
    # Heavy ties: integer logits; the value-based rule keeps or drops a tie together.
    ties = torch.randint(0, 6, (4, 3000), generator=gen, device=dev).float()
    cases.append(make("b4_v3000_ties_k10_p0.5", 4, 3000, 10, 0.5, 1.0, logits=ties))
    # A row stride larger than the row: logits are a column slice of a wider buffer.
    wide = torch.randn((3, 6000), generator=gen, device=dev) * 2.0
    cases.append(make("b3_v5000_row_stride_6000", 3, 5000, 20, 0.9, 0.8, logits=wide[:, :5000]))
    return cases


@triton.jit
def _empty_kernel(out_ptr):
    pass


@triton.jit
def _read_once_kernel(logits_ptr, out_ptr, V, stride_row, CHUNK: tl.constexpr):
    n_slices = tl.cdiv(V, CHUNK)
    pid = tl.program_id(0)
    row = pid // n_slices
    me = pid - row * n_slices
    idx = me * CHUNK + tl.arange(0, CHUNK)
    x = tl.load(logits_ptr + row.to(tl.int64) * stride_row + idx, mask=idx < V, other=float("-inf"))
    tl.store(out_ptr + pid, tl.max(x, 0))


def _floors_ms(logits):
    """(launch floor, one-read floor) in ms under graph replay, for these logits."""
    batch, vocab = logits.shape
    out = torch.empty((batch * triton.cdiv(vocab, 8192),), dtype=torch.float32, device=logits.device)
    launch = check_support.time_graph_ms(lambda: _empty_kernel[(1,)](out), [],
                                         GRAPH_CALLS, GRAPH_REPLAYS)
    read = check_support.time_graph_ms(lambda: _read_once_kernel[(out.numel(),)](
        logits, out, vocab, logits.stride(0), CHUNK=8192, num_warps=8), [], GRAPH_CALLS, GRAPH_REPLAYS)
    return launch, read


def _sol_ms(batch, vocab):
    """T_SOL in ms: the work model's bytes (one read of the logits, the parameters, the samples)
    over the measured copy bandwidth."""
    return (4 * batch * vocab + 20 * batch) / COPY_BANDWIDTH * 1e3


def _workload_config(config, entry, seed, **overrides):
    """One registered workload's get_inputs config on the GPU, with overrides (e.g. batch)."""
    cfg = dict(config["fixed_params"])
    cfg.update(entry)
    cfg.update(seed=seed, device="cuda", **overrides)
    return cfg


def _print_phases(source, config, inputs, seed, calls=50):
    """Mean cycles of each phase a profiling build of `source` counts, per workload.

    Such a build exports d2k_sampling_phase_names() (phase names, ';'-separated) and
    d2k_sampling_phase_cycles(out): 16 cycle sums, then 16 counts of how often each phase ended.
    """
    profiled = _NativeSampler(source, defines=["-DD2K_PHASE_TIMES"])
    names = getattr(profiled._library, "d2k_sampling_phase_names", None)
    read = getattr(profiled._library, "d2k_sampling_phase_cycles", None)
    if names is None or read is None:
        print(f"phases: {source} has no profiling counters (D2K_PHASE_TIMES)")
        return
    names.restype = ctypes.c_char_p
    phases = names().decode().split(";")
    read.restype = ctypes.c_int32
    read.argtypes = [ctypes.POINTER(ctypes.c_uint64)]
    counters = (ctypes.c_uint64 * 32)()
    clock = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True).stdout.strip()
    print(f"phases of {source.name} (profiling build; mean cycles per CTA that ran a phase, and how often "
          f"it ran per call; SM clock {clock} MHz now)")
    for entry in config["workloads"]:
        call_args = inputs.get_inputs(_workload_config(config, entry, seed))
        profiled.run(*call_args)
        read(counters)  # discard the first call
        for _ in range(calls):
            profiled.run(*call_args)
        if read(counters) != 0:
            print("  reading the phase counters failed")
            return
        parts = []
        for i, name in enumerate(phases):
            hits = counters[16 + i]
            if hits:
                parts.append(f"{name} {counters[i] / hits:7.0f} (x{hits // calls})")
        print(f"  {entry['label']}: " + "; ".join(parts), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=["baseline", "expert", "both", "reference"], default="both")
    parser.add_argument("--full", action="store_true", help="also run the registered workloads")
    parser.add_argument("--time", action="store_true", help="time the registered workloads")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--draws", type=int, default=2000, help="draws per small case")
    parser.add_argument("--source", type=pathlib.Path, default=TASK_DIR / "expert" / "solution.cu",
                        help="the native sampler to check as the expert (default expert/solution.cu)")
    parser.add_argument("--phases", action="store_true",
                        help="cycles of each phase the source's profiling build counts, per workload")
    parser.add_argument("--batch-scan", default="",
                        help="comma-separated batch sizes to time the expert at (first workload's setting)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("a CUDA device is required")
        return 2

    config = json.loads((TASK_DIR / "config.json").read_text())
    reference = check_support.load_module(TASK_DIR / "reference.py", "sampling_reference")
    inputs = check_support.load_module(TASK_DIR / "get_inputs.py", "sampling_get_inputs")
    impls = {}
    if args.impl in ("baseline", "both"):
        impls["baseline"] = check_support.load_module(TASK_DIR / "baseline" / "solution.py", "sampling_baseline")
    if args.impl in ("expert", "both"):
        impls["expert"] = _NativeSampler(args.source)
    if args.impl == "reference":
        impls["reference"] = reference

    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    cases = [(label, a, args.draws) for label, a in _small_cases(gen)]
    if args.full:
        for entry in config["workloads"]:
            cfg = _workload_config(config, entry, args.seed)
            draws = int(max(1000, 16000 / cfg["batch"]))
            cases.append((entry["label"], inputs.get_inputs(cfg), draws))

    failed = False
    for label, call_args, draws in cases:
        probs, support = reference.target_probabilities(*call_args)
        kept = (probs > 0).sum(1)
        print(f"case {label}: batch {probs.shape[0]} vocab {probs.shape[1]} "
              f"kept tokens per row min/median/max {int(kept.min())}/{int(kept.median())}/{int(kept.max())}",
              flush=True)
        for name, impl in impls.items():
            snapshot = [a.clone() if torch.is_tensor(a) else a for a in call_args]
            try:
                started = time.perf_counter()
                samples = _draw(impl, call_args, draws, args.seed)
                torch.cuda.synchronize()
                elapsed = time.perf_counter() - started
                repeat_a = impl.run(*call_args[:4], 424242)
                repeat_b = impl.run(*call_args[:4], 424242)
            except Exception as error:  # report and continue with the next implementation
                failed = True
                print(f"  FAIL {name:9s} raised {type(error).__name__}: {error}", flush=True)
                continue
            problems, chi2, dof, p_value = _goodness_of_fit(samples, probs, support)
            if samples.shape[1:] != (probs.shape[0],):
                problems.append(f"output shape {tuple(samples.shape[1:])}, expected ({probs.shape[0]},)")
            if not torch.equal(repeat_a, repeat_b):
                problems.append("seed_not_deterministic: the same seed gave different samples")
            for before, after, arg_name in zip(snapshot, call_args, ["logits", "top_k", "top_p", "temperature"]):
                if torch.is_tensor(before) and not torch.equal(before, after):
                    problems.append(f"input_mutated: {arg_name}")
            ok = not problems
            failed |= not ok
            print(f"  {'PASS' if ok else 'FAIL'} {name:9s} draws {draws} chi2 {chi2:.1f} dof {dof} "
                  f"p-value {p_value:.3g}  ({elapsed:.2f} s)", flush=True)
            for problem in problems:
                print(f"       {problem}", flush=True)
        del probs, support
        torch.cuda.empty_cache()

    if args.time:
        print("timing (ms per call): reference by CUDA events over 20 back-to-back calls, "
              "baseline, expert and floors by CUDA-graph replay; T_SOL = bytes / 4241 GB/s")
        for entry in config["workloads"]:
            cfg = _workload_config(config, entry, args.seed)
            call_args = inputs.get_inputs(cfg)
            batch, vocab = cfg["batch"], cfg["vocab"]
            sol_ms = _sol_ms(batch, vocab)
            launch_ms, read_ms = _floors_ms(call_args[0])
            line = (f"  {entry['label']:36s} T_SOL {sol_ms * 1e3:7.2f} us  floors: launch "
                    f"{launch_ms * 1e3:6.2f} us, one read {read_ms * 1e3:7.2f} us")
            t_ref = check_support.time_back_to_back_ms(reference.run, call_args, 20)
            line += f"\n    reference {t_ref:8.4f}"
            times = {}
            for name in ("baseline", "expert"):
                if name in impls:
                    times[name] = check_support.time_graph_ms(impls[name].run, call_args,
                                                              GRAPH_CALLS, GRAPH_REPLAYS)
                    line += f"  {name} {times[name]:8.4f}"
            if "expert" in times:
                line += f"  expert %SOL {100 * sol_ms / times['expert']:5.1f}"
                line += f"  of one read {100 * read_ms / times['expert']:5.1f} %"
                line += f"  ref/expert {t_ref / times['expert']:6.2f}x"
                if "baseline" in times:
                    speedup = times["baseline"] / times["expert"]
                    line += f"  baseline/expert {speedup:6.2f}x"
                    if speedup <= 1.0:
                        failed = True
                        line += "  FAIL expert not faster than baseline"
            print(line, flush=True)

    if args.batch_scan and "expert" in impls:
        print("batch scan (us per call, graph replay): expert, one-read floor, T_SOL")
        entry = config["workloads"][0]
        for batch in [int(b) for b in args.batch_scan.split(",")]:
            cfg = _workload_config(config, entry, args.seed, batch=batch)
            call_args = inputs.get_inputs(cfg)
            sol_us = _sol_ms(batch, cfg["vocab"]) * 1e3
            _, read_ms = _floors_ms(call_args[0])
            t_ms = check_support.time_graph_ms(impls["expert"].run, call_args, GRAPH_CALLS, GRAPH_REPLAYS)
            print(f"  batch {batch:5d}  expert {t_ms * 1e3:8.2f}  read {read_ms * 1e3:8.2f}  "
                  f"T_SOL {sol_us:8.2f}  %SOL {100 * sol_us / (t_ms * 1e3):5.1f}", flush=True)

    if args.phases:
        _print_phases(args.source, config, inputs, args.seed)

    print("ALL PASS" if not failed else "SOME CASES FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
