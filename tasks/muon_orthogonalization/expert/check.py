"""Check the Muon expert (and the baseline) against reference.py on a CUDA device.

    python3 tasks/muon_orthogonalization/expert/check.py                  # small shapes, both
    python3 tasks/muon_orthogonalization/expert/check.py --full --time    # and the workloads, timed
    python3 tasks/muon_orthogonalization/expert/check.py --impl expert --full --breakdown
    python3 tasks/muon_orthogonalization/expert/check.py --impl expert --tune

Correctness: the relative Frobenius error against the gate of config.json (rel_norm_rtol x
grader_scale = 0.012), the fraction of elements outside atol + rtol |ref| (reported only),
finiteness, shape and dtype, and that G is left unchanged. --time prints CUDA-event medians per
call for the reference, the baseline and the expert, and %SOL from the task's work model with the
ceilings measured on our H200 (fp16 773.2 TFLOP/s, bf16 806.3 TFLOP/s, copy 4241 GB/s).
--breakdown times each expert kernel on the registered shapes; --tune times alternative tile
configurations of the two GEMM kernels there. Exit status 1 if any correctness check fails.
"""

import argparse
import json
import pathlib
import statistics
import sys
import time

import torch

TASK_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TASK_DIR.parent))  # tasks/check_support.py
import check_support  # noqa: E402
PEAK_FLOPS = {"fp16": 773.2e12, "bf16": 806.3e12}
COPY_BANDWIDTH = 4241e9


def _median_ms(fn, reps):
    """Median of per-call CUDA-event times after one warm-up call."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def _work_model(config, params):
    """flops, bytes and T_SOL (s) of one workload from config.json's work_model formulas."""
    model = config["work_model"]
    names = {k: v for k, v in params.items() if isinstance(v, (int, float))}
    names.update(min=min, max=max)

    def value(formula):
        # The formulas use muparser syntax; '^' is the only operator that differs from Python.
        return float(eval(formula.replace("^", "**"), {"__builtins__": {}}, names))

    flops = value(model["flops"])
    nbytes = value(model["bytes"])
    t_sol = max(flops / PEAK_FLOPS[model["math_dtype"]], nbytes / COPY_BANDWIDTH)
    return flops, nbytes, t_sol


def _expert_flops(batch, m, n):
    """Useful flops of the expert's schedule: two one-triangle Grams (s^2 l each), two dense
    applications (2 s^2 l each) and fourteen one-triangle square products (s^3 each)."""
    s, l = min(m, n), max(m, n)
    return batch * (6 * s * s * l + 14 * s ** 3)


def _workload_inputs(generator, config, entry, seed):
    cfg = dict(config["fixed_params"])
    cfg.update(entry)
    cfg["seed"] = seed
    cfg["device"] = "cuda"
    return generator.get_inputs(cfg), cfg


