# A/B graph-replay timing (us per call) of several sources, interleaved, three rounds per workload.
#   python3 ab.py A.cu B.cu ... -- labels   (from the repository root)
#   Inputs from seed $SEED (default 1234).
import pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sampling_setup import check_support, inputs, parse_sources_and_labels, seed_from_env, workload  # noqa: E402
builds, labels = parse_sources_and_labels(["b64", "b128", "b256", "b1"])
for label in labels:
    entry = workload(label)
    args = inputs(entry, seed_from_env())
    times = {n: [] for n, _ in builds}
    for _ in range(3):
        for n, b in builds:
            times[n].append(check_support.time_graph_ms(b.run, args, 200, 7) * 1e3)
    print(entry["label"], " | ".join(f"{n} " + "/".join(f"{t:.2f}" for t in ts) for n, ts in times.items()), flush=True)
