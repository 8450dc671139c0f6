#!/usr/bin/env bash
# Sets everything up and runs d2k's main job: on a machine with a CUDA GPU, evaluates the Muon
# task's reference and baseline; without one, evaluates the CPU demo task's reference, baseline
# and expert, so the whole pipeline can be seen anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
tools/build.sh > /dev/null
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  task=muon_orthogonalization
  impls=(reference baseline)
else
  echo "No CUDA GPU here: running the CPU demo task instead of the Muon task."
  task=cpu_demo_softmax
  impls=(reference baseline expert)
fi
status=0
for impl in "${impls[@]}"; do
  build/d2k eval "$task" --impl "$impl" || status=1
  echo
done
build/d2k results --task "$task" --limit 5
exit $status
