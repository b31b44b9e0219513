#!/usr/bin/env bash
# The GPU reference's variants side by side on the H200 (issue 11: the
# reference was the largest part of a verification). Each *.diff here turns
# kernels/sparse_mla/reference.cu (as committed with them, 2026-12-02) into
# one variant; every variant and the shipped file are built with bench.cu and
# timed on the same inputs.
#   original   the reference before 2026-12-02: pass 3 one thread per column
#   scalar     pass 3 a warp per position, 2-byte loads in both passes
#   scalar_p1  2-byte loads in pass 1, 16-byte chunks in pass 3
#   chunk8     16- or 8-byte chunks in both passes
#   chunk8_q4  chunk8 with q read as float4 (no shared-memory bank conflict)
#   shipped    scalar_p1 for BF16, chunk8_q4's pass 1 for FP8
#   bash scripts/device/reference_speed/run.sh
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
build=$(mktemp -d)
variants=(shipped)
mkdir -p "$build/shipped"; cp "$repo/kernels/sparse_mla/reference.cu" "$build/shipped/"
for d in "$here"/*.diff; do
  name=$(basename "$d" .diff); variants+=("$name")
  mkdir -p "$build/$name"; cp "$repo/kernels/sparse_mla/reference.cu" "$build/$name/"
  (cd "$build/$name" && git apply "$d") || echo "$name: the diff does not apply to this reference.cu"
done
for name in "${variants[@]}"; do
  nvcc -std=c++17 -O2 -arch=sm_90a -I"$repo/include" -I"$repo/src/harness" -I"$repo/kernels/sparse_mla" \
    "$here/bench.cu" "$build/$name/reference.cu" "$repo/src/harness/cuda/cuda_check.cpp" \
    -L/usr/local/cuda/lib64/stubs -lcuda -o "$build/$name/bench" > "$build/$name/build.log" 2>&1 &
done
wait
for name in "${variants[@]}"; do
  echo "$name:"; if [ -x "$build/$name/bench" ]; then "$build/$name/bench"; else tail -5 "$build/$name/build.log"; fi
done | tee "$out/reference_speed.txt"
