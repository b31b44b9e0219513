#!/usr/bin/env bash
# wgmma on TMA-gathered rows in the 128-byte-swizzled layout: descriptor check and a tile's time
# (wgmma_sw128_probe.cu says what and why), the tile timed with 4 and 8 issuing warps and in halves.
# On the GPU machine; output under $OUT.
#   bash scripts/device/wgmma_sw128_probe/run.sh
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas=-v "$here/wgmma_sw128_probe.cu" -L/usr/local/cuda/lib64/stubs -lcuda \
  -o /tmp/wgmma_sw128_probe > /tmp/wgmma_sw128_probe.build.txt 2>&1 || { cat /tmp/wgmma_sw128_probe.build.txt; exit 1; }
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  grep -E "registers|spill" /tmp/wgmma_sw128_probe.build.txt
  for part in check check-swapped; do   # each in its own process: a wrong descriptor may fault
    /tmp/wgmma_sw128_probe "$part" || echo "$part: exit $?"
  done
  # The tile's steady rate (132 blocks of 64 tiles) with 4 and 8 issuing warps, whole and in halves; then
  # b16_32k's shape (128 blocks of 8 tiles).
  for issuers in 4 8; do
    for mode in full math gather; do
      /tmp/wgmma_sw128_probe time "$issuers" "$mode" 132 64 || echo "time $issuers $mode: exit $?"
    done
    /tmp/wgmma_sw128_probe time "$issuers" full 128 8 || echo "time $issuers full 128 8: exit $?"
  done
} 2>&1 | tee "$out/wgmma_sw128_probe.txt"
