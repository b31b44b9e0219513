#!/usr/bin/env bash
# A `--agent command` agent that applies prepared changes, one per proposal:
# the human has the ideas, the loop judges them (and --tune-each tunes them).
#
#   autoresearch run --kernel sparse_mla --agent command \
#       --agent-cmd "bash scripts/apply_ideas.sh scripts/ideas/sparse_mla" --tune-each 8
#
# Proposal N applies the N-th patch of DIR (sorted by name; repo-relative
# paths, as `git diff` writes them) in the run's worktree. A patch's first line
# `IDEA: ...` is the idea the log records. A patch that no longer applies
# (an earlier one it builds on was not kept) changes nothing, which the loop
# logs as an agent error with git's reason. After the last patch: exit 3,
# "nothing left to try".
set -uo pipefail
dir=${1:?usage: apply_ideas.sh DIR_OF_PATCHES}
case "$dir" in /*) ;; *) dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/$dir" ;; esac
mapfile -t patches < <(find "$dir" -maxdepth 1 -name '*.patch' | sort)
n=${AUTORESEARCH_ITERATION:?run me as the --agent command of autoresearch run}
if [ "$n" -gt "${#patches[@]}" ]; then
  echo "all ${#patches[@]} prepared changes proposed"
  exit 3
fi
patch=${patches[$((n - 1))]}
idea=$(sed -n '1s/^IDEA: //p' "$patch")
[ -n "$idea" ] || idea="apply $(basename "$patch")"
echo "$idea" > "$AUTORESEARCH_CONTEXT_DIR/idea.txt"
cd "$AUTORESEARCH_WORKTREE"
if ! git apply --whitespace=nowarn "$patch"; then
  echo "$(basename "$patch") does not apply to the current best (it builds on a change that was not kept)" >&2
fi
exit 0
