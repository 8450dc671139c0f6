#!/usr/bin/env bash
# Measures the suite's results into STORE on a GPU host: the GPU check's `doctor` step (the
# device's ceilings) and its `suite` step (reference, baseline, expert and every anchor of each
# task, each measured afresh), writing into a copy of STORE that replaces it at the end. A
# failing evaluation is recorded and the run goes on; the check's log lists every evaluation.
# The store is left as one self-contained file (rollback journal, no -wal), ready to commit.
#
#   tools/measure_results.sh STORE [TASK ...]    (default: every task with an expert)
#
# Several runs into the same STORE add to it (a subset of tasks per run, say); the report shows
# the newest evaluation of each. Then render docs/results.md from it:
#
#   build/d2k report --store STORE --format results --output docs/results.md
#
# Environment: OUT (where the check's log and records go, default a new temporary folder).
# Exit status: the GPU check's (0 when every step passed).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: tools/measure_results.sh STORE [TASK ...]" >&2
  exit 2
fi
store=$(realpath -m "$1")
shift
export OUT=${OUT:-$(mktemp -d)}
tasks=$(IFS=,; echo "$*")

if [ -f "$store" ]; then
  export D2K_SEED_STORE=$store
fi
tools/gpu_check.sh doctor "suite${tasks:+=$tasks}"
status=$?

measured=$OUT/d2k-store.sqlite
if [ -f "$measured" ]; then
  # A committed store is one file: fold the write-ahead log back in.
  python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA journal_mode = DELETE"); c.close()' "$measured"
  cp "$measured" "$store"
fi
echo "store: $store (log and records in $OUT)"
echo "render: build-gpu/d2k report --store $store --format results --output docs/results.md"
exit $status
