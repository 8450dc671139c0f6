"""Times the gpu_scale_add fixture's Triton kernel with no harness around it.

The harness-overhead benchmark (bench/harness_overhead.sh) compares these numbers with what
`d2k eval --timing events|graph` reports for the same kernel through the full pipeline:
  eager: N back-to-back launches from Python between two CUDA events, per launch;
  graph: one CUDA graph of N launches, replayed 5 times, each replay timed by two events.
Prints one JSON object.
"""
import importlib.util
import json
import math
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location(
    "kernel", ROOT / "tests/fixtures/solutions/gpu_scale_add/triton_kernel.py")
kernel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kernel)

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
min_seconds = 1.0
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
stream = torch.cuda.Stream()
torch.cuda.set_stream(stream)


def timed(fn, count):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(count):
        fn()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) * 1e-3


def launch():
    kernel.run(x, y, 1.5)


for _ in range(10):
    launch()
estimate = timed(launch, 100) / 100
calls = max(1, math.ceil(min_seconds / estimate))
eager = [timed(launch, calls) / calls for _ in range(5)]

graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph, stream=stream):
    for _ in range(calls):
        launch()
graph.replay()
replays = [timed(graph.replay, 1) / calls for _ in range(5)]
print(json.dumps({"n": n, "calls_per_sample": calls,
                  "eager_mean_s": sum(eager) / len(eager), "eager_samples_s": eager,
                  "graph_mean_s": sum(replays) / len(replays), "graph_samples_s": replays}))
