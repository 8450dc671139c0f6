# Verifier timeline: python3 .device/prof/verprof.py ROWPROF.cu label  (SEEDS env)
import ctypes, json, pathlib, sys, importlib.util, os, torch
repo = pathlib.Path.cwd(); task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
s = check._NativeSampler(pathlib.Path(sys.argv[1]))
s._library.d2k_row_profile.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
for seed in [int(x) for x in os.environ.get("SEEDS", "1234").split()]:
    entry = [e for e in config["workloads"] if sys.argv[2] in e["label"]][0]
    args = gi.get_inputs(check._workload_config(config, entry, seed))
    batch = args[0].shape[0]
    for _ in range(5): s.run(*args)
    torch.cuda.synchronize()
    n = batch + 140
    buf = (ctypes.c_uint64 * (32 * n))()
    assert s._library.d2k_row_profile(buf, n) == 0
    g0 = min(buf[32 * r] for r in range(batch))
    rel = lambda t: (t - g0) / 1e3 if t else float("nan")
    print(f"## seed {seed} {entry['label']}: deciders end +{max(rel(buf[32*r+20]) for r in range(batch)):.2f} us")
    flagged = sorted((buf[32 * r + 28], r) for r in range(batch) if buf[32 * r + 3])
    for slot, r in flagged:
        print(f"  flagged slot {slot}: row {r} k {int(args[1][r])} p {float(args[2][r]):.3f} T {float(args[3][r]):.2f}, flag out +{rel(buf[32*r+27]):.2f} us")
    for v in range(batch, n):
        b = buf[32 * v: 32 * v + 32]
        if b[1] == 0 or b[1] < g0 - 10**6: continue
        items = []
        for i in range(min(b[0], 4)):
            t = b[2 + 6 * i: 8 + 6 * i]
            item = ctypes.c_int64(t[5]).value
            items.append(f"item {item:4d}: ask +{rel(t[0]):.2f} ready +{rel(t[1]):.2f} summed +{rel(t[2]):.2f} arrived +{rel(t[3]):.2f} done +{rel(t[4]):.2f}" if item >= 0 else f"none: ask +{rel(t[0]):.2f} exit +{rel(t[1]):.2f}")
        print(f"  verifier {v - batch:3d} start +{rel(b[1]):.2f}: " + " | ".join(items))
