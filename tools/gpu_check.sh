#!/usr/bin/env bash
# The GPU check, in one call on the H200 machine: builds d2k against the packages carried in
# .device/root (tools/prepare_device.sh), runs the test suite, evaluates the Muon task's
# reference and baseline (Triton, and the CUDA C++ one built through the native ABI), runs the GPU
# failure fixtures (crash, device hang, illegal address) and the harness-overhead benchmark. Each
# mode is meant to fit one device call (10 minutes):
#   check     build, unit tests, Muon baseline and reference, harness overhead
#   native    the CUDA C++ Muon baseline from an empty build cache, again unchanged (cache hit),
#             changed (rebuild), then one more Triton baseline evaluation (repeatability)
#   failures  the GPU failure fixtures (crash, device hang, illegal address)
#   repeat N  N (default 5) independent evaluations of the Muon baseline (repeatability)
# Everything lands in $OUT (or ./gpu-check-out): gpu_check.log, one JSON file per evaluation,
# and the SQLite store.
#
#   tools/gpu_check.sh [check|native|failures|repeat [N]]
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
OUT=${OUT:-$PWD/gpu-check-out}
# A device call brings back at most 8 files: $OUT keeps the log, the evaluation records and the
# store; build logs and benchmark intermediates stay in $LOGS.
LOGS=${LOGS:-/tmp/d2k-gpu-check}
mkdir -p "$OUT" "$LOGS"
exec > >(tee -a "$OUT/gpu_check.log") 2>&1

export D2K_STORE=$OUT/d2k-store.sqlite
[ -d /dev/shm ] && export D2K_SCRATCH=/dev/shm
export PYTHONUNBUFFERED=1
python=$(command -v python3)
build=build-gpu
d2k=$PWD/$build/d2k
failures=0

step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
record() {  # record NAME ARGS...: one d2k evaluation, JSON kept, table printed
  local name=$1; shift
  "$d2k" eval "$@" --json > "$OUT/$name.json"
  local status=$?
  python3 - "$OUT/$name.json" "$name" "$status" <<'PY'
import json, sys
path, name, status = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    record = json.load(open(path))
except Exception as error:
    print(f"{name}: no JSON ({error}), exit {status}")
    sys.exit(0)
print(f"{name}: exit {status}, evaluation {record['id']}, impl {record['impl_kind']}")
for w in record["workloads"]:
    lat = w.get("latency") or {}
    err = max((o["rel_norm_error"] for t in w["trials"] for o in t["outputs"]), default=float("nan"))
    mean = f"{lat['mean_s']*1e3:10.4f} ms cv {lat['cv']*100:5.2f}%" if lat else " " * 25
    print(f"  {w['workload']:<30} {w['verdict']:<13} {mean}  max_err {err:.2e}  {w['reason_code']}")
    if w["verdict"] != "passed":
        print("    " + w["message"][:600].replace("\n", "\n    "))
PY
  return $status
}

step "environment"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
nvcc --version | tail -2
"$python" -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'

step "build"
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PWD/.device/root/usr" -DD2K_PYTHON="$python" > "$LOGS/cmake.log" 2>&1 \
  || { tail -40 "$LOGS/cmake.log"; exit 1; }
cmake --build $build -j "$(nproc)" --target d2k 2>&1 | tail -3
[ -x "$d2k" ] || { echo "build failed"; exit 1; }

if [ "$mode" = repeat ]; then
  step "repeatability: five independent evaluations of the Muon baseline"
  for i in $(seq "${2:-5}"); do
    record "muon_baseline_repeat_$i" muon_orthogonalization --impl baseline --no-cache
  done
  python3 - "$OUT" <<'PY'
