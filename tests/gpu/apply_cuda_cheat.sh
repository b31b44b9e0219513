#!/bin/sh
# The agent of the CUDA cheat suite, for `autoresearch run --agent command`
# (scripts/gpu_cheats_run.sh drives it on a GPU machine):
#   autoresearch run --kernel sparse_mla --agent command \
#     --agent-cmd "sh tests/gpu/apply_cuda_cheat.sh phase_const_table skip_tail honest_reordered"
# On call i it copies tests/gpu/cheats/<i-th name>.cu over the package's
# kernel.cu in the run's worktree and writes the idea "cheat: NAME" (or
# "honest: NAME"); after the last name it exits 3 (nothing left to try).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${AUTORESEARCH_ITERATION:?set by autoresearch run --agent command}"
i=0
for name in "$@"; do
  i=$((i + 1))
  [ "$i" -eq "$AUTORESEARCH_ITERATION" ] || continue
  cp "$here/cheats/$name.cu" "$AUTORESEARCH_PACKAGE_DIR/kernel.cu"
  case "$name" in honest*) kind=honest ;; *) kind=cheat ;; esac
  printf '%s: %s\n' "$kind" "$name" > "$AUTORESEARCH_CONTEXT_DIR/idea.txt"
  exit 0
done
echo "apply_cuda_cheat: all $# entries proposed" >&2
exit 3
