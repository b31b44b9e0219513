#!/usr/bin/env bash
# The fourth device call of 2026-12-07: idea 58 (the chunk-major path's BF16 key tiles in the 128-byte swizzle,
# read by swizzled descriptors) on ideas34's head, --focus 'b1_*' (tag ideas36); then the phase marks of the stack
# with 58 (does S get faster than the 1.9 µs the marks had for it?), b1_32k. PARTS (default "1 2") picks the
# parts; everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
for N in 17 19 20 21 22 23 29 33 34; do
  git rev-parse -q --verify autoresearch/sparse_mla-ideas$N > /dev/null ||
    git fetch -q kernels/sparse_mla/results/ideas$N.bundle autoresearch/sparse_mla-ideas$N:autoresearch/sparse_mla-ideas$N
done
AR=$(realpath .carry/autoresearch)
O=${OUT:?}
W=$(mktemp -d /tmp/calls.XXXXXX)
mkdir -p "$W/run" "$W/phases"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
pack() { tar -C "$W" -czf "$O/calls.tar.gz.part" . && mv "$O/calls.tar.gz.part" "$O/calls.tar.gz"; }
PARTS=" ${PARTS:-1 2} "
part() { [[ $PARTS == *" $1 "* ]]; }
if part 1; then
  BUNDLE=kernels/sparse_mla/results/ideas34.bundle BASE=autoresearch/sparse_mla-ideas34 TAG=ideas36 \
    IDEAS=58-chunk-tile-swizzled FOCUS='b1_*' TUNE_EACH=0 AUTORESEARCH=$AR \
    EXTRA_ARGS="--max-hours 0.05 --seed 7" OUT=$W/run timeout 200 bash scripts/device/ideas_continue/run.sh \
    > "$W/run/ideas36.out.txt" 2>&1
  grep -v '^\[#' "$W/run/ideas36.out.txt" | grep -E '^#|^stopped|^could not|^no bundle|error|FAIL|wrong' | cut -c1-600
  date -u
  pack
fi
if part 2; then
  S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,PRODUCER_WARPS=1,QK_PIPELINE=0,QK_WGMMA=1,ROW_GATHER=1,SPLIT_WAVES=1,THREADS=256
  REF="1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50+55+56+58:$S" PROBE_PATCH=marks WORKLOADS=b1_32k OUT=$W/phases \
    timeout 150 bash scripts/device/phase_probe/run.sh > "$W/phases/log.txt" 2>&1
  grep -A12 "^==" "$W/phases/phases.txt" | cut -c1-400 | head -20
  date -u
  pack
fi
