#!/usr/bin/env bash
# The GPU check on the H200 machine: builds d2k against the packages carried in .device/root
# (tools/prepare_device.sh), then runs the named steps in order. A device call lasts at most
# 10 minutes, so pick steps that fit one call; a step cut by the limit loses only itself and the
# steps after it.
#
#   tools/gpu_check.sh [STEP ...]        (default: check)
#
# Steps:
#   sandbox     a correct Triton fixture under the candidate sandbox; if it fails there, the
#               later `record` steps run with --no-sandbox and say so (a finding to fix)
#   tests       the unit-test binaries (the CPU end-to-end tests run in CI)
#   muon        small-shape baseline check, then the Muon Triton baseline and the reference
#   overhead    harness overhead against bare eager launches and a bare CUDA graph
#   floor       graph-replay floors: an empty kernel, two kernels chained by programmatic
#               dependent launch, and one read of each sampling workload's logits
#   doctor      `d2k doctor`: toolchain and measured ceilings (later evaluations show %SOL)
#   cuda        the CUDA C++ Muon baseline through the native ABI, from an empty build cache
#   cuda-cache  that .cu again unchanged (cached build) and changed (rebuilt), first workload
#   agent       a scripted agent trajectory on the Muon task: a wrong submission, then the
#               baseline's code; the run's final selection must be the baseline
#   report      `d2k report --format md` of the store
#   failures    the GPU failure fixtures (crash, device hang, illegal address)
#   exploits    the GPU exploit classes (tests/exploits/gpu_*/, Python and CUDA C++, the runtime
#               audit's among them); each must get the verdict and reason its header declares
#   muon-exploits  the Muon task's exploits (tests/exploits/muon_orthogonalization/: fingerprint,
#               pointer and back-to-back caches, side stream) on its first workload, and the
#               CUDA C++ baseline they wrap, which must pass
#   repeat      $REPEATS (default 5) independent evaluations of the Muon baseline
#   sanitize    compute-sanitizer memcheck and racecheck of the sampling expert (its inter-CTA
#               flags, bulk copies and barriers) on b64 (wide rows) and b128 (top-k and flagged
#               rows), through its ncu_driver.py with line info; any report fails the step
#   smoke       every task's expert/check.py --full --time: baseline and expert against the
#               reference on small shapes and every workload, outside d2k (quick diagnosis)
#   suite       `d2k eval` of every task with an expert/, for reference, baseline and expert;
#   suite=LIST  only these: LIST is TASK[/IMPL[+IMPL...]][,TASK...], e.g.
#               suite=muon_orthogonalization/expert,fused_moe
# A step written STEP@N runs on GPU N only (CUDA_VISIBLE_DEVICES=N), in the background: the steps
# of one GPU run in order, different GPUs at once, after the steps without @. Evaluations on
# different GPUs do not disturb each other's timing; the store takes their writes in turn.
# Aliases: check = tests muon overhead; native = doctor cuda cuda-cache.
#
# Everything lands in $OUT (or ./gpu-check-out): gpu_check.log, records.tar.gz (one JSON file
# per evaluation, under records/; an earlier run's records into the same $OUT move under
# records/earlier/), and the SQLite store ($D2K_SEED_STORE, if given, is copied in first so runs
# accumulate).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
# A device call brings back at most 8 files: $OUT keeps the log, the evaluation records and the
# store; build logs and benchmark intermediates stay in $LOGS.
LOGS=${LOGS:-/tmp/d2k-gpu-check}
RECORDS=$LOGS/records
rm -rf "$RECORDS"
mkdir -p "$OUT" "$LOGS" "$RECORDS"
# A second run into the same $OUT (two calls of this script in one device call) would replace the
# archive with its own records only: the earlier ones are kept under records/earlier/.
if [ -f "$OUT/records.tar.gz" ]; then
  rm -rf "$LOGS/unpacked" && mkdir -p "$LOGS/unpacked" \
    && tar xzf "$OUT/records.tar.gz" -C "$LOGS/unpacked" && mv "$LOGS/unpacked/records" "$RECORDS/earlier" \
    || { echo "$OUT/records.tar.gz could not be unpacked; it is left as it is"; exit 2; }
