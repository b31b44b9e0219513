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
# logs as an agent error with git's reason, unless an alternate version of it,
# NAME.alt-LABEL.diff beside NAME.patch, applies. After the last patch: exit 3,
# "nothing left to try".
#
# A patch may come with NAME.sets beside it (NAME.patch -> NAME.sets): lines
# TUNABLE=VALUE for the package's tunables file, the configuration the idea is
# meant for (--tune-each then sweeps around it). PACKAGE in the .sets file's
# first line "# package: DIR" names the package folder (default: the folder of
# the patch's first file).
set -uo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ideas_package.sh"   # idea_versions
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
# The patch, or the first of its alternates (NAME.alt-LABEL.diff: the same idea
# written for the state where an earlier idea was kept, or not) that applies.
applied=
for version in $(idea_versions "$patch"); do
  if git apply --whitespace=nowarn "$version" 2> /dev/null; then
    applied=$version
    break
  fi
done
if [ -z "$applied" ]; then
  echo "$(basename "$patch") does not apply to the current best, nor does any alternate of it (it builds on a change that was not kept)" >&2
  git apply --check --whitespace=nowarn "$patch"   # git's reason, for the log
  exit 0
fi
[ "$applied" = "$patch" ] || echo "applied $(basename "$applied") (the current best is the state that version is for)"
sets=${patch%.patch}.sets
[ -f "$sets" ] || exit 0
pkg=$(sed -n '1s/^# package: //p' "$sets")
[ -n "$pkg" ] || pkg=$(dirname "$(sed -n 's#^+++ b/##p' "$patch" | head -1)")
file="$pkg/tunables.json"
[ -f "$file" ] || echo '{}' > "$file"
# The file is the tool's own JSON: one "NAME": value per line (or {} when empty).
while IFS='=' read -r name value; do
  case "$name" in ''|'#'*) continue ;; esac
  if grep -q "\"$name\":" "$file"; then
    sed -i "s/\"$name\": *-\{0,1\}[0-9]*/\"$name\": $value/" "$file"
  elif grep -q '^{}$' "$file"; then
    printf '{\n  "%s": %s\n}\n' "$name" "$value" > "$file"
  else
    sed -i "0,/^{/s//{\n  \"$name\": $value,/" "$file"
  fi
done < "$sets"
exit 0
