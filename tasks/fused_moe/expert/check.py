"""Check the fused MoE baseline and expert against reference.py on a CUDA device.

    python3 tasks/fused_moe/expert/check.py                      # small shapes, both
    python3 tasks/fused_moe/expert/check.py --impl expert        # only one implementation
    python3 tasks/fused_moe/expert/check.py --full               # plus every registered workload
    python3 tasks/fused_moe/expert/check.py --full --time        # plus CUDA-event timings and %SOL
    python3 tasks/fused_moe/expert/check.py --sweep [--only mixtral]   # time other expert tile configs

For every case it prints the relative Frobenius error against the gate of config.json
(rel_norm_rtol x grader_scale), the fraction of elements outside atol + rtol * |ref|, whether
the output is finite with the right shape and dtype, and whether the inputs were left unchanged.
The expert is also run once under torch's sync debug mode set to "error", which raises on any
host synchronization that PyTorch performs inside run(). With --time, each registered workload
gets median per-call times (CUDA events, warm caches, back-to-back calls) of the reference, the
baseline and the expert, and the expert's %SOL from the work model with 4241 GB/s copy bandwidth
and 806 TFLOP/s bf16 (measured on our H200). Exits with status 1 on any failure.

--sweep runs only the registered workloads (those matching --only) and times the expert with
its chosen tile configuration and with variations of one parameter group at a time (BLOCK_M,
the gate/up tiles, the down tiles, GROUP_M), checking each against the reference; it is a tuning
aid, slower than the checks (every configuration compiles once).
"""

import argparse
import json
import math
import pathlib
import sys
import time
import traceback

import torch

TASK_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TASK_DIR.parent))  # tasks/check_support.py
import check_support  # noqa: E402
COPY_BANDWIDTH = 4241e9        # bytes/s, device-to-device copy on our H200
BF16_PEAK = 806e12             # FLOP/s, dense bf16 matmul on our H200
SOL_TARGET = 0.5


