#!/usr/bin/env bash
# The GPU check on any host with an NVIDIA GPU and the CUDA toolkit: builds d2k in build-gpu/ and
# runs the named steps, each through `d2k` (tools/gpucheck/, whose docstring lists the steps).
#   tools/gpu_check.sh [STEP ...]        (default: check = tests quick overhead)
#   OUT=DIR tools/gpu_check.sh suite     (everything lands in DIR, default ./gpu-check-out)
# Everything printed, the commands' output included, is also appended to $OUT/gpu_check.log.
set -euo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
PYTHONPATH=$PWD/tools${PYTHONPATH:+:$PYTHONPATH} python3 -u -m gpucheck "$@" 2>&1 \
  | tee -a "$OUT/gpu_check.log"
