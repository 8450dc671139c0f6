"""Compare baseline/solution.py with reference.py on a CUDA device.

    python3 baseline/check_baseline.py            # small shapes only
    python3 baseline/check_baseline.py --full     # plus the three registered workloads
    python3 baseline/check_baseline.py --full --time

Prints the relative Frobenius error against the 0.012 gate (rel_norm_rtol x grader_scale from
config.json) and the fraction of elements outside atol + rtol * |ref|. Exits with status 1 if any
case fails the gate, produces a non-finite value, or has the wrong shape or dtype.
"""

import argparse
import json
import pathlib
import sys

import torch

TASK_DIR = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TASK_DIR.parent))  # tasks/check_support.py
import check_support  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="also run the registered workloads")
    parser.add_argument("--time", action="store_true", help="time reference and baseline (with --full)")
    parser.add_argument("--seed", type=int, default=1234)
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

    reference = check_support.load_module(TASK_DIR / "reference.py", "muon_reference")
    baseline = check_support.load_module(TASK_DIR / "baseline" / "solution.py", "muon_baseline")
    generator = check_support.load_module(TASK_DIR / "get_inputs.py", "muon_get_inputs")

    cases = []
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    small_shapes = [
        (2, 256, 640),      # tile multiples
        (3, 200, 333),      # ragged in every dimension
        (1, 130, 1000),     # one matrix, M just past one tile
        (2, 300, 128),      # tall: M > N
        (257, 513),         # plain 2-D input
        (2, 2, 96, 160),    # two leading batch dims
    ]
    for shape in small_shapes:
        G = torch.randn(shape, generator=gen, dtype=torch.bfloat16, device="cuda")
        cases.append(("x".join(map(str, shape)), G, None))
    # Non-contiguous input: a transposed view of a wide matrix batch.
    G_t = torch.randn((2, 640, 192), generator=gen, dtype=torch.bfloat16, device="cuda").transpose(1, 2)
    cases.append(("2x192x640 (transposed view)", G_t, None))

    if args.full:
        for entry in config["workloads"]:
            cfg = dict(config["fixed_params"])
            cfg.update(entry)
            cfg["seed"] = args.seed
            cfg["device"] = "cuda"
            cases.append((entry["label"], None, cfg))

    failed = False
    print(f"gate: rel_norm <= {gate:g}   (elementwise atol {atol:g}, rtol {rtol:g})")
    for label, G, cfg in cases:
        if cfg is not None:
            G, steps = generator.get_inputs(cfg)
        else:
            steps = 5
        G_before = G.clone()
        ref = reference.run(G, steps)
        out = baseline.run(G, steps)
        torch.cuda.synchronize()
        ok_meta = out.shape == ref.shape and out.dtype == ref.dtype
        unchanged = torch.equal(G, G_before)
        rel, bad, finite = check_support.compare(out, ref, atol, rtol)
        ok = ok_meta and unchanged and finite and rel <= gate
        failed |= not ok
        line = (f"{'PASS' if ok else 'FAIL'}  {label:32s} rel_norm={rel:.3e}  "
                f"elem_mismatch={bad:.2e}  finite={finite}  shape/dtype_ok={ok_meta}  "
                f"input_unchanged={unchanged}")
        if cfg is not None and args.time:
            t_ref = check_support.time_back_to_back_ms(reference.run, (G, steps), 3)
            t_base = check_support.time_back_to_back_ms(baseline.run, (G, steps), 3)
            line += f"  ref={t_ref:.1f} ms  baseline={t_base:.1f} ms  ref/baseline={t_ref / t_base:.2f}x"
        print(line, flush=True)
        del G, G_before, ref, out
        torch.cuda.empty_cache()

    # Zero input: the reference returns zeros (0 / (0 + eps)); the baseline must as well.
    Z = torch.zeros((2, 64, 96), dtype=torch.bfloat16, device="cuda")
    zero_ok = bool((baseline.run(Z, 5) == 0).all().item())
    failed |= not zero_ok
    print(f"{'PASS' if zero_ok else 'FAIL'}  zero input returns zeros")

    try:
        baseline.run(Z, 4)
        print("FAIL  steps=4 was accepted")
        failed = True
    except ValueError:
        print("PASS  steps=4 rejected")

    print("ALL PASS" if not failed else "SOME CASES FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
