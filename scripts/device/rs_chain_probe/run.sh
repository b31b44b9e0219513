#!/usr/bin/env bash
# The row path's S^T as a register-operand wgmma chain, by pipeline shape (rs_chain_probe.cu says what and why).
#   bash scripts/device/rs_chain_probe/run.sh        # on the GPU machine; output under $OUT
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v "$here/rs_chain_probe.cu" -o /tmp/rs_chain_probe \
  2> "$out/rs_chain_probe.ptxas.txt"
grep -iE "performance|serializ" "$out/rs_chain_probe.ptxas.txt" || true
# The SASS of every shape's kernel: the waits ptxas put around the wgmmas, the first suspect for why
# groups of 2-4 k-steps run three times slower than groups of 6.
cuobjdump -sass /tmp/rs_chain_probe > "$out/rs_chain_probe.sass.txt" 2>&1 || true
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  /tmp/rs_chain_probe
} 2>&1 | tee "$out/rs_chain_probe.txt"
