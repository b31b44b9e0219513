#!/usr/bin/env bash
# The third device call of 2026-12-07, after ideas33 (55, B=16) and ideas34 (56, B=1) were kept on an H100:
# 1. idea 57 on ideas34's head, --focus 'b1_*' (tag ideas35): the chunk-major BF16 tile (B=1's one tile a block)
#    gathered by all four producer warps; the phase marks of 2026-12-07 had one warp issuing it for 1.06 us;
# 2. where a block's first tile goes (the phase probe's marks, now with the scores' end inside the chunk-major
#    path's one scoring warpgroup, and the row path's first two tiles split into S^T, P^T and P V), on the
#    newest stack (H+55+56, and 57 where part 1 kept it), b1_32k and b16_32k;
# 3. the 128-byte-swizzle tile probe with block pairs that gather the same rows, as b16_32k's two head groups of a
#    token do (SET=pairs), against blocks with rows of their own: does B=16's real pattern feed that tile faster?
# 4. the issue's table at the newest head (ideas35 where part 1 kept 57, else ideas34).
# PARTS (default "1 2 3 4") picks the parts. Everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
for N in 17 19 20 21 22 23 29 33 34; do
  git rev-parse -q --verify autoresearch/sparse_mla-ideas$N > /dev/null ||
    git fetch -q kernels/sparse_mla/results/ideas$N.bundle autoresearch/sparse_mla-ideas$N:autoresearch/sparse_mla-ideas$N
done
AR=$(realpath .carry/autoresearch)
O=${OUT:?}
W=$(mktemp -d /tmp/calls.XXXXXX)
mkdir -p "$W/run" "$W/table" "$W/phases"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
pack() { tar -C "$W" -czf "$O/calls.tar.gz.part" . && mv "$O/calls.tar.gz.part" "$O/calls.tar.gz"; }
PARTS=" ${PARTS:-1 2 3 4} "
part() { [[ $PARTS == *" $1 "* ]]; }
if part 1; then
  BUNDLE=kernels/sparse_mla/results/ideas34.bundle BASE=autoresearch/sparse_mla-ideas34 TAG=ideas35 \
    IDEAS=57-chunk-tile-four-producer-warps FOCUS='b1_*' TUNE_EACH=0 AUTORESEARCH=$AR \
    EXTRA_ARGS="--max-hours 0.05 --seed 7" OUT=$W/run timeout 200 bash scripts/device/ideas_continue/run.sh \
    > "$W/run/ideas35.out.txt" 2>&1
  grep -v '^\[#' "$W/run/ideas35.out.txt" | grep -E '^#|^stopped|^could not|^no bundle|error' | cut -c1-400
  date -u
  pack
fi
STACK=1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50+55+56
REF=autoresearch/sparse_mla-ideas34
if [ -s "$W/run/ideas35.bundle" ]; then
  STACK=$STACK+57
  REF=autoresearch/sparse_mla-ideas35
fi
if part 2; then
  S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,PRODUCER_WARPS=1,QK_PIPELINE=0,QK_WGMMA=1,ROW_GATHER=1,SPLIT_WAVES=1,THREADS=256
  REF="$STACK:$S" PROBE_PATCH=marks WORKLOADS=b1_32k,b16_32k OUT=$W/phases timeout 150 \
    bash scripts/device/phase_probe/run.sh > "$W/phases/log.txt" 2>&1
  grep -A12 "^==" "$W/phases/phases.txt" | cut -c1-400 | head -40
  date -u
  pack
fi
if part 3; then
  mkdir -p "$W/sw128"
  SET=pairs OUT=$W/sw128 timeout 120 bash scripts/device/wgmma_sw128_probe/run.sh > "$W/sw128/log.txt" 2>&1
  grep -E "^check|^time" "$W/sw128/log.txt" | head -12
  date -u
  pack
fi
if part 4; then
  AUTORESEARCH=$AR REF=$REF OUT=$W/table timeout 120 bash scripts/device/sparse_mla_table/run.sh > "$W/table/log.txt" 2>&1
  tail -14 "$W/table/log.txt"
  date -u
  pack
fi