fi
exec > >(tee -a "$OUT/gpu_check.log") 2>&1
# The records are packed after every evaluation, so a step cut by the call's time limit loses
# only the evaluation it was in.
pack_records() { flock "$LOGS/records.lock" tar czf "$OUT/records.tar.gz" -C "$LOGS" records; }
trap pack_records EXIT

export D2K_STORE=$OUT/d2k-store.sqlite
# A store carried from an earlier run (e.g. .device/seed-store.sqlite) continues here, so one
# report can show evaluations from several device calls.
# A seed store that is not there (a path on another machine) would silently start an empty store
# and renumber every evaluation, so it stops the run.
if [ -n "${D2K_SEED_STORE:-}" ] && [ ! -f "$D2K_SEED_STORE" ]; then
  echo "D2K_SEED_STORE=$D2K_SEED_STORE: no such file on this machine (carry it, e.g. in .device/)"
  exit 2
fi
if [ -n "${D2K_SEED_STORE:-}" ] && [ ! -f "$D2K_STORE" ]; then
  cp "$D2K_SEED_STORE" "$D2K_STORE"
fi
[ -d /dev/shm ] && export D2K_SCRATCH=/dev/shm
export PYTHONUNBUFFERED=1
python=$(command -v python3)
build=build-gpu
d2k=$PWD/$build/d2k
failures=0

step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
eval_flags=()
record() {  # record NAME ARGS...: one d2k evaluation, JSON kept, table printed
  local name=$1; shift
  "$d2k" eval "$@" "${eval_flags[@]}" --json > "$RECORDS/$name.json"
  local status=$?
  python3 - "$RECORDS/$name.json" "$name" "$status" <<'PY'
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
    audit = w.get("audit") or {}
    if audit.get("unavailable"):
        print("    not audited: " + audit["unavailable"])
    elif audit:
        print(f"    audit: {len(audit.get('kernels', []))} kernels, peak aux {audit.get('peak_aux_bytes')} bytes")
PY
  pack_records
  return $status
}


step_sandbox() {
  step "sandbox: a correct Triton fixture must pass inside the candidate sandbox"
  "$d2k" eval tests/fixtures/tasks/gpu_scale_add \
    --solution tests/fixtures/solutions/gpu_scale_add/triton_kernel.py --no-store > "$LOGS/sandbox.txt" 2>&1
  local status=$?
  cat "$LOGS/sandbox.txt"
  if [ $status -ne 0 ]; then
    echo "SANDBOX FAILED a correct candidate (exit $status): later evaluations run with --no-sandbox"
    eval_flags=(--no-sandbox)
    failures=$((failures + 1))
  fi
}

step_tests() {
  step "unit tests (the CPU end-to-end tests run in CI)"
  cmake --build $build -j "$(nproc)" > "$LOGS/build-tests.log" 2>&1 \
    || { tail -20 "$LOGS/build-tests.log"; failures=$((failures + 1)); }
  for tests in $build/tests/d2k_*_tests; do
    [[ $tests == *e2e* ]] && continue
    "$tests" --gtest_brief=1 > "$LOGS/unit.log" 2>&1 && echo "$(basename "$tests"): $(tail -1 "$LOGS/unit.log")" \
      || { echo "$(basename "$tests") FAILED"; tail -20 "$LOGS/unit.log"; failures=$((failures + 1)); }
  done
}

step_muon() {
  step "Muon baseline against the reference on small shapes"
  "$python" tasks/muon_orthogonalization/baseline/check_baseline.py || failures=$((failures + 1))
  step "d2k eval muon_orthogonalization --impl baseline"
  record muon_baseline muon_orthogonalization --impl baseline --no-cache || failures=$((failures + 1))
  step "d2k eval muon_orthogonalization --impl reference"
  record muon_reference muon_orthogonalization --impl reference --no-cache || failures=$((failures + 1))
}

