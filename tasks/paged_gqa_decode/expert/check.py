"""Check the baseline and the expert of paged_gqa_decode against the reference on a CUDA device.

    python3 tasks/paged_gqa_decode/expert/check.py                  # small shapes, both
    python3 tasks/paged_gqa_decode/expert/check.py --impl expert    # one implementation
    python3 tasks/paged_gqa_decode/expert/check.py --full           # plus every registered workload
    python3 tasks/paged_gqa_decode/expert/check.py --full --time    # plus CUDA-graph timings and %SOL
    python3 tasks/paged_gqa_decode/expert/check.py --sweep          # expert launch settings per workload

Every case prints the relative Frobenius error against the gate (rel_norm_rtol x grader_scale
from config.json), the fraction of elements outside atol + rtol * |ref|, whether the output is
finite, has the right shape and dtype, and whether the inputs were left bit-for-bit unchanged.
--time captures N calls into a CUDA graph (as `"timing": "graph"` does), replays it, and prints
the median per-call time, the bandwidth it implies, T_SOL from the work model (4241 GB/s copy
bandwidth, 806 TFLOP/s bf16) and %SOL = T_SOL / t. Exits with 1 if any check fails.
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
COPY_BANDWIDTH = 4241e9      # bytes/s, measured device-to-device copy on our H200
PEAK_FLOPS = {"bf16": 806e12, "fp16": 773e12}


def _bits(t):
    """A contiguous byte view, so NaN inputs and float8 tensors compare bit for bit."""
    return t.contiguous().view(torch.uint8)


def _snapshot(args):
    return [a.clone() if torch.is_tensor(a) else a for a in args]


def _unchanged(args, before):
    for a, b in zip(args, before):
        if torch.is_tensor(a):
            if a.shape != b.shape or not torch.equal(_bits(a), _bits(b)):
                return False
        elif a != b:
            return False
    return True


def _work_model(config, params):
    """(flops, bytes) of the config's work model for one workload (the formulas are plain
    arithmetic over the workload's numbers, so Python evaluates them the way muparser does)."""
    names = {k: v for k, v in params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    model = config["work_model"]
    flops = eval(model["flops"].replace("^", "**"), {"__builtins__": {}}, names)
    nbytes = eval(model["bytes"].replace("^", "**"), {"__builtins__": {}}, names)
    return float(flops), float(nbytes)


def _graph_time_ms(fn, args, target_ms=60.0, samples=5):
    """Median per-call device time of fn(*args) replayed from a CUDA graph of N calls."""
    fn(*args)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        fn(*args)
    stop.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(stop) / 3, 1e-3)
    calls = int(min(max(1, math.ceil(target_ms / estimate)), 2000))

    return check_support.time_graph_ms(fn, args, calls, samples), calls


GRAPH_CHECK_CASE = "G4 page16 b7 ragged 1..5000 (10 splits)"


def _graph_matches_eager(fn, args, eager_out):
    """Capture two calls in a CUDA graph (as the harness's graph timing does), replay, and
    compare the last captured output with the eager result bit for bit."""
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fn(*args)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn(*args)
            captured = fn(*args)
        captured.fill_(0)
        graph.replay()
        torch.cuda.synchronize()
        return bool(torch.equal(_bits(captured), _bits(eager_out)))
    except Exception:
        print(traceback.format_exc())
        return False


def _poison_unused_slots(k_cache, v_cache, block_table, seq_lens):
    """NaN in every cache slot of every request's pages at or past its length: a kernel that lets
    a masked-out token reach its sums (even multiplied by a zero weight) turns NaN."""
    page_size = k_cache.shape[1]
    table = block_table.tolist()
    for b, length in enumerate(seq_lens.tolist()):
        for j, page in enumerate(table[b]):
            first_free = max(0, length - j * page_size)
            if first_free < page_size:
                for cache in (k_cache, v_cache):
                    if cache.element_size() == 1:
                        cache.view(torch.uint8)[page, first_free:] = 0x7F  # e4m3fn NaN
                    else:
                        cache[page, first_free:] = float("nan")


