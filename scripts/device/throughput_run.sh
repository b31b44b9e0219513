#!/usr/bin/env bash
# Where a tuner run's wall time goes on the H200 (issue 11): the run a user
# types, `autoresearch run --kernel sparse_mla --goal 2x`, from the package as
# committed, for RUN_HOURS; then the per-phase breakdown of the run and the
# split of its verifications' time (scripts/device/throughput_summary.py).
# Console, log and summary go under $OUT.
#   RUN_HOURS=0.13 TAG=tput bash scripts/device/throughput_run.sh
set -uo pipefail
AR="$PWD/.carry/autoresearch"
export PATH=/usr/local/cuda/bin:$PATH AUTORESEARCH_HOME=$PWD AUTORESEARCH_CACHE_DIR=${AUTORESEARCH_CACHE_DIR:-/tmp/arcache}
out=${OUT:-/tmp/out}; mkdir -p "$out"
TAG=${TAG:-tput}
run=sparse_mla-$TAG
g() { git -c user.name=d -c user.email=d@d "$@"; }
g add -A >/dev/null; g commit -qm device >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$out/$TAG.gpu.txt" 2>&1
"$AR" run --kernel sparse_mla --goal 2x --tag "$TAG" --seed "${SEED:-1}" --max-hours "${RUN_HOURS:-0.13}" \
  ${RUN_ARGS:-} > "$out/$TAG.console.txt" 2>&1
echo "run rc=$?"; tail -3 "$out/$TAG.console.txt"
gzip -c ".autoresearch/runs/$run/experiments.jsonl" > "$out/$TAG.experiments.jsonl.gz"
"$AR" log "$run" > "$out/$TAG.log.txt" 2>&1
python3 scripts/device/throughput_summary.py ".autoresearch/runs/$run/experiments.jsonl" | tee "$out/$TAG.summary.txt"
git log --format='%h %s' "autoresearch/$run" -n 6 > "$out/$TAG.branch.txt"
exit 0
