#!/usr/bin/env bash
# The main job on any machine: set up, build, and tune the CPU demo package
# (a tiled matrix multiply) until it is 1.5x faster or 30 candidates were
# tried. Results: the run's branch and `./build/autoresearch log`.
# On a GPU machine use: ./build/autoresearch run --kernel sparse_mla --goal 2x
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
./build/autoresearch doctor || true
set +e
./build/autoresearch run --kernel matmul_cpu --goal 1.5x --max-iters 30 --config configs/quick.json "$@"
code=$?
set -e
./build/autoresearch log
echo "run exit code: $code (0 goal reached, 3 budget or plateau; see README)"
[ "$code" -eq 0 ] || [ "$code" -eq 3 ]
