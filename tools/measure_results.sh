#!/usr/bin/env bash
# Measures the suite's results into STORE on a GPU host: builds d2k once, measures the device's
# ceilings (`d2k doctor`), then evaluates the reference, the baseline, the expert and every
# anchor of every task that has an expert, each measured afresh (--no-cache). A failing
# evaluation is recorded and the run goes on; a summary lists every evaluation's exit status.
# The store is left as one self-contained file (rollback journal, no -wal), ready to commit.
#
#   tools/measure_results.sh STORE [TASK ...]    (default: every task with an expert)
#
# Several runs into the same STORE add to it (a subset of tasks per run, say); the report shows
# the newest evaluation of each. Then render docs/results.md from it:
#
#   build/d2k report --store STORE --format results --output docs/results.md
#
# Environment: BUILD (default build-results), CMAKE_PREFIX_PATH (where the dependencies are
# installed, when not in the system's paths). Exit status: 0 when every evaluation passed, 1
# when any failed, 2 on a usage or build error.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: tools/measure_results.sh STORE [TASK ...]" >&2
  exit 2
fi
store=$(realpath -m "$1")
shift
build=${BUILD:-build-results}
python=$(command -v python3)
d2k=$PWD/$build/d2k

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DD2K_PYTHON="$python" \
  ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH="$CMAKE_PREFIX_PATH"} > /dev/null || exit 2
cmake --build "$build" -j "$(nproc)" --target d2k | tail -1
[ -x "$d2k" ] || { echo "build failed" >&2; exit 2; }

tasks=("$@")
if [ ${#tasks[@]} -eq 0 ]; then
  for dir in tasks/*/; do
    [ -d "$dir/expert" ] && tasks+=("$(basename "$dir")")
  done
fi

summary=()
failed=0
measure() {  # measure TASK IMPLEMENTATION-FLAGS...
  local task=$1; shift
  echo "=== $task $* ($(date -u +%H:%M:%S))"
  "$d2k" --store "$store" eval "$task" "$@" --no-cache
  local status=$?
  summary+=("$(printf '%-28s %-28s exit %d' "$task" "$*" "$status")")
  [ $status -eq 0 ] || failed=1
}

"$d2k" --store "$store" doctor || summary+=("doctor: no ceilings measured (no %SOL)")
for task in "${tasks[@]}"; do
  for impl in reference baseline expert; do measure "$task" --impl "$impl"; done
  for anchor in tasks/"$task"/anchors/*.py; do
    [ -f "$anchor" ] && measure "$task" --anchor "$(basename "$anchor" .py)"
  done
done

# A committed store is one file: fold the write-ahead log back in.
"$python" -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA journal_mode = DELETE"); c.close()' "$store"

echo
echo "=== summary ($store)"
printf '%s\n' "${summary[@]}"
echo "render: $d2k report --store $store --format results --output docs/results.md"
exit $failed
