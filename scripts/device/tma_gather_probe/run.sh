#!/usr/bin/env bash
# TMA boxes into wgmma's swizzled layout against bulk copies per row (tma_gather_probe.cu says what and
# why). On the GPU machine; output under $OUT.
#   bash scripts/device/tma_gather_probe/run.sh
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvcc -std=c++17 -O3 -arch=sm_90a "$here/tma_gather_probe.cu" -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/tma_gather_probe || exit 1
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  for part in check bulk tma tma2 tma4 tma8; do   # each in its own process: a fault must not lose the others
    /tmp/tma_gather_probe "$part" || echo "$part: exit $?"
  done
} 2>&1 | tee "$out/tma_gather_probe.txt"
