# A/B graph-replay timing (us per call) of several sources, interleaved, three rounds per workload.
#   python3 .device/prof/ab.py A.cu B.cu ... -- labels
#   Inputs from seed $SEED (default 1234).
import json, pathlib, sys, importlib.util, torch
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check, check_support
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
argv = sys.argv[1:]
sources = argv[:argv.index("--")] if "--" in argv else argv
labels = argv[argv.index("--") + 1:] if "--" in argv else ["b64", "b128", "b256", "b1"]
builds = [(pathlib.Path(s).stem, check._NativeSampler(pathlib.Path(s))) for s in sources]
for label in labels:
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    args = gi.get_inputs(check._workload_config(config, entry, int(__import__("os").environ.get("SEED", "1234"))))
    times = {n: [] for n, _ in builds}
    for _ in range(3):
        for n, b in builds:
            times[n].append(check_support.time_graph_ms(b.run, args, 200, 7) * 1e3)
    print(entry["label"], " | ".join(f"{n} " + "/".join(f"{t:.2f}" for t in ts) for n, ts in times.items()), flush=True)
