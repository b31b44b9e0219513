#!/usr/bin/env bash
# Idea 11's products (ROW_GATHER) against the CPU on the GPU machine: tests/gpu/row_gather_probe.cu
# built on the stack STACK (default 1+2+3+5+8+11, the ideas the record run kept, then 11).
# COMPILE_ONLY=1 builds it and stops (tests/gpu/ideas_compile.sh, no GPU needed).
#   bash scripts/device/row_gather_probe/run.sh        # output under $OUT
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
work=$(mktemp -d)
source "$REPO/scripts/ideas_package.sh"
ideas_stack "${STACK:-1+2+3+5+8+11}" "$work/pkg"
# The configuration idea 11's .sets names (the #error in the kernel lists what ROW_GATHER needs).
flags=(-DHEADS_PER_BLOCK=64 -DKEYS_PER_TILE=64 -DTHREADS=256 -DKV_STAGES=2 -DEXTRA_STAGES=0 -DLDMATRIX=1
       -DPRODUCER_WARPS=1 -DPRODUCER_DEQUANT=1 -DQK_WGMMA=1 -DPAIR_GATHER=0 -DROW_GATHER=1)
nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -w -I"$work/pkg" -I "$REPO/include" "${flags[@]}" \
  "$REPO/tests/gpu/row_gather_probe.cu" -o "$work/probe"
[ "${COMPILE_ONLY:-0}" = 1 ] && { echo "row_gather_probe builds on ${STACK:-1+2+3+5+8+11}"; exit 0; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$work/probe"; } 2>&1 |
  tee "$out/row_gather_probe.txt"