def _check_correctness(args, config, reference, impls, generator):
    tol = config["tolerance"]
    scale = tol.get("grader_scale", 1)
    gate = tol["rel_norm_rtol"] * scale
    atol = tol["atol"] * scale
    rtol = tol["rtol"] * scale
    print(f"gate: rel_norm <= {gate:g}   (elementwise atol {atol:g}, rtol {rtol:g}, reported only)")

    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    cases = []
    small_shapes = [
        (2, 256, 640),      # tile multiples
        (3, 200, 333),      # ragged in every dimension
        (1, 130, 1000),     # one matrix, M just past one tile
        (2, 300, 128),      # tall: M > N, the Gram side is N
        (257, 513),         # plain 2-D input, odd number of tile rows
        (2, 2, 96, 160),    # two leading batch dims
        (4, 640, 1712),     # several tile rows, N a multiple of 8 but not of 64
    ]
    for shape in small_shapes:
        G = torch.randn(shape, generator=gen, dtype=torch.bfloat16, device="cuda")
        cases.append(("x".join(map(str, shape)), G, None))
    G_t = torch.randn((2, 640, 192), generator=gen, dtype=torch.bfloat16, device="cuda")
    cases.append(("2x192x640 (transposed view)", G_t.transpose(1, 2), None))
    if args.full:
        for entry in config["workloads"]:
            cases.append((entry["label"], None, entry))

    failed = False
    timings = []
    for label, G, entry in cases:
        cfg = None
        if entry is not None:
            (G, steps), cfg = _workload_inputs(generator, config, entry, args.seed)
        else:
            steps = 5
        G_before = G.clone()
        ref = reference.run(G, steps)
        torch.cuda.synchronize()
        row = {"label": label}
        for name, module in impls.items():
            started = time.time()
            try:
                out = module.run(G, steps)
                torch.cuda.synchronize()
            except Exception as error:  # report and go on with the other cases
                failed = True
                print(f"FAIL  {name:8s} {label:32s} raised {type(error).__name__}: {error}",
                      flush=True)
                continue
            first_call_s = time.time() - started
            ok_meta = out.shape == ref.shape and out.dtype == ref.dtype
            unchanged = torch.equal(G, G_before)
            rel, bad, finite = check_support.compare(out, ref, atol, rtol)
            ok = ok_meta and unchanged and finite and rel <= gate
            failed |= not ok
            print(f"{'PASS' if ok else 'FAIL'}  {name:8s} {label:32s} rel_norm={rel:.3e}  "
                  f"elem_mismatch={bad:.2e}  finite={finite}  shape/dtype_ok={ok_meta}  "
                  f"input_unchanged={unchanged}  first_call={first_call_s:.1f}s", flush=True)
            del out
        if cfg is not None and args.time:
            row["batch"], row["M"], row["N"] = cfg["batch_size"], cfg["M"], cfg["N"]
            row["sol"] = _work_model(config, cfg)
            reps = args.reps
            row["reference"] = _median_ms(lambda: reference.run(G, steps), reps)
            for name, module in impls.items():
                row[name] = _median_ms(lambda: module.run(G, steps), reps)
            timings.append(row)
        del G, G_before, ref
        torch.cuda.empty_cache()

    # Edge cases of the contract, for every implementation.
    Z = torch.zeros((2, 64, 96), dtype=torch.bfloat16, device="cuda")
    for name, module in impls.items():
        zero_ok = bool((module.run(Z, 5) == 0).all().item())
        failed |= not zero_ok
        print(f"{'PASS' if zero_ok else 'FAIL'}  {name:8s} zero input returns zeros")
        try:
            module.run(Z, 4)
            print(f"FAIL  {name:8s} steps=4 was accepted")
            failed = True
        except ValueError:
            print(f"PASS  {name:8s} steps=4 rejected")
    return failed, timings


def _print_timings(timings, impls):
    if not timings:
        return
    print("\ntiming: CUDA-event median per call (ms); %SOL = T_SOL / latency")
    for row in timings:
        flops, nbytes, t_sol = row["sol"]
        parts = [f"{row['label']:30s} T_SOL={t_sol * 1e3:8.2f}  reference={row['reference']:8.2f} "
                 f"({100 * t_sol * 1e3 / row['reference']:5.1f} %)"]
        for name in impls:
            parts.append(f"{name}={row[name]:8.2f} ({100 * t_sol * 1e3 / row[name]:5.1f} %)")
        if "expert" in impls:
            useful = _expert_flops(row["batch"], row["M"], row["N"])
            rate = useful / (row["expert"] * 1e-3) / 1e12
            parts.append(f"expert useful rate={rate:6.1f} TFLOP/s")
        if "expert" in impls and "baseline" in impls:
            speedup = row["baseline"] / row["expert"]
            verdict = "faster" if speedup > 1 else "NOT FASTER"
            parts.append(f"baseline/expert={speedup:5.2f}x ({verdict})")
        print("  ".join(parts))


def _expert_buffers(expert, batch, m, n):
    s, l = min(m, n), max(m, n)
    x = torch.randn((batch, s, l), device="cuda", dtype=torch.float16) * (1.0 / (s * l) ** 0.5)
    square = [torch.empty((batch, s, s), device="cuda", dtype=torch.float16) for _ in range(3)]
    # A realistic Gram and its square as operands of the square products.
    expert._symmetric(x, x, square[0], b_rows=True)
    expert._symmetric(square[0], square[0], square[1], b_rows=False)
    return x, square


