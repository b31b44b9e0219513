#!/usr/bin/env bash
# The device call of 2026-12-07, one call of at most ten minutes, in order of what matters most (each part
# under $OUT/NAME, each bounded so that the later ones still run):
# 1. ideas 55 and 56 judged by `run` on top of ideas29's head (the record: run verifies, confirms and
#    sanitizes a keep);
# 2. the issue's table at the head that run leaves (ideas32's: ideas29's kernel where nothing was kept);
# 3. the instruction-fetch probe;
# 4. the interleaved screen of 55 and 55+56 beside the head and Q_TMA=0, with each stack's SASS of ar_stage0
#    (the entry point B=1's blocks run: where its code goes);
# 5. where time is left, B=1's launch shapes.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
for N in 17 19 20 21 22 23 29; do
  git fetch -q kernels/sparse_mla/results/ideas$N.bundle autoresearch/sparse_mla-ideas$N:autoresearch/sparse_mla-ideas$N
done
export H=1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50
export S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,PRODUCER_WARPS=1,QK_PIPELINE=0,QK_WGMMA=1,ROW_GATHER=1,SPLIT_WAVES=1,THREADS=256
AR=$(realpath .carry/autoresearch)
O=${OUT:?}
mkdir -p "$O/run" "$O/table" "$O/s55" "$O/shapes" "$O/icp"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
if [ -z "${PROBES_ONLY:-}" ]; then   # PROBES_ONLY=1: the fetch probe and the screens only, for a call too short for run
BUNDLE=kernels/sparse_mla/results/ideas29.bundle BASE=autoresearch/sparse_mla-ideas29 TAG=ideas32 \
  IDEAS="55-row-q-by-tensor-map 56-chunk-q-by-tensor-map" TUNE_EACH=0 AUTORESEARCH=$AR \
  EXTRA_ARGS="--max-hours 0.05 --seed 7" OUT=$O/run timeout 250 bash scripts/device/ideas_continue/run.sh \
  > "$O/run/log.txt" 2>&1
grep -v '^\[#' "$O/run/log.txt" | tail -12
date -u
REF=autoresearch/sparse_mla-ideas32
git rev-parse -q --verify "$REF" > /dev/null || REF=autoresearch/sparse_mla-ideas29
AUTORESEARCH=$AR REF=$REF OUT=$O/table timeout 120 bash scripts/device/sparse_mla_table/run.sh > "$O/table/log.txt" 2>&1
tail -14 "$O/table/log.txt"
fi
date -u
OUT=$O/icp timeout 45 bash scripts/device/icache_probe/run.sh > "$O/icp/log.txt" 2>&1
cat "$O/icp/log.txt"
SLOTS="head=$H:$S i55=$H+55:$S i5556=$H+55+56:$S i55off=$H+55+56:$S,Q_TMA=0" \
  WORKLOADS=b16_32k,b128_32k,b1_32k,fp8_b128_32k SASS=ar_stage0 OUT=$O/s55 \
  timeout 100 bash scripts/device/slots_bench/run.sh > "$O/s55/log.txt" 2>&1
grep "^==" "$O/s55/log.txt"; rm -f "$O"/s55/*.err
date -u
OUT=$O/shapes timeout 60 bash scripts/device/fixed_costs/shapes.sh > "$O/shapes/log.txt" 2>&1
grep "^==" "$O/shapes/log.txt"; rm -f "$O"/shapes/*.err
date -u
