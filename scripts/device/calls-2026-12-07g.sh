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
for N in 17 19 20 21 22 23 29 33 34 36; do
  git rev-parse -q --verify autoresearch/sparse_mla-ideas$N > /dev/null ||
    git fetch -q kernels/sparse_mla/results/ideas$N.bundle autoresearch/sparse_mla-ideas$N:autoresearch/sparse_mla-ideas$N
done
AR=$(realpath .carry/autoresearch)
O=${OUT:?}
W=$(mktemp -d /tmp/calls.XXXXXX)
mkdir -p "$W/run" "$W/table" "$W/screen"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
pack() { tar -C "$W" -czf "$O/calls.tar.gz.part" . && mv "$O/calls.tar.gz.part" "$O/calls.tar.gz"; }
PARTS=" ${PARTS:-1 2 3} "
part() { [[ $PARTS == *" $1 "* ]]; }
if part 1; then
  BUNDLE=kernels/sparse_mla/results/ideas36.bundle BASE=autoresearch/sparse_mla-ideas36 TAG=ideas37 \
    IDEAS=59-fp8-tile-swizzled FOCUS='fp8_*' TUNE_EACH=0 AUTORESEARCH=$AR \
    EXTRA_ARGS="--max-hours 0.05 --seed 7" OUT=$W/run timeout 200 bash scripts/device/ideas_continue/run.sh \
    > "$W/run/ideas37.out.txt" 2>&1
  grep -v '^\[#' "$W/run/ideas37.out.txt" | grep -E '^#|^stopped|^could not|^no bundle|error|FAIL|wrong' | cut -c1-600
  date -u
  pack
fi
if part 2; then
  OUT=$W/screen bash scripts/device/calls-2026-12-07f.sh > "$W/screen/log.txt" 2>&1
  cat "$W/screen/log.txt"
  pack
fi
REF=autoresearch/sparse_mla-ideas36
[ -s "$W/run/ideas37.bundle" ] && REF=autoresearch/sparse_mla-ideas37
if part 3; then
  AUTORESEARCH=$AR REF=$REF OUT=$W/table timeout 200 bash scripts/device/sparse_mla_table/run.sh > "$W/table/log.txt" 2>&1
  tail -14 "$W/table/log.txt"
  date -u
  pack
fi
