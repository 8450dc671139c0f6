# Graph-replay time (us per call) of the two-kernel expert with parts left out (D2K_ABLATE) and
# poll intervals. Usage: python3 .device/prof/ablate2.py ABLATE2.cu [labels...]
import json, os, pathlib, sys, importlib.util, torch
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check, check_support
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
source = pathlib.Path(sys.argv[1]); labels = sys.argv[2:] or ["b64", "b128", "b256", "b1"]
builds = {"base": check._NativeSampler(source), "poll0": check._NativeSampler(source, ["-DD2K_POLL_NS=0"]),
          "poll256": check._NativeSampler(source, ["-DD2K_POLL_NS=256"])}
extra = {n: check._NativeSampler(pathlib.Path(f)) for n, f in (a.split("=", 1) for a in os.environ.get("D2K_EXTRA", "").split(",") if a)}
builds.update(extra)
cases = [("base", 7, "both"), ("poll0", 7, "poll 0 ns"), ("poll256", 7, "poll 256 ns"), ("base", 7, "both again"),
         ("base", 3, "no verifiers"), ("base", 1, "k1"), ("base", 2, "k2 without verifiers")]
cases += [(n, 7, n) for n in extra]
for label in labels:
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    args = gi.get_inputs(check._workload_config(config, entry, 1234))
    for b in builds.values():
        os.environ["D2K_ABLATE"] = "7"
        for _ in range(3): b.run(*args)
    torch.cuda.synchronize()
    out = []
    for name, mask, what in cases:
        if not mask & 4 and "b128" in label:
            continue  # b128 flags rows: without verifiers its samples are not written
        if not mask & 1 and "b128" in label:
            continue
        os.environ["D2K_ABLATE"] = str(mask)
        t = check_support.time_graph_ms(builds[name].run, args, 200, 7) * 1e3
        out.append(f"{what} {t:.2f}")
    os.environ["D2K_ABLATE"] = "7"
    print(entry["label"], " | ".join(out), flush=True)
