#!/usr/bin/env bash
# The human's prepared ideas for sparse_mla, judged by the tool on a GPU (issue 9):
# one `autoresearch run --agent command` whose agent applies patch N of
# scripts/ideas/sparse_mla on call N, each tuned by --tune-each. Before the run,
# the wgmma probe checks the descriptor layout of the wgmma idea on its own.
# The console, log, table and branch go under $OUT.
#
#   AUTORESEARCH=./build/autoresearch TAG=ideas2 TUNE_EACH=8 [EXTRA_ARGS="--max-hours 0.1"] scripts/ideas_run.sh
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AR=${AUTORESEARCH:-$REPO/build/autoresearch}
OUT_DIR=${OUT:-$(mktemp -d /tmp/ideas_run.XXXXXX)}
TAG=${TAG:-ideas-$(date +%H%M%S)}
TUNE_EACH=${TUNE_EACH:-8}
cd "$REPO"

# The probe, against the package with every prepared patch applied (PROBE=0 skips it).
[ "${PROBE:-1}" = 1 ] && {
probe_dir=$(mktemp -d)
cp kernels/sparse_mla/*.cu kernels/sparse_mla/*.h "$probe_dir"/
for p in scripts/ideas/sparse_mla/*.patch; do
  (cd "$probe_dir" && patch -s -p3 < "$REPO/$p") || echo "probe: $(basename "$p") does not apply"
done
if nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -w -I"$probe_dir" -I include \
     tests/gpu/wgmma_probe.cu -o "$probe_dir/probe" 2> "$probe_dir/probe.err"; then
  for c in 0 1 2 3; do "$probe_dir/probe" $c; done 2>&1 | tee "$OUT_DIR/wgmma_probe.txt"   # one process per case
else
  head -20 "$probe_dir/probe.err" | tee "$OUT_DIR/wgmma_probe.txt"
fi
}

"$AR" run --kernel sparse_mla --agent command --agent-cmd "bash scripts/apply_ideas.sh scripts/ideas/sparse_mla" \
  --tune-each "$TUNE_EACH" --tag "$TAG" --plateau 0 --goal 2x --profile false ${EXTRA_ARGS:-} 2>&1 | tee "$OUT_DIR/$TAG.console.txt"
run_dir=.autoresearch/runs/sparse_mla-$TAG
gzip -c "$run_dir/experiments.jsonl" > "$OUT_DIR/$TAG.experiments.jsonl.gz" 2>/dev/null
"$AR" log "sparse_mla-$TAG" > "$OUT_DIR/$TAG.log.txt" 2>&1
git log --format='%h %s%n%b' "autoresearch/sparse_mla-$TAG" -n 4 > "$OUT_DIR/$TAG.branch.txt" 2>&1
