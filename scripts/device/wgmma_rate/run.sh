#!/usr/bin/env bash
# The tensor cores' rate on sparse_mla's tile math by shared-memory layout (wgmma_rate.cu says what and why).
#   bash scripts/device/wgmma_rate/run.sh        # on the GPU machine; output under $OUT
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a "$here/wgmma_rate.cu" -o /tmp/wgmma_rate
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  /tmp/wgmma_rate
} 2>&1 | tee "$out/wgmma_rate.txt"
