#!/usr/bin/env bash
# Sets up, builds, and runs every test this machine can run: unit tests, the
# harness tests, the end-to-end tests on the CPU package, and — where nvcc is
# present — a compile of the CUDA harness and kernels. Tests labelled "gpu"
# skip themselves when no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
