#!/usr/bin/env bash
# The SASS of sparse_mla's tile math beside the probes' (RESULTS.md, 2026-12-07 evening: in the kernel S ran at
# about 104 clocks a wgmma k-step on both paths): whether ptxas keeps each chain of wgmmas in flight (one group
# scoreboard wait, gsb0, at its end) or waits after each (on 2026-12-07 it kept the chunk-major path's 36 in one
# group, and the row path's groups of 2 with one in flight). Builds the stack REF's cubin
# and the two probes' on the GPU machine, dumps their SASS (cuobjdump) and summarises each function's wgmma
# sequence (summarise.py). Output under $OUT.
#   REF="1+2+...+56:SETS" bash scripts/device/sass_dump/run.sh
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/sass_dump.XXXXXX)}
mkdir -p "$OUT_DIR"
REF=${REF:?REF: STACK:SETS of prepared ideas (as scripts/ideas_bench.sh takes them)}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
work=$(mktemp -d)
ideas_stack "${REF%%:*}" "$work/sparse_mla"
mapfile -t defines < <(set_defines "${REF#*:}")
PKG=$work/sparse_mla bash tests/gpu/build_sparse_mla.sh cubin "$work/sparse_mla/kernel.cu" "$work/kernel.cubin" "${defines[@]}" \
  > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
for probe in wgmma_rate wgmma_sw128_probe; do
  nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -cubin "scripts/device/$probe/$probe.cu" -o "$work/$probe.cubin"
done
{ date -u +%FT%TZ; nvcc --version | tail -1; echo "REF=$REF"; } > "$OUT_DIR/summary.txt"
for c in kernel wgmma_rate wgmma_sw128_probe; do
  cuobjdump -sass "$work/$c.cubin" > "$work/$c.sass"
  gzip -c "$work/$c.sass" > "$OUT_DIR/$c.sass.gz"
  python3 "$REPO/scripts/device/sass_dump/summarise.py" "$work/$c.sass" >> "$OUT_DIR/summary.txt"
done
cat "$OUT_DIR/summary.txt"
