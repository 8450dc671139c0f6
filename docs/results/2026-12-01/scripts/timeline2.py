# One call's timeline (µs from kernel 1's first CTA start) of a make_timeline2.py source, per seed:
# kernel 1's last end, the deciders' start and end, the verifiers' last exit.
#   python3 timeline2.py SOURCE.cu LABEL SEED...
import sys, pathlib
import numpy as np
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sampling_setup import parse_args, inputs, timeline_of_one_call  # noqa: E402
b, entry, seeds = parse_args()
buf = np.zeros(2 << 20, dtype=np.uint64)  # both halves, as d2k_tl_read copies them
for seed in seeds:
    args = inputs(entry, seed)
    batch, vocab = args[0].shape
    chunks = (vocab + 8191) // 8192
    for rep in range(3):
        timeline_of_one_call(b, args, buf)
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