def _median_ms(fn, args, min_seconds=0.25, max_reps=200):
    """Median per-call time of back-to-back batches, each timed with a pair of CUDA events."""
    fn(*args)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn(*args)
    torch.cuda.synchronize()
    once = max(time.perf_counter() - t0, 1e-6)
    reps = int(max(1, min(max_reps, (min_seconds / 5) / once)))
    samples = []
    for _ in range(5):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn(*args)
        stop.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(stop) / reps)
    samples.sort()
    return samples[len(samples) // 2]


def _work_model(params, active_experts=None):
    """flops and bytes of the work model; with active_experts, bytes for the actual routing."""
    T, E, k, H, I = (params[n] for n in ("T", "E", "top_k", "H", "I"))
    flops = 6 * T * k * H * I
    expected = E * (1 - (1 - k / E) ** T) if active_experts is None else active_experts
    nbytes = expected * 3 * H * I * 2 + 2 * T * H * 2 + T * k * 8
    return flops, nbytes


def _small_inputs(gen, T, E, k, H, I, mode="router"):
    dev = "cuda"
    x = torch.randn((T, H), generator=gen, device=dev).to(torch.bfloat16)
    w1 = (torch.randn((E, 2 * I, H), generator=gen, device=dev) / math.sqrt(H)).to(torch.bfloat16)
    w2 = (torch.randn((E, H, I), generator=gen, device=dev) / math.sqrt(I)).to(torch.bfloat16)
    if mode == "one_expert":
        # Every token sends all k choices to experts 0..k-1 (one expert holds T rows).
        ids = torch.arange(k, device=dev, dtype=torch.int32).repeat(T, 1)
        weights = torch.full((T, k), 1.0 / k, device=dev)
    else:
        logits = torch.randn((T, E), generator=gen, device=dev)
        if mode == "few_experts":
            logits[:, : E // 2] -= 30.0     # only the upper half of the experts get rows
        probs = torch.softmax(logits, dim=-1)
        top, ids = torch.topk(probs, k, dim=-1)
        weights = top / top.sum(-1, keepdim=True)
        ids = ids.to(torch.int32)
    return [x, w1, w2, ids.contiguous(), weights.contiguous()]


# Alternatives per shape class of the expert's _pick_config, keyed by its BLOCK_M. Tile tuples
# are (BLOCK_N, BLOCK_K, warps, stages).
_SWEEP = {
    16: {"block_m": [32],
         "gate_up": [(32, 128, 4, 4), (128, 64, 4, 4), (64, 64, 4, 4), (64, 128, 4, 4)],
         "down": [(32, 128, 4, 4), (128, 128, 4, 3), (64, 64, 4, 4), (64, 128, 4, 4)],
         "group_m": [8]},
    64: {"block_m": [32, 128],
         "gate_up": [(64, 128, 4, 3), (128, 64, 8, 3), (32, 64, 4, 4), (64, 64, 4, 3)],
         "down": [(64, 64, 4, 4), (128, 128, 8, 3), (64, 128, 4, 3), (128, 64, 8, 4)],
         "group_m": [1, 16]},
    128: {"block_m": [64],
          "gate_up": [(128, 64, 8, 4), (64, 64, 4, 4), (64, 64, 8, 4), (128, 32, 8, 4)],
          "down": [(128, 64, 4, 4), (256, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 4)],
          "group_m": [1, 16]},
}


def _sweep(config, expert, reference, generator, gate, seed, only):
    failed = False
    for entry in config["workloads"]:
        if only and only not in entry["label"]:
            continue
        cfg = dict(config["fixed_params"])
        cfg.update(entry)
        cfg["seed"] = seed
        cfg["device"] = "cuda"
        inputs = generator.get_inputs(cfg)
        ref = reference.run(*inputs)
        slots = cfg["T"] * cfg["top_k"]
        base = expert._pick_config(slots, cfg["E"])
        block_m, gate_up, down, group_m = base
        alt = _SWEEP.get(block_m, {})
        variants = [("chosen", base)]
        variants += [(f"block_m={v}", (v, gate_up, down, group_m)) for v in alt.get("block_m", [])]
        variants += [(f"gate_up={v}", (block_m, v, down, group_m)) for v in alt.get("gate_up", [])]
        variants += [(f"down={v}", (block_m, gate_up, v, group_m)) for v in alt.get("down", [])]
        variants += [(f"group_m={v}", (block_m, gate_up, down, v)) for v in alt.get("group_m", [])]
        flops, nbytes = _work_model(cfg)
        t_sol_ms = 1e3 * max(flops / BF16_PEAK, nbytes / COPY_BANDWIDTH)
        print(f"{entry['label']}: chosen block_m={block_m} gate_up={gate_up} down={down} "
              f"group_m={group_m}; T_SOL={t_sol_ms:.3f} ms", flush=True)
        for name, params in variants:
            def call(*args, _params=params):
                return expert._forward(*args, *_params)
            try:
                out = call(*inputs)
                torch.cuda.synchronize()
                rel, _, finite = check_support.compare(out, ref, 0.0, 0.0)
                ms = _median_ms(call, inputs, min_seconds=0.1)
            except Exception as error:
                print(f"    {name:34s} error: {type(error).__name__}: {str(error)[:160]}", flush=True)
                continue
            ok = finite and rel <= gate
            failed |= not ok
            print(f"    {name:34s} {ms:8.3f} ms  %SOL={100 * t_sol_ms / ms:5.1f}  rel_norm={rel:.2e}"
                  f"{'' if ok else '  FAIL'}", flush=True)
        del inputs, ref
        torch.cuda.empty_cache()
    return failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=["baseline", "expert", "both"], default="both")
    parser.add_argument("--full", action="store_true", help="also run every registered workload")
    parser.add_argument("--time", action="store_true", help="time reference/baseline/expert (with --full)")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--sweep", action="store_true", help="time expert tile variations on the registered workloads")
    parser.add_argument("--only", default="", help="with --sweep: only workloads whose label contains this")
    args = parser.parse_args()

    if not torch.cuda.is_available():
        print("a CUDA device is required")
        return 2

    config = json.loads((TASK_DIR / "config.json").read_text())
    tol = config["tolerance"]
    scale = tol.get("grader_scale", 1)
    gate = tol["rel_norm_rtol"] * scale
    atol = tol["atol"] * scale
    rtol = tol["rtol"] * scale

    reference = check_support.load_module(TASK_DIR / "reference.py", "fused_moe_reference")
    generator = check_support.load_module(TASK_DIR / "get_inputs.py", "fused_moe_get_inputs")
    names = ["baseline", "expert"] if args.impl == "both" else [args.impl]
    impls = {n: check_support.load_module(TASK_DIR / n / "solution.py", f"fused_moe_{n}") for n in names}

    if args.sweep:
        expert = check_support.load_module(TASK_DIR / "expert" / "solution.py", "fused_moe_expert")
        failed = _sweep(config, expert, reference, generator, gate, args.seed, args.only)
        print("ALL PASS" if not failed else "SOME CASES FAILED")
        return 1 if failed else 0

    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    # (label, T, E, k, H, I, routing mode). The registered decode/mid/prefill tile classes are
    # chosen from S / E = T * k / E: <= 8, <= 64, above.
    small = [
        ("t1_e4_k2_h64_i32", 1, 4, 2, 64, 32, "router"),
        ("t5_e8_k2_h128_i96 (ragged N)", 5, 8, 2, 128, 96, "router"),
        ("t37_e16_k4_h200_i72 (ragged K and N)", 37, 16, 4, 200, 72, "router"),
        ("t64_e128_k8_h256_i128 (decode class)", 64, 128, 8, 256, 128, "router"),
        ("t200_e64_k6_h256_i192 (mid class)", 200, 64, 6, 256, 192, "router"),
        ("t300_e8_k2_h512_i384 (prefill class)", 300, 8, 2, 512, 384, "router"),
        ("t90_e16_k2_h256_i128 (half the experts idle)", 90, 16, 2, 256, 128, "few_experts"),
        ("t130_e8_k2_h256_i128 (all rows on two experts)", 130, 8, 2, 256, 128, "one_expert"),
        ("t3_e16_k1_h128_i64 (k=1)", 3, 16, 1, 128, 64, "router"),
    ]
    cases = [(label, _small_inputs(gen, T, E, k, H, I, mode), None) for label, T, E, k, H, I, mode in small]
    if args.full:
        for entry in config["workloads"]:
            cfg = dict(config["fixed_params"])
            cfg.update(entry)
            cfg["seed"] = args.seed
            cfg["device"] = "cuda"
            cases.append((entry["label"], None, cfg))

    failed = False
    sol_rows = []
    print(f"gate: rel_norm <= {gate:g}   (elementwise atol {atol:g}, rtol {rtol:g})")
    for label, inputs, cfg in cases:
        if cfg is not None:
            inputs = generator.get_inputs(cfg)
        before = [t.clone() for t in inputs]
        ref = reference.run(*inputs)
        torch.cuda.synchronize()
        outs = {}
        for name, module in impls.items():
            try:
                out = module.run(*inputs)
                torch.cuda.synchronize()
            except Exception:
                print(f"FAIL  {label:46s} {name}: run raised")
                traceback.print_exc()
                failed = True
                continue
            ok_meta = out.shape == ref.shape and out.dtype == ref.dtype
            unchanged = all(torch.equal(a, b) for a, b in zip(inputs, before))
            rel, bad, finite = check_support.compare(out, ref, atol, rtol) if ok_meta else (float("inf"), 1.0, False)
            ok = ok_meta and unchanged and finite and rel <= gate
            failed |= not ok
            print(f"{'PASS' if ok else 'FAIL'}  {label:46s} {name:8s} rel_norm={rel:.3e}  "
                  f"elem_mismatch={bad:.2e}  finite={finite}  shape/dtype_ok={ok_meta}  "
                  f"input_unchanged={unchanged}", flush=True)
            outs[name] = out

        if "expert" in impls:
            # A host synchronization inside the expert's run() raises here.
            try:
                torch.cuda.set_sync_debug_mode("error")
                impls["expert"].run(*inputs)
                torch.cuda.set_sync_debug_mode(0)
                torch.cuda.synchronize()
            except Exception as error:
                torch.cuda.set_sync_debug_mode(0)
                print(f"FAIL  {label:46s} expert synchronizes with the host: {error}")
                failed = True

        if cfg is not None and args.time:
            ids = inputs[3]
            active = int((torch.bincount(ids.flatten().long(), minlength=cfg["E"]) > 0).sum().item())
            flops, nbytes = _work_model(cfg)
            _, nbytes_actual = _work_model(cfg, active)
            t_sol = max(flops / BF16_PEAK, nbytes / COPY_BANDWIDTH)
            t_sol_actual = max(flops / BF16_PEAK, nbytes_actual / COPY_BANDWIDTH)
            times = {"reference": _median_ms(reference.run, inputs)}
            for name, module in impls.items():
                if name in outs:
                    times[name] = _median_ms(module.run, inputs)
            line = "      " + "  ".join(f"{n}={t:.3f} ms" for n, t in times.items())
            if "baseline" in times and "expert" in times:
                line += f"  baseline/expert={times['baseline'] / times['expert']:.2f}x"
                if times["expert"] >= times["baseline"]:
                    line += "  (EXPERT NOT FASTER)"
                    failed = True
            if "expert" in times:
                frac = t_sol * 1e3 / times["expert"]
                frac_actual = t_sol_actual * 1e3 / times["expert"]
                line += (f"\n      T_SOL={t_sol * 1e3:.3f} ms ({'compute' if flops / BF16_PEAK >= nbytes / COPY_BANDWIDTH else 'memory'}"
                         f"-bound; model bytes {nbytes / 1e9:.3f} GB)  expert %SOL={100 * frac:.1f}"
                         f"   with this call's {active} active experts: T_SOL={t_sol_actual * 1e3:.3f} ms,"
                         f" %SOL={100 * frac_actual:.1f}")
                sol_rows.append((label, frac, frac_actual))
            print(line, flush=True)
        del inputs, before, ref, outs
        torch.cuda.empty_cache()

    for label, frac, frac_actual in sol_rows:
        if frac < SOL_TARGET:
            print(f"NOTE  {label}: expert below {100 * SOL_TARGET:.0f}% of T_SOL ({100 * frac:.1f}%)")

    print("ALL PASS" if not failed else "SOME CASES FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
