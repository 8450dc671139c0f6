# check.py's phase counters (profiling builds) of several sources, on every workload.
#   python3 phases.py A.cu B.cu ...     (inputs from seed $SEED, default 1234)
import json, os, pathlib, sys
repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check, check_support
config = json.loads((task / "config.json").read_text())
inputs = check_support.load_module(task / "get_inputs.py", "sampling_get_inputs")
for source in sys.argv[1:]:
    check._print_phases(pathlib.Path(source), config, inputs, int(os.environ.get("SEED", "1234")))
