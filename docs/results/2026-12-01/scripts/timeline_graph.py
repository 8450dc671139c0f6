# Timelines of two consecutive calls inside a CUDA graph replay (sources made by make_timeline.py),
# µs from the first call's kernel 1 start: seeds alternate parity, so each call fills its own half.
#   python3 timeline_graph.py A.cu B.cu -- b64 b128
import ctypes, pathlib, sys, torch
import numpy as np
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sampling_setup import labelled_inputs, parse_sources_and_labels  # noqa: E402
builds, labels = parse_sources_and_labels()
buf = np.zeros(2 << 20, dtype=np.uint64)
for label in labels:
    entry, args, batch, chunks = labelled_inputs(label)
    for name, b in builds:
        lib = b._library
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            b.run(*args[:4], 1000); b.run(*args[:4], 1001)
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(8):
                b.run(*args[:4], 1000 + i)
        for rep in range(3):
            graph.replay(); torch.cuda.synchronize()
            assert lib.d2k_tl_reset() == 0
            start = torch.cuda.Event(enable_timing=True); stop = torch.cuda.Event(enable_timing=True)
            start.record(); graph.replay(); stop.record(); torch.cuda.synchronize()
            per_call = start.elapsed_time(stop) / 8 * 1e3
            assert lib.d2k_tl_read(buf.ctypes.data_as(ctypes.c_void_p)) == 0
            calls = []
            for half in (0, 1):
                o = half << 20
                k1 = buf[o:o + 2 * batch * chunks].reshape(-1, 2).astype(np.int64)
                d = buf[o + (1 << 19):o + (1 << 19) + 8 * batch].reshape(-1, 8).astype(np.int64)
                calls.append(dict(k1s=k1[:, 0], k1e=k1[:, 1], ds=d[:, 0], de=d[:, 5], dc=d[:, 4] - d[:, 1],
                                  ve=int(buf[o + (1 << 20) - 2])))
            t0 = calls[0]["k1s"].min()
            us = lambda t: (t - t0) / 1e3
            out = []
            for n, c in zip(("A", "B"), calls):
                out.append(f"{n}: k1 start {us(c['k1s'].min()):.2f} p80 {us(np.percentile(c['k1s'], 80)):.2f} end {us(c['k1e'].max()):.2f}; "
                           f"deciders start {us(c['ds'].min()):.2f}-{us(c['ds'].max()):.2f} end med {us(np.median(c['de'])):.2f} max {us(c['de'].max()):.2f}; "
                           f"verifiers end {us(c['ve']) if c['ve'] else float('nan'):.2f}")
            print(f"{entry['label']} {name} rep {rep} ({per_call:.2f} us/call): " + " | ".join(out), flush=True)
        del graph
