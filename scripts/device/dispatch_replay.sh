#!/usr/bin/env bash
# `autoresearch dispatch` on the committed tuner run disp2 (kernels/sparse_mla/results/
# disp2.experiments.jsonl.gz, made by scripts/device/dispatch_proof.sh on the H200):
# its start commit is made again (the same three idea patches on the same parent,
# so the same tree; nothing was kept, so the start is the run's best), the log's
# base_commit names it, and the branch points at it. Then the dispatch is built,
# verified, measured against the single best and committed if faster.
# Afterwards, with what time is left: the `init` CUDA demo checked as generated,
# and the rest of the sparse_mla space (harness_and_space.sh).
#   bash scripts/device/dispatch_replay.sh
set -uo pipefail
AR="$PWD/.carry/autoresearch"
export PATH=/usr/local/cuda/bin:$PATH AUTORESEARCH_HOME=$PWD AUTORESEARCH_CACHE_DIR=${AUTORESEARCH_CACHE_DIR:-/tmp/arcache}
out=${OUT:-/tmp/out}; mkdir -p "$out"
run=sparse_mla-disp2
g() { git -c user.name=d -c user.email=d@d "$@"; }
g add -A >/dev/null; g commit -qm device >/dev/null 2>&1
parent=$(git rev-parse HEAD)
for p in scripts/ideas/sparse_mla/0[123]-*.patch; do g apply "$p" || { echo "cannot apply $p"; exit 1; }; done
sed -i 's/"KEYS_PER_TILE": *[0-9]*/"KEYS_PER_TILE": 64/; s/"KV_STAGES": *[0-9]*/"KV_STAGES": 2/' kernels/sparse_mla/tunables.json
g commit -qam "sparse_mla: the human's ideas 1-3 (skip padding, wgmma QK, wgmma PV) as the start" || exit 1
start=$(git rev-parse HEAD)
echo "start $start (tree $(git rev-parse HEAD^{tree}), parent $parent)" | tee "$out/disp2.replay.txt"
mkdir -p ".autoresearch/runs/$run"
zcat kernels/sparse_mla/results/disp2.experiments.jsonl.gz |
  python3 -c "import json,sys
lines=sys.stdin.read().splitlines(); h=json.loads(lines[0]); h['base_commit']='$start'
print(json.dumps(h)); print('\n'.join(lines[1:]))" > ".autoresearch/runs/$run/experiments.jsonl"
g branch -f "autoresearch/$run" "$start"
timeout 330 "$AR" dispatch "$run" --max-variants 3 --seed 5 > "$out/disp2.dispatch2.console.txt" 2>&1
echo "dispatch rc=$?" | tee -a "$out/disp2.dispatch2.console.txt"; tail -22 "$out/disp2.dispatch2.console.txt"
cp ".autoresearch/dispatch/$run/dispatch.json" "$out/disp2.dispatch2.json" 2>/dev/null
cp ".autoresearch/dispatch/$run/build/src/dispatch.cu" "$out/disp2.dispatch2.cu" 2>/dev/null
git log --format='%h %s' -n 3 > "$out/disp2.dispatch2.branch.txt"
g checkout -q "$parent" 2>/dev/null || g checkout -q -f "$parent"
VERIFY_SPARSE_MLA=0 SKIP_VERIFY=${SKIP_DEMO:-0} SPACE_SECONDS=${SPACE_SECONDS:-60} bash scripts/device/harness_and_space.sh 2>&1 | tail -12
exit 0
