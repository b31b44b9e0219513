#!/usr/bin/env bash
# Runs a command (the SLURM tests) when a SLURM cluster answers here with an
# idle or mixed node: scripts/ci/start_slurm.sh starts one on this machine.
# Exit 77 (ctest: skipped) where there is none, except under CI=true, where a
# missing cluster fails: .ci/run starts it, so its absence is a fault.
#
#   slurm_available.sh COMMAND ARGS...
set -uo pipefail
why=""
for tool in srun sinfo squeue scontrol scancel; do
  command -v "$tool" >/dev/null || { why="$tool is not installed (Debian: apt-get install slurm-wlm munge)"; break; }
done
if [ -z "$why" ]; then
  states="$(timeout 20 sinfo -h -o %T 2>&1)" || why="sinfo cannot reach a SLURM controller: $states"
  if [ -z "$why" ] && ! grep -qE '^(idle|mixed)' <<<"$states"; then
    why="no idle node in SLURM (sinfo says: ${states:-nothing})"
  fi
fi
if [ -n "$why" ]; then
  msg="the SLURM tests need a running cluster: $why; start one with: sudo bash scripts/ci/start_slurm.sh"
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $msg; CI=true, so they may not be skipped" >&2
    exit 1
  fi
  echo "SKIP: $msg"
  exit 77
fi
exec "$@"