import json, statistics, sys
out = sys.argv[1]
import glob
runs = [json.load(open(path)) for path in sorted(glob.glob(f"{out}/muon_baseline*.json"))]
print("workload                        means (ms)                                   cv")
for index, w in enumerate(runs[0]["workloads"]):
    means = [r["workloads"][index]["latency"]["mean_s"] for r in runs if r["workloads"][index].get("latency")]
    cv = statistics.stdev(means) / statistics.mean(means) if len(means) > 1 else float("nan")
    print(f"{w['workload']:<30} {' '.join(f'{m*1e3:8.3f}' for m in means)}  {cv*100:.3f}%")
PY
  exit 0
fi

if [ "$mode" = native ]; then
  solution=tasks/muon_orthogonalization/baseline/solution.cu
  first=production_b32_m2048_n5464
  export D2K_CACHE=$LOGS/native-cache
  rm -rf "$D2K_CACHE"
  step "CUDA C++ Muon baseline through the native ABI, empty build cache"
  record muon_baseline_cuda muon_orthogonalization --solution $solution --no-cache \
    || failures=$((failures + 1))
  step "the same source again: the build must come from the cache"
  record muon_baseline_cuda_unchanged muon_orthogonalization --solution $solution \
    --workload $first --no-cache || failures=$((failures + 1))
  step "a changed source: it must be rebuilt"
  mkdir -p "$LOGS/changed" && cp $solution "$LOGS/changed/solution.cu"
  echo "// changed by gpu_check.sh at $(date -u +%FT%TZ)" >> "$LOGS/changed/solution.cu"
  record muon_baseline_cuda_changed muon_orthogonalization --solution "$LOGS/changed/solution.cu" \
    --workload $first --no-cache || failures=$((failures + 1))
  python3 - "$OUT" <<'PY'
import json, sys
for name in ("muon_baseline_cuda", "muon_baseline_cuda_unchanged", "muon_baseline_cuda_changed"):
    build = json.load(open(f"{sys.argv[1]}/{name}.json")).get("build") or {}
    print(f"{name:<30} cached={build.get('cached')} seconds={build.get('seconds')} hash={build.get('hash')}")
PY
  step "one more independent evaluation of the Triton baseline (repeatability)"
  record muon_baseline_repeat muon_orthogonalization --impl baseline --no-cache \
    || failures=$((failures + 1))
  step "done: $failures failed steps"
  exit $failures
fi

if [ "$mode" = failures ]; then
  step "GPU failure fixtures: each fails its first workload, the next workload still passes"
  for solution in tests/fixtures/solutions/gpu_scale_add/*.py; do
    name=$(basename "$solution" .py)
    record "gpu_fixture_$name" tests/fixtures/tasks/gpu_scale_add --solution "$solution"
  done
  exit 0
fi

step "unit tests (the CPU end-to-end tests run in CI)"
cmake --build $build -j "$(nproc)" > "$LOGS/build-tests.log" 2>&1 || { tail -20 "$LOGS/build-tests.log"; failures=$((failures + 1)); }
for tests in $build/tests/d2k_*_tests; do
  [[ $tests == *e2e* ]] && continue
  "$tests" --gtest_brief=1 > "$LOGS/unit.log" 2>&1 && echo "$(basename "$tests"): $(tail -1 "$LOGS/unit.log")" \
    || { echo "$(basename "$tests") FAILED"; tail -20 "$LOGS/unit.log"; failures=$((failures + 1)); }
done

step "Muon baseline against the reference on small shapes"
"$python" tasks/muon_orthogonalization/baseline/check_baseline.py || failures=$((failures + 1))

step "d2k eval muon_orthogonalization --impl baseline"
record muon_baseline muon_orthogonalization --impl baseline --no-cache || failures=$((failures + 1))
step "d2k eval muon_orthogonalization --impl reference"
record muon_reference muon_orthogonalization --impl reference --no-cache || failures=$((failures + 1))

step "harness overhead"
bench/harness_overhead.sh "$d2k" "$LOGS" || failures=$((failures + 1))

step "done: $failures failed steps"
exit $failures
