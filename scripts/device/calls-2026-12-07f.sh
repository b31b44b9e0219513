#!/usr/bin/env bash
# A screen, not a judgement: with 58 the chunk-major path's tile math got faster (B=1 1.091x); is that path now
# faster than the row path at B=16 and above? The stack H+55+56+58 benched with the row path (ROW_GATHER=1, as
# kept), without it (every launch on the chunk-major path), and without it with four producer warps.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
STACK=1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50+55+56+58
S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,QK_PIPELINE=0,QK_WGMMA=1,SPLIT_WAVES=1,THREADS=256
PROBE=0 BENCH_ARGS="--workloads b1_32k,b16_32k,b64_32k,b128_32k" AUTORESEARCH=$(realpath .carry/autoresearch) \
  timeout 240 bash scripts/ideas_bench.sh "$STACK:$S,ROW_GATHER=1,PRODUCER_WARPS=1" "$STACK:$S,ROW_GATHER=0,PRODUCER_WARPS=1" \
  "$STACK:$S,ROW_GATHER=0,PRODUCER_WARPS=4" 2>&1 | grep -E '^==|b1_32k|b16_32k|b64_32k|b128_32k|error|FAIL' | cut -c1-200
date -u
