#!/usr/bin/env bash
# The size of each entry point's code (the .text section of each kernel in the cubin, in bytes) for the stack
# H of prepared ideas and for H with each of the ideas of STACKS on top, built as the driver builds a candidate
# (tests/gpu/build_sparse_mla.sh). No GPU needed: nvcc and readelf only. Prints one line per stack, and
# ptxas's spill lines where there are any.
#
#   H=1+2+3+5+... S=KEYS_PER_TILE=64,... STACKS="+55 +55+56" bash scripts/sparse_mla_code_sizes.sh
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
H=${H:?H: the stack of prepared ideas (scripts/ideas_bench.sh)}
S=${S:?S: its tunables, NAME=V,...}
source "$REPO/scripts/ideas_package.sh"
mapfile -t defines < <(set_defines "$S")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read -ra more <<< "${STACKS:-}"
for suffix in "" "${more[@]}"; do
  pkg=$work/pkg$suffix/sparse_mla
  ideas_stack "$H$suffix" "$pkg" > /dev/null
  PKG=$pkg bash "$REPO/tests/gpu/build_sparse_mla.sh" cubin "$pkg/kernel.cu" "$work/k.cubin" "${defines[@]}" \
    > "$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; exit 1; }
  # readelf -S -W: "[Nr] Name Type Address Off Size ...": the size (hex) of every .text.NAME section
  sizes=$(readelf -S -W "$work/k.cubin" 2>/dev/null |
    sed -n 's/.*\] \.text\.\([A-Za-z0-9_]*\) *PROGBITS *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\).*/\1 \2/p' |
    while read -r name hex; do printf '%s=%d ' "$name" "$((16#$hex))"; done)
  echo "head${suffix:-}: $sizes"
  grep -E "spill (stores|loads)" "$work/build.log" | grep -v " 0 bytes spill stores, 0 bytes spill loads" || true
done
