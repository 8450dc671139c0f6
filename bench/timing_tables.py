"""Renders docs/timing.md's measured tables from the data the device runs committed under
results/: the fidelity of d2k's latencies against independent timers (bench/fidelity.py's JSON)
and the cold against the hot cache policy (two d2k evaluation records of the same workload).

    python3 bench/timing_tables.py fidelity results/h200-fidelity.json
    python3 bench/timing_tables.py cache results/h200-cache-policy.json
    python3 bench/timing_tables.py pair COLD.json HOT.json [COLD.json HOT.json ...] > results/h200-cache-policy.json

A test keeps the tables in docs/timing.md equal to what this prints.
"""

import json
import sys


def micro(seconds):
    return f"{seconds * 1e6:,.1f} µs" if seconds is not None else "—"


def fidelity(rows):
    lines = ["| task | implementation | workload | d2k eval | do_bench (L2 flushed) | graph loop (hot) |",
             "|---|---|---|---:|---:|---:|"]
    for r in rows:
        d2k = f"{micro(r['d2k_s'])} ({r['d2k_method']}, {r['d2k_cache']})"
        lines.append(f"| {r['task']} | {r['impl']} | {r['workload']} | {d2k} | "
                     f"{micro(r['do_bench_s'])} | {micro(r.get('graph_s'))} |")
    return "\n".join(lines) + "\n"


def cache(pairs):
    lines = ["| task | workload | input set | cold: sets | cold | hot | hot / cold |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for p in pairs:
        cold, hot = p["cold"], p["hot"]
        lines.append(f"| {p['task']} | {p['workload']} | {cold['input_set_bytes'] / 1e6:,.1f} MB | "
                     f"{cold['input_sets']} | {micro(cold['mean_s'])} | {micro(hot['mean_s'])} | "
                     f"{hot['mean_s'] / cold['mean_s']:.3f} |")
    return "\n".join(lines) + "\n"


KEPT = ("method", "cache_policy", "input_sets", "input_set_bytes", "l2_bytes", "mean_s", "stdev_s",
        "calls_per_sample", "samples_s")


def pair(paths):
    """Cold and hot latencies of the workloads two records share, as cache() reads them."""
    pairs = []
    for cold_path, hot_path in zip(paths[::2], paths[1::2]):
        cold, hot = json.load(open(cold_path)), json.load(open(hot_path))
        hot_by_label = {w["workload"]: w for w in hot["workloads"] if w.get("latency")}
        for w in cold["workloads"]:
            if w.get("latency") and w["workload"] in hot_by_label:
                pairs.append({"task": cold["task"], "workload": w["workload"],
                              "cold": {k: w["latency"][k] for k in KEPT},
                              "hot": {k: hot_by_label[w["workload"]]["latency"][k] for k in KEPT}})
    return pairs


def main(kind, paths):
    if kind == "pair":
        json.dump(pair(paths), sys.stdout, indent=1)
        return
    data = json.load(open(paths[0]))
    sys.stdout.write(fidelity(data) if kind == "fidelity" else cache(data))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
