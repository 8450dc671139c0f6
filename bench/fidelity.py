"""Times implementations outside d2k, on the inputs a d2k evaluation timed, for the fidelity
table of docs/timing.md.

For every workload of a stored `d2k eval --json` record, the inputs are rebuilt with the task's
get_inputs and the seed of the record's last timed call (the timing trial's own input set), and
the implementation is timed two independent ways:

  do_bench   triton.testing.do_bench: a 256 MB L2 flush before every call (outside the call's
             events), the mean of its per-call event timings;
  graph      a bare CUDA-graph loop: N calls captured into one graph on one input set (hot), the
             mean over replays lasting at least a second each.

Python implementations are imported; native ones (.cu) are called through their C ABI with
ctypes, from the shared object `d2k eval --build-only` built.

    python3 bench/fidelity.py --d2k build/d2k --out fidelity.json RECORD.json [RECORD.json ...]

Prints one row per workload and writes them all as JSON.
"""

import argparse
import ctypes
import importlib.util
import json
import pathlib
import subprocess
import sys

import torch
import triton.testing

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    sys.path.pop(0)
    return module


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32), ("int64_value", ctypes.c_int64),
                ("float64_value", ctypes.c_double)]


class Call(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_int32), ("num_inputs", ctypes.c_int32),
                ("inputs", ctypes.POINTER(DLTensor)), ("num_outputs", ctypes.c_int32),
                ("outputs", ctypes.POINTER(DLTensor)), ("num_params", ctypes.c_int32),
                ("params", ctypes.POINTER(Param)), ("stream", ctypes.c_void_p),
                ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_uint64)]


DL_CODES = {torch.float32: (2, 32), torch.float16: (2, 16), torch.bfloat16: (4, 16),
            torch.float64: (2, 64), torch.int64: (0, 64), torch.int32: (0, 32),
            torch.int16: (0, 16), torch.int8: (0, 8), torch.uint8: (1, 8), torch.bool: (6, 8)}


def dl_tensor(t, keep):
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    strides = (ctypes.c_int64 * t.dim())(*t.stride())
    keep += [shape, strides]
    code, bits = DL_CODES[t.dtype]
    return DLTensor(t.data_ptr(), DLDevice(2 if t.is_cuda else 1, 0), t.dim(),
                    DLDataType(code, bits, 1), shape, strides, 0)


def native_run(library, names, args, outputs):
    """A run(*args) for a native candidate: one d2k_native_run on the given output tensors."""
    lib = ctypes.CDLL(str(library))
    keep = []
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    inputs = (DLTensor * len(tensors))(*[dl_tensor(t, keep) for t in tensors])
    outs = (DLTensor * len(outputs))(*[dl_tensor(t, keep) for t in outputs])
    params = [Param(n.encode(), 0 if isinstance(a, int) else 1, a if isinstance(a, int) else 0,
                    a if isinstance(a, float) else 0.0)
              for n, a in zip(names, args) if not isinstance(a, torch.Tensor)]
    param_array = (Param * max(1, len(params)))(*params)
    call = Call(1, len(tensors), inputs, len(outputs), outs, len(params), param_array,
                torch.cuda.current_stream().cuda_stream, None, 0)
    error = ctypes.create_string_buffer(4096)
    if hasattr(lib, "d2k_native_setup"):
        workspace_bytes = ctypes.c_uint64(0)
        if lib.d2k_native_setup(ctypes.byref(call), ctypes.byref(workspace_bytes), error, 4096):
            raise RuntimeError(error.value.decode())
        if workspace_bytes.value:
            workspace = torch.empty(workspace_bytes.value, dtype=torch.uint8, device="cuda")
            keep.append(workspace)
            call.workspace = workspace.data_ptr()
            call.workspace_bytes = workspace_bytes.value

    def run(*_):
        # The stream current at the call: a graph capture switches it.
        call.stream = torch.cuda.current_stream().cuda_stream
        if lib.d2k_native_run(ctypes.byref(call), error, 4096):
            raise RuntimeError(error.value.decode())
        return outputs

    run.keep = (keep, inputs, outs, param_array, call)
    return run