def _kernel_times(expert, batch, m, n, reps):
    """(name, ms per launch, TFLOP/s of the flops it needs, launches per call) per expert kernel."""
    s, l = min(m, n), max(m, n)
    x, (gram, p, out) = _expert_buffers(expert, batch, s, l)
    g = torch.randn((batch, s, l), device="cuda", dtype=torch.bfloat16)
    y16 = torch.empty_like(x)
    y_out = torch.empty((batch, s, l), device="cuda", dtype=torch.bfloat16)
    a, b, c = expert._COEFFICIENTS[2]

    def poly():
        expert._symmetric(gram, gram, p, b_rows=False, alpha=c, d=gram, beta=b, gamma=a)

    kernels = [
        ("normalize (sumsq + scale)", lambda: expert_normalize(expert, g, x), 0, 1),
        ("gram X X^T (one triangle)", lambda: expert._symmetric(x, x, gram, b_rows=True),
         s * s * l, 2),
        ("poly c R R + b R + a I", poly, s ** 3, 5),
        ("square product", lambda: expert._symmetric(p, gram, out, b_rows=False), s ** 3, 9),
        ("apply Q X -> fp16", lambda: expert._apply(p, x, y16), 2 * s * s * l, 1),
        ("apply Q X -> bf16", lambda: expert._apply(p, x, y_out), 2 * s * s * l, 1),
    ]
    result = []
    for name, fn, flops, count in kernels:
        ms = _median_ms(fn, reps)
        result.append((name, ms, batch * flops / (ms * 1e-3) / 1e12, count))
    return result


