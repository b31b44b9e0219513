#!/usr/bin/env bash
# Starts a one-node SLURM cluster on this machine for the `slurm` tests
# (ctest -L slurm): munged, slurmctld and slurmd on localhost, one partition
# holding this node. Idempotent: a second call finds the cluster up and only
# checks it. No cgroups (proctrack/linuxproc, task/none), so it works in
# containers and VMs without systemd; no slurmdbd (no sacct), so finished jobs
# are recorded by jobcomp/filetxt in $AR_SLURM_JOBCOMP.
#
# Exits non-zero, with the reason, when anything cannot be installed or started.
set -euo pipefail

PARTITION="${AR_SLURM_PARTITION:-ci}"
CONF_DIR=/etc/slurm
CONF="$CONF_DIR/slurm.conf"
STATE_DIR=/var/lib/slurm/ci
LOG_DIR=/var/log/slurm
JOBCOMP="${AR_SLURM_JOBCOMP:-$LOG_DIR/jobcomp.log}"
MARKER="# written by autoresearch scripts/ci/start_slurm.sh"

die() {
  echo "start_slurm: $*" >&2
  exit 1
}
say() { echo "start_slurm: $*"; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and no sudo: cannot install or start SLURM"
  sudo="sudo -n"
  $sudo true 2>/dev/null || die "not root and sudo asks for a password: run as root or allow sudo -n"
fi

# --- packages -----------------------------------------------------------------
missing=()
for tool in slurmctld slurmd srun sinfo squeue scancel scontrol; do
  command -v "$tool" >/dev/null || { [ -x "/usr/sbin/$tool" ] || missing+=("$tool"); }
done
command -v munged >/dev/null || [ -x /usr/sbin/munged ] || missing+=(munged)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing slurm-wlm and munge (missing: ${missing[*]})"
  { $sudo apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends slurm-wlm munge; } ||
    die "apt-get could not install slurm-wlm and munge"
fi
export PATH="/usr/sbin:/sbin:$PATH"

# --- munge --------------------------------------------------------------------
if [ ! -s /etc/munge/munge.key ]; then
  say "creating the munge key"
  $sudo mkdir -p /etc/munge
  if command -v mungekey >/dev/null; then
    $sudo mungekey --create --keyfile=/etc/munge/munge.key --force || die "mungekey could not create /etc/munge/munge.key"
  else
    $sudo dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none || die "cannot write /etc/munge/munge.key"
  fi
fi
$sudo chown munge:munge /etc/munge/munge.key
$sudo chmod 0400 /etc/munge/munge.key
$sudo mkdir -p /run/munge /var/log/munge /var/lib/munge
$sudo chown munge:munge /run/munge /var/log/munge /var/lib/munge
$sudo chmod 0755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  say "starting munged"
  $sudo runuser -u munge -- munged --force ||
    die "munged did not start (see /var/log/munge/munged.log)"
  for _ in $(seq 1 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.1
  done
  munge -n | unmunge >/dev/null || die "munged runs but a credential does not round-trip (munge -n | unmunge)"
fi

# --- slurm.conf ---------------------------------------------------------------
node="$(hostname -s)"
# slurmd -C reports this machine as slurmd sees it: CPUs, sockets, cores, memory.
hw="$(slurmd -C 2>/dev/null | head -n1)" || true
[[ "$hw" == NodeName=* ]] || die "slurmd -C did not describe this machine: '$hw'"
hw="${hw#NodeName=* }"   # the rest after the name: CPUs=... RealMemory=...
cpus="$(nproc)"
mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024))
# Leave the OS some memory so the node is not drained for having less than it claims.
hw="$(echo "$hw" | sed -E "s/RealMemory=[0-9]+/RealMemory=$((mem_mb * 9 / 10))/")"

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
cat >"$tmp" <<EOF
$MARKER
# A one-node cluster for CI: node $node ($cpus CPUs, ${mem_mb} MiB).
ClusterName=autoresearch-ci
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE_DIR/ctld
SlurmdSpoolDir=$STATE_DIR/d
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
# Containers have no usable cgroups: processes are tracked through /proc.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$JOBCOMP
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# A cancelled or timed-out step gets SIGTERM, then SIGKILL after KillWait s.
KillWait=5
MinJobAge=3600
InactiveLimit=0
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$node $hw State=UNKNOWN
PartitionName=$PARTITION Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF

$sudo mkdir -p "$CONF_DIR" "$STATE_DIR/ctld" "$STATE_DIR/d" "$LOG_DIR"
$sudo touch "$JOBCOMP"
changed=0
if ! $sudo cmp -s "$tmp" "$CONF" 2>/dev/null; then
  if [ -f "$CONF" ] && ! grep -qF "$MARKER" "$CONF"; then
    $sudo cp "$CONF" "$CONF.before-autoresearch"
    say "kept the previous $CONF as $CONF.before-autoresearch"
  fi
  $sudo install -m 0644 "$tmp" "$CONF"
  changed=1
  say "wrote $CONF for node $node ($cpus CPUs, $mem_mb MiB)"
fi

# --- daemons ------------------------------------------------------------------
running() { pgrep -x "$1" >/dev/null 2>&1; }
stop_daemon() {
  local pidfile="/run/$1.pid"
  if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    $sudo kill "$(cat "$pidfile")" || true
    for _ in $(seq 1 50); do kill -0 "$(cat "$pidfile")" 2>/dev/null || break; sleep 0.1; done
  fi
}
if [ "$changed" -eq 1 ]; then
  stop_daemon slurmd
  stop_daemon slurmctld
fi
if ! running slurmctld; then
  say "starting slurmctld"
  $sudo slurmctld ||
    die "slurmctld did not start: $(tail -n 5 "$LOG_DIR/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
fi
ok=0
for _ in $(seq 1 100); do
  if scontrol ping 2>/dev/null | grep -q "is UP"; then ok=1; break; fi
  sleep 0.2
done
[ "$ok" -eq 1 ] || die "slurmctld does not answer (scontrol ping): $(tail -n 5 "$LOG_DIR/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
if ! running slurmd; then
  say "starting slurmd"
  $sudo slurmd || die "slurmd did not start: $(tail -n 5 "$LOG_DIR/slurmd.log" 2>/dev/null | tr '\n' ' ')"
fi

# --- the node idle ------------------------------------------------------------
state=""
for i in $(seq 1 150); do
  state="$(sinfo -h -n "$node" -p "$PARTITION" -o %T 2>/dev/null | head -n1)"
  case "$state" in
    idle | mixed | allocated) break ;;
    down* | drain* | drained*)
      # A node that came back after a restart: ReturnToService=2 usually does this itself.
      [ $((i % 10)) -eq 1 ] && $sudo scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
  esac
  sleep 0.2
done
case "$state" in
  idle | mixed | allocated) ;;
  *)
    reason="$(sinfo -h -n "$node" -o '%E' 2>/dev/null | head -n1)"
    die "node $node is '${state:-absent}' in partition $PARTITION${reason:+ ($reason)}; slurmd log: $(tail -n 5 "$LOG_DIR/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    ;;
esac
# A job must actually run, not only be accepted.
out="$(timeout 60 srun -p "$PARTITION" -N1 -n1 -t 1 -J ar-ci-probe hostname 2>&1)" ||
  die "a probe job (srun hostname) failed: $out"
say "SLURM is up: node $node is $state in partition $PARTITION (probe job ran on $out)"