step_overhead() {
  step "harness overhead"
  bench/harness_overhead.sh "$d2k" "$LOGS" || failures=$((failures + 1))
}

step_floor() {
  step "floors: an empty launch, a PDL pair, one read of each sampling shape (bench/launch_and_read_floor.cu)"
  local shapes  # "batch vocab" of each sampling workload, from the task's config
  shapes=$("$python" -c 'import json, sys
print(" ".join("%d %d" % (w["batch"], w["vocab"]) for w in json.load(open(sys.argv[1]))["workloads"]))' \
    tasks/topk_topp_sampling/config.json) \
    && nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 bench/launch_and_read_floor.cu \
      -o "$LOGS/launch_and_read_floor" \
    && "$LOGS/launch_and_read_floor" $shapes || failures=$((failures + 1))
}

step_doctor() {
  step "d2k doctor: toolchain and measured ceilings"
  "$d2k" doctor || failures=$((failures + 1))
}

cuda_solution=tasks/muon_orthogonalization/baseline/solution.cu
first_workload=production_b32_m2048_n5464
export D2K_CACHE=$LOGS/native-cache

step_cuda() {
  rm -rf "$D2K_CACHE"
  step "CUDA C++ Muon baseline through the native ABI, empty build cache"
  record muon_baseline_cuda muon_orthogonalization --solution $cuda_solution --no-cache \
    || failures=$((failures + 1))
}

step_cuda_cache() {
  step "the same .cu again: the build must come from the cache"
  record muon_baseline_cuda_unchanged muon_orthogonalization --solution $cuda_solution \
    --workload $first_workload --no-cache || failures=$((failures + 1))
  step "a changed .cu: it must be rebuilt"
  mkdir -p "$LOGS/changed" && cp $cuda_solution "$LOGS/changed/solution.cu"
  echo "// changed by gpu_check.sh at $(date -u +%FT%TZ)" >> "$LOGS/changed/solution.cu"
  record muon_baseline_cuda_changed muon_orthogonalization --solution "$LOGS/changed/solution.cu" \
    --workload $first_workload --no-cache || failures=$((failures + 1))
  python3 - "$RECORDS" <<'PY'
import json, os, sys
for name in ("muon_baseline_cuda", "muon_baseline_cuda_unchanged", "muon_baseline_cuda_changed"):
    path = f"{sys.argv[1]}/{name}.json"
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        continue
    build = json.load(open(path)).get("build") or {}
    print(f"{name:<30} cached={build.get('cached')} seconds={build.get('seconds')} hash={build.get('hash')}")
PY
}

step_agent() {
  step "scripted agent trajectory on the Muon task (wrong submission, then the baseline's code)"
  local workspace=$LOGS/agent-muon/ws
  rm -rf "$LOGS/agent-muon"
  "$d2k" agent run muon_orthogonalization --config none --workspace "$workspace" \
    --agent "python3 $PWD/tests/agents/fake_agent.py --correct $PWD/tasks/muon_orthogonalization/baseline/solution.py" \
    --json > "$RECORDS/agent_run.json" || failures=$((failures + 1))
  python3 - "$RECORDS/agent_run.json" <<'PY' || failures=$((failures + 1))
import json, sys
try:
    outcome = json.load(open(sys.argv[1]))
except Exception as error:
    print(f"no agent run JSON: {error}")
    sys.exit(1)
print(json.dumps(outcome, indent=1)[:4000])
PY
}

step_report() {
  step "d2k report --format md"
  "$d2k" report --format md || failures=$((failures + 1))
}

step_failures() {
  step "GPU failure fixtures: each fails its first workload, the next workload still passes"
  for solution in tests/fixtures/solutions/gpu_scale_add/*.py; do
    record "gpu_fixture_$(basename "$solution" .py)" tests/fixtures/tasks/gpu_scale_add --solution "$solution"
  done
}

# run_exploits FOLDER TASK CONTROL [EVAL ARGS...]: every .py and .cu candidate of FOLDER against
# TASK, then the legitimate CONTROL, which must pass the runtime audit too; each must get the
# verdict and reason its header declares (a file without one must pass).
run_exploits() {
  local folder=$1 task=$2 control=$3 solution name
  shift 3
  for solution in "$folder"*.py "$folder"*.cu "$control"; do
    [ -f "$solution" ] || continue
    name=$(basename "$folder")_$(basename "${solution%.*}")
    record "gpu_exploit_$name" "$task" --solution "$solution" "$@"
    python3 - "$RECORDS/gpu_exploit_$name.json" "$solution" <<'PY' || failures=$((failures + 1))
import json, re, sys
record, header = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
verdict = re.search(r"expect-verdict:\s*(\S+)", header)
verdict = verdict.group(1) if verdict else "passed"
reason = re.search(r"expect-reason:\s*(\S+)", header)
print(f"  sandbox: {record.get('sandbox', '')}")
for w in record["workloads"]:
    for name, audit in (("audit", w.get("audit") or {}), ("timed audit", w.get("timed_audit") or {})):
        if audit.get("unavailable"):
            print(f"  {name} {w['workload']}: not audited: {audit['unavailable']}")
        elif audit:
            kernels = audit.get("kernels", [])
            streams = sorted({k["stream"] for k in kernels} | {t["stream"] for t in audit.get("transfers", [])})
            print(f"  {name} {w['workload']}: {audit.get('calls', 1)} calls, {len(kernels)} kernels"
                  f" ({sum(k['duration_s'] for k in kernels) * 1e3:.3f} ms), {len(audit.get('transfers', []))} transfers,"
                  f" {len(audit.get('synchronizations', []))} synchronizations, streams {streams}"
                  f" (harness {audit.get('harness_stream')}), peak aux {audit.get('peak_aux_bytes')} bytes;"
                  f" {audit.get('tracer', '')}")
            for k in kernels[:4]:
                print(f"    {k['name'][:110]}")
bad = [w for w in record["workloads"] if w["verdict"] != verdict
       or (reason and w["reason_code"] != reason.group(1))]
print(f"  expected {verdict}{' / ' + reason.group(1) if reason else ''}: {'FAILED' if bad else 'ok'}")
sys.exit(1 if bad else 0)
PY
  done
}

step_exploits() {
  step "GPU exploit classes: each gets its header's verdict; a legitimate Triton kernel passes"
  # tests/exploits/<task>/ runs against tests/fixtures/tasks/<task>. The legitimate Triton kernel
  # goes last for each task and must pass the runtime audit too (it keeps gpu_scale_add_custom's
  # rules: its own kernel, nothing allocated but the output).
  for folder in tests/exploits/gpu_*/; do
    run_exploits "$folder" "tests/fixtures/tasks/$(basename "$folder")" \
      tests/fixtures/solutions/gpu_scale_add/triton_kernel.py
  done
}

step_muon_exploits() {
  step "Muon exploit classes on $first_workload; the CUDA C++ baseline they wrap passes"
  run_exploits tests/exploits/muon_orthogonalization/ muon_orthogonalization "$cuda_solution" \
    --workload "$first_workload"
}

step_repeat() {
  step "repeatability: ${REPEATS:-5} independent evaluations of the Muon baseline"
  for i in $(seq "${REPEATS:-5}"); do
    record "muon_baseline_repeat_$i" muon_orthogonalization --impl baseline --no-cache
  done
  python3 - "$RECORDS" <<'PY'
import glob, json, statistics, sys
runs = [json.load(open(path)) for path in sorted(glob.glob(f"{sys.argv[1]}/muon_baseline_repeat_*.json"))]
for index, w in enumerate(runs[0]["workloads"]):
    means = [r["workloads"][index]["latency"]["mean_s"] for r in runs if r["workloads"][index].get("latency")]
    cv = statistics.stdev(means) / statistics.mean(means) if len(means) > 1 else float("nan")
    print(f"{w['workload']:<30} {' '.join(f'{m*1e3:8.3f}' for m in means)}  {cv*100:.3f}%")
PY
}

suite_entries() {  # suite_entries [LIST]: one TASK/IMPL+IMPL per line
  if [ -n "${1:-}" ]; then tr ',' '\n' <<< "$1"; return; fi
  for folder in tasks/*/expert; do basename "$(dirname "$folder")"; done
}

step_sanitize() {
  local driver=tasks/topk_topp_sampling/expert/ncu_driver.py label tool status
  local source=tasks/topk_topp_sampling/expert/solution.cu
  for label in b64 b128; do
    for tool in memcheck racecheck; do
      step "compute-sanitizer --tool $tool: $source $label"
      timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 1 \
        $([ "$tool" = racecheck ] && echo --racecheck-report all) \
        "$python" "$driver" "$source" "$label" 2 --lineinfo > "$LOGS/sanitize_${tool}_$label.log" 2>&1
      status=$?
      tail -4 "$LOGS/sanitize_${tool}_$label.log"
      if [ $status -ne 0 ]; then
        echo "exit $status; the first reports:"
        grep -m 40 -A 6 "Error\|Race reported\|Hazard" "$LOGS/sanitize_${tool}_$label.log"
        failures=$((failures + 1))
      fi
    done
  done
}

step_smoke() {
  for task in $(suite_entries); do
    local check=tasks/$task/expert/check.py
    [ -f "$check" ] || continue
    step "smoke: $check --impl both --full --time"
    timeout 240 "$python" "$check" --impl both --full --time || failures=$((failures + 1))
  done
}

step_suite() {  # step_suite [LIST]
  local entry task impls
  for entry in $(suite_entries "${1:-}"); do
    task=${entry%%/*}
    impls=reference+baseline+expert
    [[ $entry == */* ]] && impls=${entry#*/}
    for impl in ${impls//+/ }; do
      step "d2k eval $task --impl $impl"
      record "${task}_$impl" "$task" --impl "$impl" --no-cache || failures=$((failures + 1))
    done
  done
}

[ $# -eq 0 ] && set -- check
requested=()        # steps run in order, on every GPU
declare -A lanes=()  # GPU -> its steps, run in the background
for name in "$@"; do
  case $name in
    check) requested+=(tests muon overhead); continue ;;
    native) requested+=(doctor cuda cuda-cache); continue ;;
  esac
  base=${name%@*}
  case ${base%%=*} in
    sandbox|tests|muon|overhead|floor|doctor|cuda|cuda-cache|agent|report|failures|exploits|muon-exploits|repeat|sanitize|smoke|suite) ;;
    *) echo "unknown step: $name (see the header of $0)"; exit 2 ;;
  esac
  if [[ $name == *@* ]]; then lanes[${name##*@}]+="$base "; else requested+=("$base"); fi
done

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


run_step() {  # run_step NAME[=ARGUMENT]
  local name=${1%%=*}
  if [[ $1 == *=* ]]; then "step_${name//-/_}" "${1#*=}"; else "step_${name//-/_}"; fi
}
for name in "${requested[@]}"; do run_step "$name"; done
lane_pids=()
for gpu in "${!lanes[@]}"; do
  (
    export CUDA_VISIBLE_DEVICES=$gpu
    failures=0
    for name in ${lanes[$gpu]}; do run_step "$name"; done
    exit $failures
  ) > "$OUT/gpu$gpu.log" 2>&1 &
  lane_pids+=("$gpu:$!")
  echo "GPU $gpu runs in the background: ${lanes[$gpu]}(log: gpu$gpu.log)"
done
for lane in "${lane_pids[@]}"; do
  wait "${lane#*:}"
  status=$?
  failures=$((failures + status))
  step "GPU ${lane%%:*} finished ${lanes[${lane%%:*}]}with $status failed steps"
done
step "done: $failures failed steps"
exit $failures
