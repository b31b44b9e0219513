#!/usr/bin/env bash
# The main job on any machine: set up, build the tool (only the tool, not the
# tests), and tune the CPU demo package (a tiled matrix multiply) until it is
# 1.5x faster or 30 candidates were tried. Results: the run's branch and
# `./build/autoresearch log`. On a GPU machine use:
#   ./build/autoresearch run --kernel sparse_mla --goal 2x
set -euo pipefail
cd "$(dirname "$0")/.."

t0=$(date +%s)
echo "building autoresearch (the first time takes minutes; the compiler's output goes to build/setup.log)"
bash scripts/setup.sh --quiet --target autoresearch
echo "built in $(( $(date +%s) - t0 )) s"
echo "tuning matmul_cpu to 1.5x, 30 candidates at most (the first run also builds the package's harness, about a minute)"
echo
set +e
./build/autoresearch run --kernel matmul_cpu --goal 1.5x --max-iters 30 --config configs/quick.json "$@"
code=$?
set -e
echo
if [ "$code" -eq 4 ]; then
  echo "the machine is missing something; what and how to fix it:"
  ./build/autoresearch doctor || true
  exit "$code"
fi
./build/autoresearch log
echo
case "$code" in
  0) echo "goal reached (exit 0)." ;;
  3) echo "stopped by the budget before the goal (exit 3)." ;;
  130) echo "interrupted (exit 130)." ;;
  *) echo "exit $code (see the README's exit codes)." ;;
esac
echo "next: ./build/autoresearch runs (every run); git log <branch> (one commit per keep);"
echo "      ./build/autoresearch adopt <run> (the best, as one commit on your branch) or --patch FILE"
echo "demo took $(( $(date +%s) - t0 )) s in all"
[ "$code" -eq 0 ] || [ "$code" -eq 3 ]
