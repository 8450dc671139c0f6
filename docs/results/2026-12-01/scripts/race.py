# Builds a source with line info and calls it on one workload (for compute-sanitizer).
#   compute-sanitizer --tool racecheck python3 .device/prof/race.py SOURCE.cu b128 [calls]
import json, pathlib, sys, importlib.util, torch
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check
spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py"); gi = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
source, label = pathlib.Path(sys.argv[1]), sys.argv[2]
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 1
b = check._NativeSampler(source, defines=("-lineinfo",))
entry = [e for e in config["workloads"] if label in e["label"]][0]
args = gi.get_inputs(check._workload_config(config, entry, 1234))
for _ in range(calls):
    out = b.run(*args)
torch.cuda.synchronize()
print(label, "samples", out[:8].tolist())
