#!/usr/bin/env bash
# The per-workload dispatch proven on the H200 (issue 10): a short tuner run on
# sparse_mla, started from the human's ideas 1-3 (scripts/ideas/sparse_mla),
# then `autoresearch dispatch` on that run: the run's best and the candidates
# that beat it on some workloads, in one cubin, verified on every workload
# (hidden ones included), measured against the single best and committed only
# if faster. Console, log, dispatch record and branch go under $OUT.
#   RUN_HOURS=0.035 TAG=disp bash scripts/device/dispatch_proof.sh
set -uo pipefail
AR="$PWD/.carry/autoresearch"
export PATH=/usr/local/cuda/bin:$PATH AUTORESEARCH_HOME=$PWD AUTORESEARCH_CACHE_DIR=${AUTORESEARCH_CACHE_DIR:-/tmp/arcache}
out=${OUT:-/tmp/out}; mkdir -p "$out"
TAG=${TAG:-disp}
run=sparse_mla-$TAG
g() { git -c user.name=d -c user.email=d@d "$@"; }
g add -A >/dev/null; g commit -qm device >/dev/null 2>&1
for p in scripts/ideas/sparse_mla/0[123]-*.patch; do g apply "$p" || { echo "cannot apply $p"; exit 1; }; done
sed -i 's/"KEYS_PER_TILE": *[0-9]*/"KEYS_PER_TILE": 64/; s/"KV_STAGES": *[0-9]*/"KV_STAGES": 2/' kernels/sparse_mla/tunables.json
g commit -qam "sparse_mla: the human's ideas 1-3 (skip padding, wgmma QK, wgmma PV) as the start" || exit 1
cat kernels/sparse_mla/tunables.json
"$AR" run --kernel sparse_mla --agent tune --strategy evolution --tag "$TAG" --seed 11 --goal 10x --plateau 0 \
  --profile false --max-hours "${RUN_HOURS:-0.035}" > "$out/$TAG.run.console.txt" 2>&1
echo "run rc=$?"; tail -4 "$out/$TAG.run.console.txt"
gzip -c ".autoresearch/runs/$run/experiments.jsonl" > "$out/$TAG.experiments.jsonl.gz"
"$AR" report "$run" > "$out/$TAG.report.txt" 2>&1
g checkout -q --detach "autoresearch/$run" || exit 1
"$AR" dispatch "$run" --max-variants 3 --seed 5 > "$out/$TAG.dispatch.console.txt" 2>&1
echo "dispatch rc=$?"; tail -30 "$out/$TAG.dispatch.console.txt"
cp ".autoresearch/dispatch/$run/dispatch.json" "$out/$TAG.dispatch.json" 2>/dev/null
cp ".autoresearch/dispatch/$run/build/selector/src/dispatch_selector.cu" "$out/$TAG.dispatch_selector.cu" 2>/dev/null
git log --format='%h %s' -n 3 > "$out/$TAG.branch.txt"
exit 0
