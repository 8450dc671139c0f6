# Timelines of two consecutive calls inside a CUDA graph replay (sources made by make_timeline.py),
# µs from the first call's kernel 1 start: seeds alternate parity, so each call fills its own half.
#   python3 timeline_graph.py A.cu B.cu -- b64 b128
import ctypes, json, os, pathlib, sys, importlib.util, torch
import numpy as np
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
argv = sys.argv[1:]
sources = argv[:argv.index("--")]
labels = argv[argv.index("--") + 1:]
builds = [(pathlib.Path(s).stem, check._NativeSampler(pathlib.Path(s))) for s in sources]
buf = np.zeros(2 << 20, dtype=np.uint64)
for label in labels:
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    args = gi.get_inputs(check._workload_config(config, entry, int(os.environ.get("SEED", "1234"))))
    batch, vocab = args[0].shape
    chunks = (vocab + 8191) // 8192
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
