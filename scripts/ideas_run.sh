#!/usr/bin/env bash
# The human's prepared ideas for sparse_mla, judged by the tool on a GPU (issue 9):
# one `autoresearch run --agent command` whose agent applies patch N of
# scripts/ideas/sparse_mla on call N, each tuned by --tune-each. Before the run,
# the wgmma probe (scripts/ideas_bench.sh) checks the wgmma descriptors on their own.
# The console, log, table, the branch's log and the branch itself (a git bundle)
# go under $OUT.
#
#   AUTORESEARCH=./build/autoresearch TAG=ideas2 TUNE_EACH=8 [EXTRA_ARGS="--max-hours 0.1"] scripts/ideas_run.sh
#
# WORKDIR=/tmp/ideas-record: the run happens in a copy of this repository there,
# which outlives the call while the GPU machine stays warm; the same command
# again (same WORKDIR and TAG) resumes the run (`run --resume`) where the
# budget of the call before stopped it. Stop it with --max-hours, between
# candidates: a run killed mid-candidate resumes with that candidate abandoned,
# and this agent, which proposes patch N on iteration N, would skip its patch.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$REPO/scripts/ideas_records.sh"   # save_run_records
AR=$(realpath "${AUTORESEARCH:-$REPO/build/autoresearch}")
OUT_DIR=${OUT:-$(mktemp -d /tmp/ideas_run.XXXXXX)}
TAG=${TAG:-ideas-$(date +%H%M%S)}
TUNE_EACH=${TUNE_EACH:-8}
GOAL=${GOAL:-2x}   # set it above what the ideas may reach (e.g. 5x) so that every one of them is judged
run_dir=.autoresearch/runs/sparse_mla-$TAG   # relative to the tree the run happens in
if [ -n "${WORKDIR:-}" ]; then
  # A copy with this run in it is resumed; one without (a call that stopped before the run began, e.g. on
  # uncommitted files) is stale: copy this tree again, or the fix that brought the call back is not seen.
  if [ -d "$WORKDIR/.git" ] && [ ! -f "$WORKDIR/$run_dir/experiments.jsonl" ]; then
    rm -rf "$WORKDIR"
  fi
  [ -d "$WORKDIR/.git" ] || cp -a "$REPO" "$WORKDIR"
  REPO=$WORKDIR
fi
cd "$REPO"

# The wgmma probe first (scripts/ideas_bench.sh with no stack to bench; PROBE=0 skips it).
[ "${PROBE:-1}" = 1 ] && OUT="$OUT_DIR" AUTORESEARCH="$AR" bash scripts/ideas_bench.sh

if [ -f "$run_dir/experiments.jsonl" ]; then
  "$AR" run --resume "sparse_mla-$TAG" ${EXTRA_ARGS:-} 2>&1 | tee "$OUT_DIR/$TAG.resume.console.txt"
else
# The ideas are read from this tree, not from the run's worktree: that one is the
# commit the run started from, and a .sets file edited since would not be seen.
"$AR" run --kernel sparse_mla --agent command --agent-cmd "bash $REPO/scripts/apply_ideas.sh $REPO/scripts/ideas/sparse_mla" \
  --tune-each "$TUNE_EACH" --tag "$TAG" --plateau 0 --goal "$GOAL" --profile false ${EXTRA_ARGS:-} 2>&1 | tee "$OUT_DIR/$TAG.console.txt"
fi
# The log, its table, the branch's commits and the branch itself, to keep in the repository the run started from.
save_run_records "$AR" "$OUT_DIR" "$TAG"
