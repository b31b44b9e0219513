#!/bin/sh
# The agent of the CPU cheat suite, for `autoresearch run --agent command`:
#   autoresearch run --kernel matmul_cpu --agent command \
#     --agent-cmd "sh /path/to/tests/e2e/cheats/apply_cheat.sh"
# On call i (AUTORESEARCH_ITERATION = i, from 1) it applies entry i of the suite
# in cpu/: the cheats in name order, then the honest variants (honest_*) in name
# order, so every cheat meets the textbook starting kernel as the incumbent (a
# fast honest variant kept early would make slower cheats "clear losers" before
# the guard that must stop them is reached). A .cpp replaces the package's
# kernel.cpp; a .sh is run from the worktree root (it edits what it must not).
# It writes the idea "cheat: NAME" (or "honest: NAME") and exits 0; after the
# last entry it exits 3 (nothing left to try). `apply_cheat.sh --list` prints
# the order.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
suite() {
  ls "$here/cpu" | grep -E '\.(cpp|sh)$' | grep -v '^honest_' | LC_ALL=C sort
  ls "$here/cpu" | grep -E '^honest_.*\.cpp$' | LC_ALL=C sort
}

if [ "${1:-}" = "--list" ]; then
  suite
  exit 0
fi

: "${AUTORESEARCH_ITERATION:?set by autoresearch run --agent command}"
: "${AUTORESEARCH_PACKAGE_DIR:?set by autoresearch run --agent command}"
: "${AUTORESEARCH_CONTEXT_DIR:?set by autoresearch run --agent command}"

entry=$(suite | sed -n "${AUTORESEARCH_ITERATION}p")
if [ -z "$entry" ]; then
  echo "apply_cheat: the suite has $(suite | wc -l) entries; nothing left to try" >&2
  exit 3
fi
name=${entry%.*}
case "$entry" in
  honest_*) kind=honest ;;
  *) kind=cheat ;;
esac

case "$entry" in
  *.cpp) cp "$here/cpu/$entry" "$AUTORESEARCH_PACKAGE_DIR/kernel.cpp" ;;
  *.sh) sh -eu "$here/cpu/$entry" ;;
esac
printf '%s: %s\n' "$kind" "$name" > "$AUTORESEARCH_CONTEXT_DIR/idea.txt"
echo "apply_cheat: #$AUTORESEARCH_ITERATION $kind $name" >&2
