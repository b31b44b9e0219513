#!/usr/bin/env bash
# The KV-row gather rate of one SM, by engine and pool (gather_probe.cu says what and why).
#   bash scripts/device/gather_probe/run.sh        # on the GPU machine; output under $OUT
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvcc -std=c++17 -O3 -arch=sm_90a "$here/gather_probe.cu" -o /tmp/gather_probe
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  /tmp/gather_probe
  # apart: a fault here must not lose the numbers above
  /tmp/gather_probe evict-last || echo "evict-last engine failed (exit $?)"
} 2>&1 | tee "$out/gather_probe.txt"
