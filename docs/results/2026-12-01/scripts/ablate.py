# Graph-replay time (us per call) of the expert with some kernels left out (D2K_ABLATE mask) and
# of kernel-1 variants, per workload. Usage: python3 .device/prof/ablate.py ABLATE.cu [labels...]
import json, os, pathlib, sys, importlib.util, torch
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check, check_support
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
source = pathlib.Path(sys.argv[1]); labels = sys.argv[2:] or ["b64", "b128", "b256", "b1"]
builds = {"base": check._NativeSampler(source),
          "load_only": check._NativeSampler(source, ["-DD2K_K1_LOAD_ONLY"]),
          "no_list": check._NativeSampler(source, ["-DD2K_K1_NO_LIST"]),
          "k1_pdl": check._NativeSampler(source, ["-DD2K_K1_PDL"])}
cases = [("base", 7, "all three"), ("k1_pdl", 7, "all three, kernel 1 by PDL"), ("k1_pdl", 7, "kernel 1 by PDL again"), ("base", 7, "all three again"), ("base", 3, "k1+k2"), ("base", 1, "k1"), ("base", 6, "k2+k3"),
         ("base", 2, "k2"), ("base", 4, "k3"), ("no_list", 1, "k1 without list writes"),
         ("load_only", 1, "k1 load+scale+max only")]
for label in labels:
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    args = gi.get_inputs(check._workload_config(config, entry, 1234))
    for b in builds.values():
        os.environ["D2K_ABLATE"] = "7"
        for _ in range(3): b.run(*args)  # the workspace holds this input's records and lists
    torch.cuda.synchronize()
    out = []
    for name, mask, what in cases:
        if not mask & 1 and "b128" in label:
            continue  # kernel 3's counters are reset by kernel 1, and b128 flags rows
        os.environ["D2K_ABLATE"] = str(mask)
        t = check_support.time_graph_ms(builds[name].run, args, 200, 7) * 1e3
        out.append(f"{what} {t:.2f}")
    os.environ["D2K_ABLATE"] = "7"
    print(entry["label"], " | ".join(out), flush=True)
