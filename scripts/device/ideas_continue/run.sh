#!/usr/bin/env bash
# A run that continues a record run on the GPU machine: it starts from the head
# of an earlier run's branch (fetched from its bundle) and proposes only the
# prepared ideas named, each judged and tuned by the tool as in
# scripts/ideas_run.sh. The two branches together are one chain of kept
# commits from the plain start: the earlier run's, then this one's.
# Cheaper than a record run from the start when the device time left is short.
#
#   BUNDLE=.carry/ideas11.bundle BASE=autoresearch/sparse_mla-ideas11 TAG=ideas12 \
#   IDEAS="11-row-gathers 13-skip-idle-warpgroup" AUTORESEARCH=.carry/autoresearch \
#   bash scripts/device/ideas_continue/run.sh
#
# A bundle holds only its run's commits: fetch the earlier runs' bundles of the chain first (RESULTS.md,
# 2026-12-04, lists the commands). FOCUS=PATTERN aims the run at those workloads (run --focus, passed quoted: EXTRA_ARGS is split on
# spaces and a pattern there could match files). Where this checkout's manifest declares more than BASE's
# (a tunable a new idea reads), it is committed first, on its own. Console, log, branch log and the new commits (a bundle
# on top of BASE) go under $OUT.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
AR=$(realpath "${AUTORESEARCH:-$REPO/build/autoresearch}")
OUT_DIR=${OUT:-$(mktemp -d /tmp/ideas_continue.XXXXXX)}
mkdir -p "$OUT_DIR"
BUNDLE=$(realpath "${BUNDLE:?BUNDLE: the bundle of the earlier run}")
BASE=${BASE:?BASE: the branch in BUNDLE to continue}
TAG=${TAG:?TAG: the tag of this run}
IDEAS=${IDEAS:?IDEAS: the prepared ideas to propose, by file name without .patch}
TUNE_EACH=${TUNE_EACH:-2}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
# The GPU machine's copy may carry uncommitted files; the worktree below needs only the bundle.
git fetch -q "$BUNDLE" "$BASE:refs/heads/continue-base-$TAG" || exit 1
work=$(mktemp -d /tmp/ideas_continue.work.XXXXXX)
git worktree add -q -b "continue-$TAG" "$work/tree" "continue-base-$TAG" || exit 1
# The agent proposes the files of this folder in order (scripts/apply_ideas.sh).
mkdir -p "$work/ideas"
for idea in $IDEAS; do
  cp "$REPO/scripts/ideas/sparse_mla/$idea".* "$work/ideas/" || exit 1
done
cd "$work/tree"
# The package's declaration (its manifest: tunables, constraints, workloads) as this checkout
# has it, where it grew since BASE (a tunable a new idea reads): a commit of its own before the
# run, the kernel untouched, so the run's start is BASE's kernel under today's declaration.
manifest=kernels/sparse_mla/manifest.json
if ! cmp -s "$REPO/$manifest" "$manifest"; then
  cp "$REPO/$manifest" "$manifest"
  git -c user.name="${GIT_AUTHOR_NAME:-autoresearch}" -c user.email="${GIT_AUTHOR_EMAIL:-autoresearch@localhost}" \
    commit -qm "sparse_mla: the manifest as $(git -C "$REPO" rev-parse --short HEAD) declares it (tunables added since $BASE; the kernel unchanged)" -- "$manifest" || exit 1
  echo "the manifest brought up to date from $(git -C "$REPO" rev-parse --short HEAD): $(git log -1 --format=%h)"
fi
"$AR" run --kernel sparse_mla --agent command --agent-cmd "bash $REPO/scripts/apply_ideas.sh $work/ideas" \
  --tune-each "$TUNE_EACH" --tag "$TAG" --plateau 0 --goal "${GOAL:-5x}" --profile false \
  ${FOCUS:+--focus "$FOCUS"} ${EXTRA_ARGS:-} 2>&1 |
  tee "$OUT_DIR/$TAG.console.txt" | grep -v '^\[#'
# Only the new commits in the bundle: fetch it into a repository that has BASE.
source "$REPO/scripts/ideas_records.sh"
save_run_records "$AR" "$OUT_DIR" "$TAG" "continue-base-$TAG"
