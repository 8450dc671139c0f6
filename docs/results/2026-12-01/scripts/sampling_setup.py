# What the per-seed scripts (flags.py, rows.py, timeline2.py) share: the sampling task's check
# module, input generator and config, a native build of SOURCE, and the workload named LABEL.
# Run from the repository root:  python3 SCRIPT.py SOURCE.cu LABEL SEED...
import importlib.util, json, pathlib, sys

repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check, check_support  # noqa: E402
_spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py")
gi = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())


def parse_args():
    """(sampler, workload entry, seeds) from SOURCE.cu LABEL SEED..."""
    source, label, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
    entry = [e for e in config["workloads"] if label in e["label"]][0]
    return check._NativeSampler(pathlib.Path(source)), entry, seeds


def inputs(entry, seed):
    return gi.get_inputs(check._workload_config(config, entry, seed))


def timeline_of_one_call(sampler, args, buf):
    """Three warm-up calls, then one call of a make_timeline2.py build whose stamps land in buf."""
    import ctypes, torch
    lib = sampler._library
    for _ in range(3):
        sampler.run(*args)
    torch.cuda.synchronize()
    assert lib.d2k_tl_reset() == 0
    sampler.run(*args)
    torch.cuda.synchronize()
    assert lib.d2k_tl_read(buf.ctypes.data_as(ctypes.c_void_p)) == 0
    return buf
