#!/usr/bin/env bash
# Starts a one-node Slurm cluster on loopback for the sweep tests: munged, slurmctld and slurmd
# from Debian's packages (tools/install_deps.sh), each with its state, sockets, logs and pid
# files under DIR, so nothing of the system's own Slurm or munge configuration is read or
# changed. Prints the SLURM_CONF the clients (sbatch, squeue, scancel) must be given.
# Usage: tools/slurm/start.sh DIR [PORT]   (PORT and PORT+1: slurmctld and slurmd; default 16817)
set -euo pipefail
dir=$(realpath -m "${1:?usage: start.sh DIR [PORT]}")
port=${2:-16817}
mkdir -p "$dir"/{munge,state,spool,log}
chmod 0700 "$dir/munge"
user=$(id -un)
host=$(hostname -s)
cpus=$(nproc)
memory_mib=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))

# munge: a key of its own and a socket under DIR; --force because CI runs as root.
[ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed"

: > "$dir/plugstack.conf"
# No cgroups, no accounting database: the tests need scheduling, arrays, states and scancel.
# MinJobAge keeps finished array tasks visible to `squeue --states=all` for an hour, which is
# how the sweep learns their states where sacct has no database behind it.
cat > "$dir/slurm.conf" <<CONF
ClusterName=d2ktest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=30
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mib State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF"
# Ready when the node takes jobs.
for _ in $(seq 1 60); do
  if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "start.sh: the Slurm node did not come up; logs in $dir/log" >&2
sinfo -N >&2 || true
exit 1
