# One call's timeline (µs from kernel 1's first CTA start) of a make_timeline2.py source, per seed:
# kernel 1's last end, the deciders' start and end, the verifiers' last exit.
#   python3 timeline2.py SOURCE.cu LABEL SEED...
import ctypes, json, pathlib, sys, importlib.util, torch
import numpy as np
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
source, label, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
b = check._NativeSampler(pathlib.Path(source)); lib = b._library
entry = [e for e in config["workloads"] if label in e["label"]][0]
buf = np.zeros(2 << 20, dtype=np.uint64)  # both halves, as d2k_tl_read copies them
for seed in seeds:
    args = gi.get_inputs(check._workload_config(config, entry, seed))
    batch, vocab = args[0].shape
    chunks = (vocab + 8191) // 8192
    for rep in range(3):
        for _ in range(3): b.run(*args)
        torch.cuda.synchronize()
        assert lib.d2k_tl_reset() == 0
        b.run(*args); torch.cuda.synchronize()
        assert lib.d2k_tl_read(buf.ctypes.data_as(ctypes.c_void_p)) == 0
        k1 = buf[:2 * batch * chunks].reshape(-1, 2).astype(np.int64)
        t0 = k1[:, 0].min(); en = (k1[:, 1] - t0) / 1e3
        d = buf[1 << 19:(1 << 19) + 8 * (batch + 132)].reshape(-1, 8).astype(np.int64)
        dec = d[:batch]; ver = d[batch:]
        start = (dec[:, 0] - t0) / 1e3; end = (dec[:, 5] - t0) / 1e3
        vend = ver[:, 5][ver[:, 5] > 0]
        vend = (vend - t0) / 1e3 if len(vend) else np.array([float('nan')])
        slow = np.argsort(end)[-4:]
        print(f"{entry['label']} seed {seed} rep {rep}: k1 last end {en.max():.2f}; deciders start {start.min():.2f}-{start.max():.2f}, "
              f"end med {np.median(end):.2f} max {end.max():.2f} (rows {slow.tolist()}); verifiers last exit {vend.max():.2f}, "
              f"median exit {np.median(vend):.2f}", flush=True)
