"""Renders docs/timing.md's measured tables from the data the device runs committed under
results/: the fidelity of d2k's latencies against independent timers (bench/fidelity.py's JSON),
the cold against the hot cache policy (two d2k evaluation records of the same workload), and the
evaluator's time over the protocol's own (bench/evaluator_overhead.py --json).

    python3 bench/timing_tables.py fidelity results/h200-fidelity.json
    python3 bench/timing_tables.py cache results/h200-cache-policy.json
    python3 bench/timing_tables.py overhead results/h200-overhead.json
    python3 bench/timing_tables.py pair COLD.json HOT.json [COLD.json HOT.json ...] > results/h200-cache-policy.json
    python3 bench/timing_tables.py check docs/timing.md     # exit 1 when a table is stale
    python3 bench/timing_tables.py write docs/timing.md     # renders every table in place

In a document, a table is the text between `<!-- table: KIND DATA.json -->` and
`<!-- end table -->`; `check` (a test) keeps each equal to what its data renders.
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


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


def overhead(rows):
    lines = ["| task | implementation | workload | wall | protocol's own | ratio | largest phases |",
             "|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        biggest = sorted(r["phases"].items(), key=lambda p: -p[1])[:3]
        phases = ", ".join(f"{k} {v:.1f} s" for k, v in biggest)
        lines.append(f"| {r['task']} | {r['impl']} | {r['workload']} | {r['wall_s']:.1f} s | "
                     f"{r['irreducible_s']:.1f} s | {r['wall_s'] / r['irreducible_s']:.2f} | {phases} |")
    total_wall = sum(r["wall_s"] for r in rows)
    total_needed = sum(r["irreducible_s"] for r in rows)
    lines.append(f"| all | | | {total_wall:.1f} s | {total_needed:.1f} s | "
                 f"{total_wall / total_needed:.2f} | |")
    return "\n".join(lines) + "\n"


RENDERERS = {"fidelity": fidelity, "cache": cache, "overhead": overhead}
MARKED = re.compile(r"(<!-- table: (\w+) (\S+) -->\n)(.*?)(<!-- end table -->)", re.S)


def render_document(text):
    def table(match):
        data = json.loads((ROOT / match.group(3)).read_text())
        return match.group(1) + RENDERERS[match.group(2)](data) + match.group(5)
    return MARKED.sub(table, text)


def main(kind, paths):
    if kind == "pair":
        json.dump(pair(paths), sys.stdout, indent=1)
        return
    if kind in ("check", "write"):
        document = pathlib.Path(paths[0])
        text = document.read_text()
        rendered = render_document(text)
        if kind == "write":
            document.write_text(rendered)
        elif rendered != text:
            sys.exit(f"{document}: a measured table differs from what its data renders; "
                     f"run python3 bench/timing_tables.py write {document}")
        return
    data = json.load(open(paths[0]))
    sys.stdout.write(RENDERERS[kind](data))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
