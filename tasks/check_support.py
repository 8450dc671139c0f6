"""Helpers shared by the tasks' GPU check scripts (expert/check.py, baseline/check_baseline.py).

Not a task: the task loader only takes folders that hold a config.json. A check script puts
this folder on sys.path and imports it as `check_support`.
"""

import importlib.util
import statistics

import torch


def load_module(path, name):
    """The Python file at `path`, imported as a module called `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(out, ref, atol, rtol, dtype=torch.float32):
    """(relative norm error, fraction of elements outside atol + rtol * |ref|, all finite),
    computed in `dtype`."""
    out_d = out.to(dtype)
    ref_d = ref.to(dtype)
    diff = out_d - ref_d
    rel = (torch.linalg.vector_norm(diff) / torch.linalg.vector_norm(ref_d).clamp_min(1e-30)).item()
    bad = (diff.abs() > atol + rtol * ref_d.abs()).to(dtype).mean().item()
    finite = bool(torch.isfinite(out_d).all().item())
    return rel, bad, finite


def time_back_to_back_ms(fn, args, calls):
    """Per-call milliseconds of `calls` back-to-back calls between two CUDA events, after one
    warm-up call."""
    fn(*args)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn(*args)
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / calls


def time_graph_ms(fn, args, calls, replays):
    """Median per-call milliseconds over `replays` replays of one CUDA graph of `calls` calls."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn(*args)  # compile and warm the allocator outside the capture
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn(*args)
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop) / calls)
    del graph
    return statistics.median(times)
