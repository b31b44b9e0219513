#!/usr/bin/env bash
# scripts/apply_ideas.sh as a run calls it (AUTORESEARCH_ITERATION, _WORKTREE,
# _CONTEXT_DIR), in a throwaway git repository: proposal N applies the N-th
# patch and its .sets, records the idea; an idea written for two states applies
# as the version that fits (NAME.alt-LABEL.diff); one that fits neither changes
# nothing and says why; past the last patch it exits 3. And the stacks the
# benches build (scripts/ideas_package.sh) take the version a run would.
#
#   apply_ideas_test.sh PATH/TO/apply_ideas.sh
set -uo pipefail
APPLY=${1:?usage: apply_ideas_test.sh PATH/TO/apply_ideas.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {   # check WHAT COMMAND...: the command must succeed
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

repo=$work/repo ideas=$work/ideas ctx=$work/ctx
mkdir -p "$repo/kernels/k" "$ideas" "$ctx"
git -C "$repo" init -q
printf 'a = 1\nb = 2\n' > "$repo/kernels/k/kernel.cu"
printf '{\n  "TILE": 32\n}\n' > "$repo/kernels/k/tunables.json"
git -C "$repo" add -A && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm start

diff_of() {   # diff_of FROM TO: a patch of kernels/k/kernel.cu, as git diff writes it
  (cd "$work" && mkdir -p x/a/kernels/k x/b/kernels/k && printf "$1" > x/a/kernels/k/kernel.cu &&
    printf "$2" > x/b/kernels/k/kernel.cu && cd x && git diff --no-index a/kernels/k/kernel.cu b/kernels/k/kernel.cu |
    sed 's#a/a/#a/#; s#b/b/#b/#'; rm -rf "$work/x")
}
{ echo "IDEA: first idea"; diff_of 'a = 1\nb = 2\n' 'a = 10\nb = 2\n'; } > "$ideas/01-first.patch"
printf 'TILE=64\nSTAGES=2\n' > "$ideas/01-first.sets"
# idea 2 is written for the start (a = 1) and, as an alternate, for idea 1's state (a = 10)
{ echo "IDEA: second idea"; diff_of 'a = 1\nb = 2\n' 'a = 1\nb = 20\n'; } > "$ideas/02-second.patch"
diff_of 'a = 10\nb = 2\n' 'a = 10\nb = 20\n' > "$ideas/02-second.alt-after-01.diff"
# idea 3 fits no state this test reaches
{ echo "IDEA: third idea"; diff_of 'a = 7\nb = 20\n' 'a = 7\nb = 30\n'; } > "$ideas/03-third.patch"

propose() {   # propose N: apply_ideas.sh as proposal N of a run; its exit code in $rc, stderr in $err
  err=$(AUTORESEARCH_ITERATION=$1 AUTORESEARCH_WORKTREE=$repo AUTORESEARCH_CONTEXT_DIR=$ctx \
        bash "$APPLY" "$ideas" 2>&1 >/dev/null)
  rc=$?
}

propose 1
check "proposal 1 exits 0" test "$rc" = 0
check "proposal 1 applies patch 1" grep -qx 'a = 10' "$repo/kernels/k/kernel.cu"
check "proposal 1 records its idea" grep -qx 'first idea' "$ctx/idea.txt"
check "proposal 1 sets an existing tunable" grep -q '"TILE": 64' "$repo/kernels/k/tunables.json"
check "proposal 1 adds a new tunable" grep -q '"STAGES": 2' "$repo/kernels/k/tunables.json"
check "the tunables stay JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$repo/kernels/k/tunables.json"

propose 2   # idea 1 kept: the primary patch no longer fits, its alternate does
check "proposal 2 exits 0" test "$rc" = 0
check "proposal 2 applies the alternate written for idea 1's state" grep -qx 'b = 20' "$repo/kernels/k/kernel.cu"
check "proposal 2 keeps idea 1" grep -qx 'a = 10' "$repo/kernels/k/kernel.cu"
check "proposal 2 records the primary patch's idea" grep -qx 'second idea' "$ctx/idea.txt"

git -C "$repo" checkout -q -- .   # idea 1 and 2 discarded: back to the start
propose 2
check "on the start, proposal 2 applies the primary patch" grep -qx 'b = 20' "$repo/kernels/k/kernel.cu"
check "on the start, proposal 2 leaves a = 1" grep -qx 'a = 1' "$repo/kernels/k/kernel.cu"

before=$(cat "$repo/kernels/k/kernel.cu")
propose 3
check "a patch that fits no state exits 0 (the loop logs an agent error)" test "$rc" = 0
check "a patch that fits no state changes nothing" test "$(cat "$repo/kernels/k/kernel.cu")" = "$before"
check "a patch that fits no state says so" grep -q "does not apply" <<< "$err"

propose 4
check "past the last patch: exit 3" test "$rc" = 3

# The bench's stacks (scripts/ideas_package.sh) apply what a run applies: a version that fits only with
# fuzz is not applied (git apply in a run refuses it); its alternate, written for that state, is.
source "$(dirname "$APPLY")/ideas_package.sh"
fz=$work/fuzz
mkdir -p "$fz/ideas" "$fz/src"
start='l1\nl2\nl3\nX\nl5\nl6\nl7\n'
printf "$start" > "$fz/src/kernel.cu"
{ echo "IDEA: one"; diff_of "$start" 'L1\nl2\nl3\nX\nl5\nl6\nl7\n'; } > "$fz/ideas/01-one.patch"
{ echo "IDEA: two"; diff_of "$start" 'l1\nl2\nl3\nY\nl5\nl6\nl7\n'; } > "$fz/ideas/02-two.patch"
diff_of 'L1\nl2\nl3\nX\nl5\nl6\nl7\n' 'L1\nl2\nl3\nY\nl5\nl6\nL7\n' > "$fz/ideas/02-two.alt-after-01.diff"
IDEAS_PACKAGE_SRC=$fz/src ideas_package "$fz/pkg" "$fz/ideas/01-one.patch" "$fz/ideas/02-two.patch"
check "a stack builds where every idea has a version that fits" test "$?" = 0
check "a stack takes the alternate where the patch would fit only with fuzz" grep -qx 'L7' "$fz/pkg/kernel.cu"
check "a stack leaves no backup files" test ! -e "$fz/pkg/kernel.cu.orig"

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
