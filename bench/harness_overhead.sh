#!/usr/bin/env bash
# Harness overhead per call, on a GPU host: the same one-kernel candidate (the gpu_scale_add
# fixture's Triton kernel, 4096 elements, launch-bound) timed three ways:
#   1. bare: bench/bare_launch.py, no harness (eager launches, and a plain CUDA graph);
#   2. d2k eval --timing events: the full pipeline, Python run() per call;
#   3. d2k eval --timing graph:  the full pipeline, calls captured into a CUDA graph.
# (2) - (1 eager) and (3) - (1 graph) are what the harness adds per call. Prints a table and
# writes the raw JSON next to it. Usage: bench/harness_overhead.sh D2K_BINARY OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
d2k=$1
out=$2
task=tests/fixtures/tasks/gpu_scale_add
solution=tests/fixtures/solutions/gpu_scale_add/triton_kernel.py
python3 bench/bare_launch.py 4096 > "$out/overhead_bare.json"
for method in events graph; do
  "$d2k" eval "$task" --solution "$solution" --workload tiny --timing "$method" --no-store --json \
    > "$out/overhead_d2k_$method.json"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
bare = json.load(open(f"{out}/overhead_bare.json"))
def mean(method):
    record = json.load(open(f"{out}/overhead_d2k_{method}.json"))
    latency = record["workloads"][0]["latency"]
    return latency["mean_s"], latency["cv"]
events, events_cv = mean("events")
graph, graph_cv = mean("graph")
rows = [("bare eager launches", bare["eager_mean_s"], ""),
        ("bare CUDA graph", bare["graph_mean_s"], ""),
        ("d2k events mode", events, f"{events_cv*100:.2f}%"),
        ("d2k graph mode", graph, f"{graph_cv*100:.2f}%")]
print("harness overhead, 4096-element Triton kernel (per call)")
for name, seconds, cv in rows:
    print(f"  {name:<22} {seconds*1e6:9.3f} us  {cv}")
print(f"  events mode - bare eager: {(events - bare['eager_mean_s'])*1e6:+.3f} us")
print(f"  graph mode  - bare graph: {(graph - bare['graph_mean_s'])*1e6:+.3f} us")
PY
