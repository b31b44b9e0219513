#!/usr/bin/env bash
# Prepared for the next session's device time (2026-12-07, evening):
# 1. idea 59 (FP8's producer-dequantised tiles in the 128-byte swizzle, as 58 did for BF16) on ideas36's head,
#    --focus 'fp8_*' (tag ideas37);
# 2. the screen of calls-2026-12-07f.sh: the stack with 58 with and without the row path at B=1..128;
# 3. the issue's table at the newest head (ideas37 where part 1 kept 59, else ideas36): on an H200 it is the
#    table the issue's targets are set on.
# PARTS (default "1 2 3") picks the parts; everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29 33 34 36
calls_start run table screen
calls_parts "1 2 3"
part 1 && judge_idea ideas37 kernels/sparse_mla/results/ideas36.bundle autoresearch/sparse_mla-ideas36 \
  59-fp8-tile-swizzled 'fp8_*'
if part 2; then
  OUT=$W/screen bash scripts/device/calls-2026-12-07f.sh > "$W/screen/log.txt" 2>&1
  cat "$W/screen/log.txt"
  pack
fi
REF=autoresearch/sparse_mla-ideas36
[ -s "$W/run/ideas37.bundle" ] && REF=autoresearch/sparse_mla-ideas37
if part 3; then table_at "$REF" 200; fi
