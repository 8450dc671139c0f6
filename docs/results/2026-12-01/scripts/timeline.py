# One call's timeline of sources made by make_timeline.py (µs from kernel 1's first CTA start).
#   python3 timeline.py A.cu B.cu -- b64 b256      (inputs from seed $SEED, default 1234)
import ctypes, pathlib, sys
import numpy as np
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sampling_setup import labelled_inputs, parse_sources_and_labels, timeline_of_one_call  # noqa: E402
builds, labels = parse_sources_and_labels()
buf = np.zeros(2 << 20, dtype=np.uint64)  # both seed-parity halves, as d2k_tl_read copies them
for name, b in builds:
    occ = (ctypes.c_int * 4)()
    print(name, "kernel 1 regs/static smem/local/CTAs per SM:", b._library.d2k_k1_occupancy(occ), list(occ), flush=True)
for label in labels:
    entry, args, batch, chunks = labelled_inputs(label)
    for name, b in builds:
        for rep in range(3):
            timeline_of_one_call(b, args, buf)
            # The last slot of the first half (the sampling seed is even).
            if rep == 0: print(name, "kernel 1 buffer at shared offset", int(buf[(1 << 20) - 1]), flush=True)
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
