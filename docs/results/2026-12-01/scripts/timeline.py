# One call's timeline of sources made by make_timeline.py (µs from kernel 1's first CTA start).
#   python3 timeline.py A.cu B.cu -- b64 b256      (inputs from seed $SEED, default 1234)
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
buf = np.zeros(1 << 20, dtype=np.uint64)
for name, b in builds:
    occ = (ctypes.c_int * 4)()
    print(name, "kernel 1 regs/static smem/local/CTAs per SM:", b._library.d2k_k1_occupancy(occ), list(occ), flush=True)
for label in labels:
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    args = gi.get_inputs(check._workload_config(config, entry, int(os.environ.get("SEED", "1234"))))
    batch, vocab = args[0].shape
    chunks = (vocab + 8191) // 8192
    for name, b in builds:
        lib = b._library
        for rep in range(3):
            for _ in range(3):
                b.run(*args)
            torch.cuda.synchronize()
            assert lib.d2k_tl_reset() == 0
            b.run(*args)
            torch.cuda.synchronize()
            assert lib.d2k_tl_read(buf.ctypes.data_as(ctypes.c_void_p)) == 0
            if rep == 0: print(name, "kernel 1 buffer at shared offset", int(buf[-1]), flush=True)
            k1 = buf[:2 * batch * chunks].reshape(-1, 2).astype(np.int64)
            t0 = k1[:, 0].min()
            st = (k1[:, 0] - t0) / 1e3; en = (k1[:, 1] - t0) / 1e3; du = en - st
            d = buf[1 << 19:(1 << 19) + 8 * batch].reshape(-1, 8).astype(np.int64)
            wait = (d[:, 0] - t0) / 1e3; end = (d[:, 5] - t0) / 1e3
            lists = d[:, 2] - d[:, 1]; pas = d[:, 3] - d[:, 1]; cyc = d[:, 4] - d[:, 1]
            order = np.sort(st)
            print(f"{entry['label']} {name} rep {rep}: k1 last end {en.max():.2f}, CTA dur med {np.median(du):.2f} "
                  f"p90 {np.percentile(du, 90):.2f}, starts p50/p80/p95/max {np.percentile(st, 50):.2f}/{np.percentile(st, 80):.2f}/{np.percentile(st, 95):.2f}/{st.max():.2f}; "
                  f"decide wait min/max {wait.min():.2f}/{wait.max():.2f} end med/max {np.median(end):.2f}/{end.max():.2f}; "
                  f"cycles lists {np.median(lists):.0f} pass {np.median(pas):.0f} end med/max {np.median(cyc):.0f}/{cyc.max():.0f}", flush=True)
