"""The evaluator's own time per workload, from `d2k eval --json` records: wall time over the
time the protocol itself needs (the timed samples plus the checked calls), and where the rest
went (docs/timing.md, "Where an evaluation's time goes").

    python3 bench/evaluator_overhead.py RECORD.json [RECORD.json ...]

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


def main(paths):
    print(f"{'task':<24} {'impl':<9} {'workload':<34} {'wall s':>8} {'needed s':>9} {'ratio':>6}  phases")
    for path in paths:
        record = json.load(open(path))
        total_wall = 0.0
        for w in record["workloads"]:
            needed, exact = irreducible(w)
            total_wall += w.get("wall_seconds", 0.0)
            ratio = w["wall_seconds"] / needed if needed > 0 else float("nan")
            phases = " ".join(f"{k}={v:.1f}" for k, v in sorted(w.get("phases", {}).items()) if v >= 0.05)
            print(f"{record['task'][:24]:<24} {record['impl_kind']:<9} {w['workload'][:34]:<34} "
                  f"{w['wall_seconds']:8.1f} {needed:9.1f} {ratio:6.2f}{'' if exact else ' est'}  {phases}")
        print(f"{record['task'][:24]:<24} {record['impl_kind']:<9} {'(all workloads)':<34} {total_wall:8.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
