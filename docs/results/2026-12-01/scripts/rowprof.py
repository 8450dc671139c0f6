# Per-row decision times: python3 .device/prof/rowprof.py ROWPROF.cu [labels...]
# Inputs from each seed of $SEEDS (default 1234), $REPS reps (default 3). The marks after 'sums' (the
# proposals' and the weighing's ends) come from make_rowprof_marks.py; without it they are not set.
import ctypes, json, pathlib, sys, importlib.util, torch
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
s = check._NativeSampler(pathlib.Path(sys.argv[1]))
s._library.d2k_row_profile.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
import os, itertools
for seed, label in itertools.product([int(x) for x in os.environ.get("SEEDS", "1234").split()], sys.argv[2:] or ["b128", "b64"]):
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    print("## seed", seed)
    args = gi.get_inputs(check._workload_config(config, entry, seed))
    batch = args[0].shape[0]
    for rep in range(int(os.environ.get("REPS", "3"))):
        for _ in range(5): s.run(*args)
        torch.cuda.synchronize()
        buf = (ctypes.c_uint64 * (32 * batch))()
        assert s._library.d2k_row_profile(buf, batch) == 0
        s._library.d2k_last_verify_end.restype = ctypes.c_uint64
        verify_end = s._library.d2k_last_verify_end()
        rows = []
        for r in range(batch):
            b = buf[32 * r: 32 * r + 32]
            cyc = max(b[4:20]) - b[1]
            rows.append((b[0], b[20], cyc, b[2], b[3], r, [b[i] - b[1] if b[i] else 0 for i in (21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31)]))
        g0 = min(x[0] for x in rows)
        ends = sorted(rows, key=lambda x: -x[1])
        k = args[1].tolist(); p = args[2].tolist(); t = args[3].tolist()
        print(f"== {entry['label']} rep {rep}: first start -> last end {(ends[0][1] - g0) / 1e3:.2f} us; "
              f"starts spread {(max(x[0] for x in rows) - g0) / 1e3:.2f} us; cycles median {sorted(x[2] for x in rows)[batch // 2]}; flagged rows {sum(1 for x in rows if x[4])}; verifiers end +{(verify_end - g0) / 1e3:.2f} us")
        for g, e, cyc, rounds, flag, r, marks in ends[:12]:
            print(f"  row {r:3d} k {k[r]:3d} p {p[r]:.3f} T {t[r]:.2f}: start +{(g - g0) / 1e3:5.2f} end +{(e - g0) / 1e3:5.2f} us, {cyc:6d} cycles (records {marks[0]}, lists {marks[1]}, weights {marks[2]}, test {marks[3]}), rounds {rounds}, flagged {flag}")
        import statistics
        for kk in sorted(set(k)):
            ms = [x[6] for x in rows if k[x[5]] == kk]
            print(f"  k={kk} median marks: records {statistics.median(m[0] for m in ms):.0f} lists {statistics.median(m[1] for m in ms):.0f} weights {statistics.median(m[2] for m in ms):.0f} test {statistics.median(m[3] for m in ms):.0f} (settled {statistics.median(m[4] for m in ms):.0f} sums {statistics.median(m[5] for m in ms):.0f}; proposals drawn by warp 0-3 {statistics.median(m[6] for m in ms):.0f}/{statistics.median(m[7] for m in ms):.0f}/{statistics.median(m[8] for m in ms):.0f}/{statistics.median(m[9] for m in ms):.0f}, list weighed by warp 15 {statistics.median(m[10] for m in ms):.0f}) end {statistics.median(x[2] for x in rows if k[x[5]] == kk):.0f}")
        by_k = {}
        for g, e, cyc, rounds, flag, r, marks in rows:
            by_k.setdefault(k[r], []).append((cyc, rounds))
        print("  by k: " + "; ".join(f"k={kk}: n {len(v)}, cycles mean {sum(c for c, _ in v) / len(v):.0f} max {max(c for c, _ in v)}, rounds mean {sum(x for _, x in v) / len(v):.2f} max {max(x for _, x in v)}" for kk, v in sorted(by_k.items())))
