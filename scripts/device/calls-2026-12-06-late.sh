#!/usr/bin/env bash
# The late-evening device call of 2026-12-06, in order of what mattered most (each part under $OUT/NAME):
# ideas 55 and 55+56 verified and screened beside the head, B=1's launch shapes, the H200 table, the fetch probe.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
for N in 17 19 20 21 22 23 29; do
  git fetch -q kernels/sparse_mla/results/ideas$N.bundle autoresearch/sparse_mla-ideas$N:autoresearch/sparse_mla-ideas$N
done
export H=1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50
export S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,PRODUCER_WARPS=1,QK_PIPELINE=0,QK_WGMMA=1,ROW_GATHER=1,SPLIT_WAVES=1,THREADS=256
AR=$(realpath .carry/autoresearch)
source scripts/ideas_package.sh
O=${OUT:?}
mkdir -p "$O/v55" "$O/s55" "$O/shapes" "$O/table" "$O/icp"
date -u
# 55, and 55 + 56, verified on every workload and the hidden ones (both paths of each kernel)
mapfile -t args < <(set_args "$S")
for stack in 55 55+56; do   # 56 (the chunk-major path too) needs 55
  pkg=$(mktemp -d)/sparse_mla
  ideas_stack "$H+$stack" "$pkg"
  timeout 150 "$AR" verify --kernel "$pkg" "${args[@]}" > "$O/v55/verify-${stack/+/-}.txt" 2>&1
  echo "verify $stack: rc=$?"; tail -4 "$O/v55/verify-${stack/+/-}.txt"
done
date -u
SLOTS="head=$H:$S i55=$H+55:$S i5556=$H+55+56:$S i55off=$H+55+56:$S,Q_TMA=0" \
  WORKLOADS=b16_32k,b128_32k,b1_32k,fp8_b128_32k OUT=$O/s55 \
  timeout 150 bash scripts/device/slots_bench/run.sh > "$O/s55/log.txt" 2>&1
grep "^==" "$O/s55/log.txt"; rm -f "$O"/s55/*.err
date -u
OUT=$O/shapes timeout 150 bash scripts/device/fixed_costs/shapes.sh > "$O/shapes/log.txt" 2>&1
grep "^==" "$O/shapes/log.txt"; rm -f "$O"/shapes/*.err
date -u
AUTORESEARCH=$AR REF=autoresearch/sparse_mla-ideas29 OUT=$O/table timeout 150 bash scripts/device/sparse_mla_table/run.sh \
  > "$O/table/log.txt" 2>&1
tail -14 "$O/table/log.txt"
date -u
OUT=$O/icp timeout 100 bash scripts/device/icache_probe/run.sh > "$O/icp/log.txt" 2>&1
cat "$O/icp/log.txt"
date -u
