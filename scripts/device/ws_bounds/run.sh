#!/usr/bin/env bash
# What bounds the warp-specialised sparse_mla (ideas 1+2+3+5, issue 9): the same
# kernel timed by ncu with parts of its work removed, on one workload. Each
# variant is a sed of the stacked kernel.cu; none is correct (that is the
# point), so `profile` (which does not verify) times them, not `bench`.
#   full          the kernel as the stack builds it
#   no_gather     the producer zero-fills every row instead of reading it (src-size 0):
#                 the math, the pipeline and its barriers, no memory traffic for K
#   gather_only   the math warps skip Q K^T, the softmax and P V: only the gathers and
#                 the pipeline's barriers
#   no_pv         the math warps skip P V (Q K^T and the softmax remain)
#   AUTORESEARCH=.carry/autoresearch SETS="KEYS_PER_TILE=64,..." WORKLOAD=b128_32k bash scripts/device/ws_bounds/run.sh
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
AR=${AUTORESEARCH:-$repo/build/autoresearch}
out=${OUT:-/tmp/out}; mkdir -p "$out"
STACK=${STACK:-"01 02 03 05"}
WORKLOAD=${WORKLOAD:-b128_32k}
cd "$repo"
args=(); IFS=, read -ra kv <<< "${SETS:-KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PRODUCER_WARPS=1,GATHER_PREFETCH=256}"
for s in "${kv[@]}"; do [ -n "$s" ] && args+=(--set "$s"); done
base=$(mktemp -d)/sparse_mla
cp -r kernels/sparse_mla "$base" && rm -rf "$base/results"
for n in $STACK; do (cd "$base" && patch -s -p3 < "$repo"/scripts/ideas/sparse_mla/$n-*.patch) || exit 1; done
variant() {   # variant NAME SED-SCRIPT
  local pkg=$(mktemp -d)/sparse_mla; cp -r "$base" "$pkg"
  [ -n "$2" ] && sed -i "$2" "$pkg/kernel.cu"
  if [ -n "$2" ] && cmp -s "$base/kernel.cu" "$pkg/kernel.cu"; then echo "== $1: the sed changed nothing"; return; fi
  echo "== $1"
  "$AR" profile --kernel "$pkg" "${args[@]}" --workload "$WORKLOAD" 2>&1 | grep -E "^## |duration|throughput|tensor_cycles|stall"
}
{
  echo "stack: $STACK; sets: ${args[*]}; workload: $WORKLOAD; $(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  variant full ""
  variant no_gather 's/src + c \* 64, ok ? 16 : 0)/src + c * 64, 0)/; s/cp_async_16_prefetch(d + c \* 64, src + c \* 64, ok ? 16 : 0)/cp_async_16_prefetch(d + c * 64, src + c * 64, 0)/'
  variant gather_only 's/^    qk_softmax_wgmma(Qs, Ks, s_valid + st \* BK/    if (p.batch < 0) qk_softmax_wgmma(Qs, Ks, s_valid + st * BK/; s/^    pv_wgmma(o, Ps, Ks, s_alpha, warp, g);   \/\/ waits/    if (p.batch < 0) pv_wgmma(o, Ps, Ks, s_alpha, warp, g);   \/\/ waits/'
  variant no_pv 's/^    pv_wgmma(o, Ps, Ks, s_alpha, warp, g);   \/\/ waits/    if (p.batch < 0) pv_wgmma(o, Ps, Ks, s_alpha, warp, g);   \/\/ waits/'
} 2>&1 | tee "$out/ws_bounds.txt"