def graph_loop(fn, args, min_seconds=1.0, samples=5):
    """Mean per-call seconds of replays of one graph of calls on one input set."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn(*args)
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn(*args)
    end.record()
    torch.cuda.synchronize()
    calls = max(1, min(4096, int(0.02 / max(start.elapsed_time(end) * 1e-3, 1e-7))))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn(*args)
    graph.replay()
    torch.cuda.synchronize()
    start.record()
    graph.replay()
    end.record()
    torch.cuda.synchronize()
    replays = max(1, int(min_seconds * 1.05 / (start.elapsed_time(end) * 1e-3)) + 1)
    per_call = []
    for _ in range(samples):
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        per_call.append(start.elapsed_time(end) * 1e-3 / (replays * calls))
    return sum(per_call) / len(per_call)


def implementation(record, d2k):
    task_dir = ROOT / "tasks" / record["task"]
    path = pathlib.Path(record["impl_path"])
    if path.suffix == ".py":
        return task_dir, path, None
    built = subprocess.run([d2k, "eval", str(task_dir), "--solution", str(path), "--build-only",
                            "--json"], check=True, capture_output=True, text=True)
    return task_dir, path, pathlib.Path(json.loads(built.stdout)["library"])


def measure(record, d2k):
    task_dir, path, library = implementation(record, d2k)
    config = json.loads((task_dir / "config.json").read_text())
    inputs_module = load_module("fidelity_inputs", task_dir / "get_inputs.py")
    reference = load_module("fidelity_reference", task_dir / "reference.py")
    module = load_module("fidelity_impl", path) if library is None else None
    names = config["evaluation"]["arguments"]
    rows = []
    for workload in record["workloads"]:
        if workload["verdict"] != "passed":
            continue
        params = next(w for w in config["workloads"] if w["label"] == workload["workload"])
        timed = next(t for t in workload["trials"] if t["kind"] == "last_timed_call")
        args = inputs_module.get_inputs({**config.get("fixed_params", {}), **params,
                                         "seed": timed["seed"], "device": "cuda"})
        if module is not None:
            fn = module.run
        else:
            outputs = reference.run(*args)
            outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
            fn = native_run(library, names, args, [torch.empty_like(o) for o in outputs])
        row = {"task": record["task"], "impl": record["impl_kind"], "workload": workload["workload"],
               "d2k_s": workload["latency"]["mean_s"], "d2k_method": workload["latency"]["method"],
               "d2k_cache": workload["latency"].get("cache_policy", "")}
        row["do_bench_s"] = triton.testing.do_bench(lambda: fn(*args), warmup=100, rep=500,
                                                    return_mode="mean") * 1e-3
        try:
            row["graph_s"] = graph_loop(fn, args)
        except Exception as error:  # a call that cannot be captured still has its do_bench row
            row["graph_s"] = None
            row["graph_error"] = str(error).splitlines()[0][:200]
        rows.append(row)
        del args
        torch.cuda.empty_cache()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d2k", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("records", nargs="+")
    options = parser.parse_args()
    rows = []
    for path in options.records:
        rows += measure(json.loads(pathlib.Path(path).read_text()), options.d2k)
    pathlib.Path(options.out).write_text(json.dumps(rows, indent=1))
    print(f"{'task':<24} {'impl':<9} {'workload':<36} {'d2k':>11} {'do_bench':>11} {'graph':>11}")
    for r in rows:
        graph = f"{r['graph_s'] * 1e6:9.1f}us" if r["graph_s"] else "   n/a"
        print(f"{r['task'][:24]:<24} {r['impl']:<9} {r['workload'][:36]:<36} "
              f"{r['d2k_s'] * 1e6:9.1f}us {r['do_bench_s'] * 1e6:9.1f}us {graph}")


if __name__ == "__main__":
    main()
