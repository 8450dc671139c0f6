#!/usr/bin/env bash
# Stops what tools/slurm/start.sh DIR started (slurmd, slurmctld, munged), by their pid files,
# and waits until they are gone.
set -uo pipefail
dir=$(realpath -m "${1:?usage: stop.sh DIR}")
for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || continue
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
done
exit 0
