#!/usr/bin/env bash
# Idea 37's conversion checked bit for bit against the float path it replaces (check.cu), on the GPU:
#   bash scripts/device/fp8_dequant_check/run.sh   # STACK: any stack that holds 37 (set aside; default: ideas19's head + 37)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/fp8_dequant_check.XXXXXX)}
mkdir -p "$OUT_DIR"
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
work=$(mktemp -d)
STACK=${STACK:-1+2+3+5+8+11+13+18+26+32+33+37}
ideas_stack "$STACK" "$work/sparse_mla"
nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -w -DKEYS_PER_TILE=64 -DKV_STAGES=2 -DPRODUCER_DEQUANT=1 \
  -I"$work/sparse_mla" -I include scripts/device/fp8_dequant_check/check.cu -o "$work/check"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true; echo "STACK=$STACK"
  "$work/check"; } 2>&1 | tee "$OUT_DIR/fp8-dequant-check.txt"