def _small_cases(config):
    base = dict(config["fixed_params"])
    cases = [
        # (label, workload params, poison the unused slots?)
        ("G8 page64 b2 ctx1000 (2 splits)",
         dict(batch=2, h_q=64, h_kv=8, page_size=64, ctx_min=1000, ctx_max=1000), False),
        ("G4 page16 b7 ragged 1..5000 (10 splits)",
         dict(batch=7, h_q=32, h_kv=8, page_size=16, ctx_min=1, ctx_max=5000), False),
        ("G4 page16 b7 ragged 1..5000, NaN past len",
         dict(batch=7, h_q=32, h_kv=8, page_size=16, ctx_min=1, ctx_max=5000), True),
        ("G4 page16 b300 ctx70 (1 split)",
         dict(batch=300, h_q=32, h_kv=8, page_size=16, ctx_min=70, ctx_max=70), False),
        ("G8 page64 b160 ragged 3..700, NaN (1 split)",
         dict(batch=160, h_q=64, h_kv=8, page_size=64, ctx_min=3, ctx_max=700), True),
        ("G1 page32 b3 ctx2000",
         dict(batch=3, h_q=4, h_kv=4, page_size=32, ctx_min=2000, ctx_max=2000), False),
        ("G8 page64 b1 ctx20000 (many splits)",
         dict(batch=1, h_q=64, h_kv=8, page_size=64, ctx_min=20000, ctx_max=20000), False),
        ("G8 page16 b2 ctx3001 fp8 scale 1/64",
         dict(batch=2, h_q=64, h_kv=8, page_size=16, ctx_min=3001, ctx_max=3001,
              kv_dtype="fp8_e4m3", kv_bytes=1, k_scale=0.015625, v_scale=0.015625), False),
        ("G8 page16 b5 ragged 17..3001 fp8, k_scale 1/32 v_scale 1/128",
         dict(batch=5, h_q=64, h_kv=8, page_size=16, ctx_min=17, ctx_max=3001,
              kv_dtype="fp8_e4m3", kv_bytes=1, k_scale=0.03125, v_scale=0.0078125), True),
    ]
    out = []
    for label, params, poison in cases:
        p = dict(base)
        p.update({"kv_dtype": "bf16", "kv_bytes": 2, "k_scale": 1.0, "v_scale": 1.0})
        p.update(params)
        out.append((label, p, poison))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", choices=["baseline", "expert", "both"], default="both")
    parser.add_argument("--full", action="store_true", help="also run every registered workload")
    parser.add_argument("--time", action="store_true", help="time the registered workloads (with --full)")
    parser.add_argument("--sweep", action="store_true", help="time expert launch settings per workload")
    parser.add_argument("--workload", default=None, help="only this registered workload label")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()

    if not torch.cuda.is_available():
        print("a CUDA device is required")
        return 2

    config = json.loads((TASK_DIR / "config.json").read_text())
    tol = config["tolerance"]
    scale = tol.get("grader_scale", 1)
    gate = tol["rel_norm_rtol"] * scale
    atol = tol.get("atol", 0.0) * scale
    rtol = tol.get("rtol", 0.0) * scale

    reference = check_support.load_module(TASK_DIR / "reference.py", "paged_reference")
    generator = check_support.load_module(TASK_DIR / "get_inputs.py", "paged_get_inputs")
    impls = {}
    for name in (["baseline", "expert"] if args.impl == "both" else [args.impl]):
        impls[name] = check_support.load_module(TASK_DIR / name / "solution.py", f"paged_{name}")
    if args.sweep and "expert" not in impls:
        impls["expert"] = check_support.load_module(TASK_DIR / "expert" / "solution.py", "paged_expert")

    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}")
    print(f"gate: rel_norm <= {gate:g}   (elementwise atol {atol:g}, rtol {rtol:g})")

    cases = [(label, p, poison, False) for label, p, poison in _small_cases(config)]
    if args.full or args.sweep:
        for entry in config["workloads"]:
            if args.workload and entry["label"] != args.workload:
                continue
            p = dict(config["fixed_params"])
            p.update(entry)
            cases.append((entry["label"], p, False, True))
    if args.sweep and not args.full:
        cases = [c for c in cases if c[3]]

    failed = False
    timings = []
    began = time.time()
    for label, params, poison, registered in cases:
        cfg = dict(params, seed=args.seed, device="cuda")
        inputs = generator.get_inputs(cfg)
        if poison:
            _poison_unused_slots(inputs[1], inputs[2], inputs[3], inputs[4])
        before = _snapshot(inputs)
        ref = reference.run(*inputs)
        torch.cuda.synchronize()
        ref_unchanged = _unchanged(inputs, before)
        if not ref_unchanged:
            print(f"FAIL  {label}: the reference changed its inputs")
            failed = True
        for name, module in impls.items():
            if args.sweep and not args.full and name != "expert":
                continue
            try:
                out = module.run(*inputs)
                torch.cuda.synchronize()
            except Exception:  # report and go on with the other cases
                print(f"FAIL  {name:8s} {label}: raised\n{traceback.format_exc()}")
                failed = True
                continue
            ok_meta = out.shape == ref.shape and out.dtype == ref.dtype and out.device == ref.device
            unchanged = _unchanged(inputs, before)
            rel, bad, finite = (check_support.compare(out, ref, atol, rtol, torch.float64) if ok_meta
                                else (float("inf"), 1.0, False))
            ok = ok_meta and unchanged and finite and rel <= gate
            failed |= not ok
            print(f"{'PASS' if ok else 'FAIL'}  {name:8s} {label:44s} rel_norm={rel:.3e}  "
                  f"elem_mismatch={bad:.2e}  finite={finite}  shape/dtype_ok={ok_meta}  "
                  f"input_unchanged={unchanged}", flush=True)
            if not ok and ok_meta:
                # Where it goes wrong: the worst (request, head) rows.
                err = (out.double() - ref.double()).norm(dim=-1) / ref.double().norm(dim=-1).clamp_min(1e-30)
                worst = torch.topk(err.flatten(), k=min(5, err.numel()))
                rows = [(int(i) // err.shape[1], int(i) % err.shape[1], float(v))
                        for v, i in zip(worst.values.tolist(), worst.indices.tolist())]
                lens = inputs[4].tolist()
                print("      worst (request, head, rel err, seq_len): "
                      + ", ".join(f"({b}, {h}, {e:.2e}, {lens[b]})" for b, h, e in rows))
            if label == GRAPH_CHECK_CASE:
                graph_ok = _graph_matches_eager(module.run, inputs, out)
                failed |= not graph_ok
                print(f"{'PASS' if graph_ok else 'FAIL'}  {name:8s} {label:44s} CUDA-graph replay "
                      f"{'equals' if graph_ok else 'DIFFERS FROM'} the eager call", flush=True)
            if registered and args.time and ok:
                t_ms, calls = _graph_time_ms(module.run, inputs)
                timings.append((label, name, t_ms, calls, params))
            del out
        if args.sweep and registered:
            _sweep(impls["expert"], inputs, ref, gate, label, params, config)
        del inputs, before, ref
        torch.cuda.empty_cache()

    if timings:
        print("\ntimings (CUDA graph replay, median per call):")
        by_label = {}
        for label, name, t_ms, calls, params in timings:
            by_label.setdefault(label, {})[name] = (t_ms, calls, params)
        for label, entries in by_label.items():
            params = next(iter(entries.values()))[2]
            flops, nbytes = _work_model(config, params)
            peak = PEAK_FLOPS.get(config["work_model"]["math_dtype"], PEAK_FLOPS["bf16"])
            t_sol_ms = max(flops / peak, nbytes / COPY_BANDWIDTH) * 1e3
            line = f"  {label:40s} T_SOL={t_sol_ms * 1e3:8.1f} us"
            for name in ("baseline", "expert"):
                if name in entries:
                    t_ms, calls, _ = entries[name]
                    line += (f"  {name}={t_ms * 1e3:9.1f} us ({nbytes / (t_ms * 1e-3) / 1e12:5.2f} TB/s,"
                             f" {100 * t_sol_ms / t_ms:5.1f}% SOL, x{calls})")
            if "baseline" in entries and "expert" in entries:
                speedup = entries["baseline"][0] / entries["expert"][0]
                line += f"  expert speedup x{speedup:.2f}"
                if speedup <= 1.0:
                    line += "  [expert not faster]"
            print(line)

    print(f"\nchecked in {time.time() - began:.1f} s")
    print("ALL PASS" if not failed else "SOME CASES FAILED")
    return 1 if failed else 0


def _sweep(expert, inputs, ref, gate, label, params, config):
    """Time the expert's split kernel under several launch settings on one workload."""
    q, k_cache, v_cache, block_table, seq_lens, sm_scale, k_scale, v_scale = inputs
    batch = q.shape[0]
    page_size, h_kv = k_cache.shape[1], k_cache.shape[2]
    max_tokens = block_table.shape[1] * page_size
    num_sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    flops, nbytes = _work_model(config, params)
    t_sol_ms = max(flops / PEAK_FLOPS["bf16"], nbytes / COPY_BANDWIDTH) * 1e3
    print(f"  sweep {label}: T_SOL={t_sol_ms * 1e3:.1f} us")
    launch = [(32, 4, 2), (32, 4, 3), (64, 4, 2), (64, 4, 3), (64, 4, 4), (64, 8, 3),
              (128, 4, 2), (128, 8, 2), (128, 8, 3)]
    for programs_per_sm, max_chunk in ((4, 4096), (8, 4096), (8, 2048), (16, 2048), (16, 1024),
                                       (32, 1024)):
        for block_n, warps, stages in launch:
            splits_b, chunk_b = expert._plan_splits(batch, h_kv, max_tokens, num_sms, block_n,
                                                    page_size, programs_per_sm, max_chunk)

            def call(*a, _s=splits_b, _c=chunk_b, _n=block_n, _w=warps, _st=stages):
                return expert._forward(*a, _s, _c, _n, _w, _st)
            try:
                out = call(*inputs)
                torch.cuda.synchronize()
                rel = check_support.compare(out, ref, 0.0, 0.0, torch.float64)[0]
                t_ms, _ = _graph_time_ms(call, inputs, target_ms=30.0, samples=3)
            except Exception as error:  # a setting that does not compile or fit is reported
                print(f"    per_sm={programs_per_sm:2d}/{max_chunk:4d} splits={splits_b:3d} chunk={chunk_b:6d} "
                      f"block_n={block_n:3d} warps={warps} stages={stages}: {type(error).__name__}: "
                      f"{str(error).splitlines()[0] if str(error) else ''}")
                continue
            print(f"    per_sm={programs_per_sm:2d}/{max_chunk:4d} splits={splits_b:3d} chunk={chunk_b:6d} "
                  f"block_n={block_n:3d} warps={warps} stages={stages}: {t_ms * 1e3:8.1f} us "
                  f"{100 * t_sol_ms / t_ms:5.1f}% SOL  rel={rel:.2e}{'' if rel <= gate else '  FAIL'}",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
