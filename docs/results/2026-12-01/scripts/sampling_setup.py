# What the measurement scripts share: the sampling task's check module, input generator and
# config, native builds of the sources named, and the workloads named by a part of their label.
# Run from the repository root, either
#   python3 SCRIPT.py SOURCE.cu LABEL SEED...      (flags.py, rows.py, timeline2.py)
#   python3 SCRIPT.py A.cu B.cu ... -- LABEL...    (ab.py, timeline.py, timeline_graph.py; inputs
#                                                  from seed $SEED, default 1234)
import importlib.util, json, os, pathlib, sys

repo = pathlib.Path.cwd()
task = repo / "tasks/topk_topp_sampling"
sys.path.insert(0, str(task / "expert")); sys.path.insert(0, str(task.parent))
import check, check_support  # noqa: E402
_spec = importlib.util.spec_from_file_location("gi", task / "get_inputs.py")
gi = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(gi)
config = json.loads((task / "config.json").read_text())
__all__ = ["check", "check_support", "gi", "config", "workload", "parse_args", "parse_sources_and_labels",
           "seed_from_env", "inputs", "labelled_inputs", "timeline_of_one_call"]


def workload(label):
    """The registered workload whose label contains `label`."""
    return [e for e in config["workloads"] if label in e["label"]][0]


def parse_args():
    """(sampler, workload entry, seeds) from SOURCE.cu LABEL SEED..."""
    source, label, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
    return check._NativeSampler(pathlib.Path(source)), workload(label), seeds


def parse_sources_and_labels(default_labels=None):
    """([(name, sampler)], labels) from A.cu B.cu ... -- LABEL...; without "--", default_labels."""
    argv = sys.argv[1:]
    if "--" in argv:
        sources, labels = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    elif default_labels is not None:
        sources, labels = argv, default_labels
    else:
        sys.exit(f"usage: {sys.argv[0]} A.cu B.cu ... -- LABEL...")
    return [(pathlib.Path(s).stem, check._NativeSampler(pathlib.Path(s))) for s in sources], labels


def seed_from_env():
    return int(os.environ.get("SEED", "1234"))


def inputs(entry, seed):
    return gi.get_inputs(check._workload_config(config, entry, seed))


def labelled_inputs(label):
    """(entry, inputs from seed $SEED, batch, chunks of 8192 tokens) of the workload named by label."""
    entry = workload(label)
    args = inputs(entry, seed_from_env())
    batch, vocab = args[0].shape
    return entry, args, batch, (vocab + 8191) // 8192


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
