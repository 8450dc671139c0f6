"""Runs the expert on one registered workload inside a profiler range, for Nsight Compute.

    python3 tasks/topk_topp_sampling/expert/ncu_driver.py SOURCE.cu WORKLOAD CALLS [--lineinfo]

WORKLOAD is a part of a workload label (b64, b128, b256). The sampler is built as check.py builds
it, called five times to warm up, then CALLS times between cudaProfilerStart and Stop, so
`ncu --profile-from-start off` sees only those calls. --lineinfo builds with source lines, so that
compute-sanitizer names them (tools/gpu_check.sh's `sanitize` step). The measurements of 2026-12-01
(docs/history.md) were taken with these commands, through a copy of this driver, from the repository root
on the GPU machine:

    K='regex:chunk_kernel|decide_kernel|verify_kernel'
    D=tasks/topk_topp_sampling/expert/ncu_driver.py
    S=tasks/topk_topp_sampling/expert/solution.cu
    # issue rate, stalls and instruction counts of each kernel
    ncu --profile-from-start off -k "$K" -c 3 --section SpeedOfLight --section SchedulerStats \
        --section WarpStateStats --section InstructionStats python3 $D $S b64 1
    # executed instructions per SASS instruction of kernel 1
    ncu --profile-from-start off -k regex:chunk_kernel -c 1 --section SourceCounters -o /tmp/r \
        python3 $D $S b64 1
    ncu -i /tmp/r.ncu-rep --page source --csv --print-source sass
    # each kernel's own duration at the machine's clocks, caches left warm
    ncu --profile-from-start off --clock-control none --cache-control none -k "$K" \
        --metrics gpu__time_duration.sum python3 $D $S b64 3
"""

import json
import pathlib
import sys

import torch

EXPERT_DIR = pathlib.Path(__file__).resolve().parent
TASK_DIR = EXPERT_DIR.parent
sys.path.insert(0, str(EXPERT_DIR))
import check  # noqa: E402  (puts tasks/ on the path for check_support)
import check_support  # noqa: E402


def main():
    lineinfo = "--lineinfo" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--lineinfo"]
    source, label, calls = pathlib.Path(args[0]), args[1], int(args[2])
    inputs = check_support.load_module(TASK_DIR / "get_inputs.py", "sampling_get_inputs")
    config = json.loads((TASK_DIR / "config.json").read_text())
    entry = next(e for e in config["workloads"] if label in e["label"])
    sampler = check._NativeSampler(source, ("-lineinfo",) if lineinfo else ())
    call_args = inputs.get_inputs(check._workload_config(config, entry, 1234))
    for _ in range(5):
        sampler.run(*call_args)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _ in range(calls):
        sampler.run(*call_args)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    main()
