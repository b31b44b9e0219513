#!/usr/bin/env bash
# The instruction-fetch probe (icache_probe.cu) at several code sizes. Output under $OUT.
#   bash scripts/device/icache_probe/run.sh
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/icache_probe.XXXXXX)}
export PATH=/usr/local/cuda/bin:$PATH
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } | tee "$OUT_DIR/icache_probe.txt"
for k in ${KSTEPS_LIST:-64 192 384 768}; do
  nvcc -O3 -arch=sm_90a -DKSTEPS=$k -o "$OUT_DIR/icp$k" "$DIR/icache_probe.cu"
  "$OUT_DIR/icp$k" | tee -a "$OUT_DIR/icache_probe.txt"
  rm -f "$OUT_DIR/icp$k"
done