def expert_normalize(expert, g, x):
    # The first two launches of expert.run, on a ready G and X0.
    batch, s, l = g.shape
    sumsq = torch.zeros((batch,), dtype=torch.float32, device="cuda")
    grid = (-(-s // expert._NORM_ROWS), batch)
    s_gb, s_gr, s_gc = g.stride()
    expert._sumsq_kernel[grid](g, sumsq, s, l, s_gb, s_gr, s_gc, CONTIG=True, ALIGNED=l % 8 == 0,
                               BLOCK_R=expert._NORM_ROWS, BLOCK_C=expert._NORM_COLS,
                               num_warps=expert._NORM_WARPS)
    expert._normalize_kernel[grid](g, sumsq, x, s, l, s_gb, s_gr, s_gc, expert._EPS, CONTIG=True,
                                   ALIGNED=l % 8 == 0, BLOCK_R=expert._NORM_ROWS,
                                   BLOCK_C=expert._NORM_COLS, num_warps=expert._NORM_WARPS)


def _breakdown(config, expert, reps):
    print("\nexpert kernels: ms per launch, TFLOP/s of the flops each needs, launches per call")
    for entry in config["workloads"]:
        batch, m, n = entry["batch_size"], entry["M"], entry["N"]
        times = _kernel_times(expert, batch, m, n, reps)
        total = sum(ms * count for _, ms, _, count in times)
        print(f"{entry['label']}: sum of launches {total:.2f} ms")
        for name, ms, rate, count in times:
            print(f"    {name:28s} {ms:8.3f} ms  {rate:6.1f} TFLOP/s  x{count}")
        torch.cuda.empty_cache()


def _tune(config, expert, reps):
    """Time alternative tile settings of the two GEMM kernels (module constants, restored after).

    sym: (BLOCK, WIDE, BLOCK_K, warps, stages, group rows); apply: (BM, BN, BK, GROUP_M, warps,
    stages). A setting that does not fit the SM (shared memory) prints its error and is skipped.
    """
    sym_names = ("_SYM_BLOCK", "_SYM_WIDE", "_SYM_BLOCK_K", "_SYM_WARPS", "_SYM_STAGES",
                 "_SYM_GROUP_ROWS")
    apply_names = ("_APPLY_BM", "_APPLY_BN", "_APPLY_BK", "_APPLY_GROUP_M", "_APPLY_WARPS",
                   "_APPLY_STAGES")
    sym_configs = [(128, 2, 64, 8, 3, 0), (128, 2, 64, 8, 3, 8), (128, 2, 64, 8, 3, 16),
                   (128, 1, 64, 8, 3, 0), (128, 1, 64, 8, 4, 0), (128, 2, 64, 8, 4, 0),
                   (128, 2, 32, 8, 5, 0), (64, 2, 64, 4, 4, 0)]
    apply_configs = [(128, 256, 64, 8, 8, 3), (128, 256, 64, 8, 8, 4), (128, 128, 64, 8, 8, 4),
                     (128, 128, 64, 8, 4, 4), (256, 128, 64, 8, 8, 3), (128, 256, 32, 8, 8, 5)]
    saved = {k: getattr(expert, k) for k in sym_names + apply_names}
    print("\ntuning (ms per launch, TFLOP/s of needed flops)")
    try:
        for entry in config["workloads"]:
            batch, m, n = entry["batch_size"], entry["M"], entry["N"]
            s, l = min(m, n), max(m, n)
            x, (gram, p, out) = _expert_buffers(expert, batch, s, l)
            y16 = torch.empty_like(x)
            print(entry["label"])
            for cfg in sym_configs:
                for k, v in zip(sym_names, cfg):
                    setattr(expert, k, v)
                try:
                    t_gram = _median_ms(lambda: expert._symmetric(x, x, gram, b_rows=True), reps)
                    t_sq = _median_ms(lambda: expert._symmetric(p, gram, out, b_rows=False), reps)
                    rate_gram = batch * s * s * l / t_gram / 1e9
                    rate_sq = batch * s ** 3 / t_sq / 1e9
                    print(f"    sym {cfg}: gram {t_gram:7.3f} ms ({rate_gram:6.1f} TFLOP/s)  "
                          f"square {t_sq:7.3f} ms ({rate_sq:6.1f} TFLOP/s)", flush=True)
                except Exception as error:
                    print(f"    sym {cfg}: {type(error).__name__}: {str(error)[:200]}")
            for k in sym_names:
                setattr(expert, k, saved[k])
            for cfg in apply_configs:
                for k, v in zip(apply_names, cfg):
                    setattr(expert, k, v)
                try:
                    t_apply = _median_ms(lambda: expert._apply(p, x, y16), reps)
                    rate = 2 * batch * s * s * l / t_apply / 1e9
                    print(f"    apply {cfg}: {t_apply:7.3f} ms ({rate:6.1f} TFLOP/s)", flush=True)
                except Exception as error:
                    print(f"    apply {cfg}: {type(error).__name__}: {str(error)[:200]}")
            for k in apply_names:
                setattr(expert, k, saved[k])
            del x, gram, p, out, y16
            torch.cuda.empty_cache()
    finally:
        for k, v in saved.items():
            setattr(expert, k, v)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=("baseline", "expert", "both"), default="both")
    parser.add_argument("--full", action="store_true", help="also run the registered workloads")
    parser.add_argument("--time", action="store_true",
                        help="time the registered workloads (with --full)")
    parser.add_argument("--breakdown", action="store_true",
                        help="time each expert kernel on the registered shapes")
    parser.add_argument("--tune", action="store_true", help="time alternative GEMM tile settings")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()

    if not torch.cuda.is_available():
        print("a CUDA device is required")
        return 2
    started = time.time()
    config = json.loads((TASK_DIR / "config.json").read_text())
    reference = check_support.load_module(TASK_DIR / "reference.py", "muon_reference")
    generator = check_support.load_module(TASK_DIR / "get_inputs.py", "muon_get_inputs")
    impls = {}
    if args.impl in ("baseline", "both"):
        impls["baseline"] = check_support.load_module(TASK_DIR / "baseline" / "solution.py", "muon_baseline")
    expert = check_support.load_module(TASK_DIR / "expert" / "solution.py", "muon_expert")
    if args.impl in ("expert", "both"):
        impls["expert"] = expert

    failed, timings = _check_correctness(args, config, reference, impls, generator)
    _print_timings(timings, impls)
    if args.breakdown:
        _breakdown(config, expert, args.reps)
    if args.tune:
        _tune(config, expert, args.reps)
    print(f"\n{'ALL PASS' if not failed else 'SOME CASES FAILED'}  ({time.time() - started:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
