#!/usr/bin/env bash
# wgmma on TMA-gathered rows in the 128-byte-swizzled layout: descriptor check and a tile's time
# (wgmma_sw128_probe.cu says what and why), the tile timed with 4 and 8 issuing warps and in halves.
# On the GPU machine; output under $OUT. SET=pairs times, instead, block pairs that gather the same rows (B=16's
# two head groups of a token) against blocks with rows of their own.
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
  if [ "${SET:-}" = pairs ]; then
    # B=16's rows: block pairs gather the same rows (b16_32k's two head groups of a token), against rows of
    # their own, with 8 issuing warps: the steady rate and b16_32k's shape, whole and the gather alone.
    for shape in "132 64" "128 8"; do
      for mode in full gather; do
        for rows in own pairs; do
          /tmp/wgmma_sw128_probe time 8 "$mode" $shape "$rows" || echo "time 8 $mode $shape $rows: exit $?"
        done
      done
    done
  else
    # The tile's steady rate (132 blocks of 64 tiles) with 4 and 8 issuing warps, whole and in halves; then
    # b16_32k's shape (128 blocks of 8 tiles).
    for issuers in 4 8; do
      for mode in full math gather; do
        /tmp/wgmma_sw128_probe time "$issuers" "$mode" 132 64 || echo "time $issuers $mode: exit $?"
      done
      /tmp/wgmma_sw128_probe time "$issuers" full 128 8 || echo "time $issuers full 128 8: exit $?"
    done
  fi
} 2>&1 | tee "$out/wgmma_sw128_probe.txt"
