"""The evaluator's own time per workload, from `d2k eval --json` records: wall time over the
time the protocol itself needs (the timed samples plus the checked calls), and where the rest
went (docs/timing.md, "Where an evaluation's time goes").

    python3 bench/evaluator_overhead.py RECORD.json [RECORD.json ...]
    python3 bench/evaluator_overhead.py --json RECORD.json [...] > results/h200-overhead.json

Records from before the per-phase breakdown existed carry no irreducible time; for them it is
estimated as the samples' total plus one call per correctness check at the measured latency
(the reference's calls are then missing, so the ratio is an upper bound), and marked "est".
"""

import json
import sys


def irreducible(workload):
    """(seconds, exact?) of the protocol's own time for one workload."""
    if workload.get("irreducible_seconds"):
        return workload["irreducible_seconds"], True
    latency = workload.get("latency") or {}
    samples = sum(s * latency.get("calls_per_sample", 0) for s in latency.get("samples_s", []))
    checks = len(workload.get("trials", [])) * latency.get("mean_s", 0.0)
    return samples + checks, False


def rows(paths):
    """One row per workload of every record that ran its protocol (a workload that failed before
    any call, such as a task_error, has no protocol time to compare with)."""
    out = []
    for path in paths:
        record = json.load(open(path))
        for w in record["workloads"]:
            needed, exact = irreducible(w)
            if needed <= 0:
                continue
            out.append({"task": record["task"], "impl": record["impl_kind"], "workload": w["workload"],
                        "wall_s": w["wall_seconds"], "irreducible_s": needed, "exact": exact,
                        "phases": {k: v for k, v in sorted(w.get("phases", {}).items()) if v >= 0.05}})
    return out


def main(arguments):
    if arguments and arguments[0] == "--json":
        json.dump(rows(arguments[1:]), sys.stdout, indent=1)
        return
    print(f"{'task':<24} {'impl':<9} {'workload':<34} {'wall s':>8} {'needed s':>9} {'ratio':>6}  phases")
    for r in rows(arguments):
        ratio = r["wall_s"] / r["irreducible_s"] if r["irreducible_s"] > 0 else float("nan")
        phases = " ".join(f"{k}={v:.1f}" for k, v in r["phases"].items())
        print(f"{r['task'][:24]:<24} {r['impl']:<9} {r['workload'][:34]:<34} {r['wall_s']:8.1f} "
              f"{r['irreducible_s']:9.1f} {ratio:6.2f}{'' if r['exact'] else ' est'}  {phases}")


if __name__ == "__main__":
    main(sys.argv[1:])
