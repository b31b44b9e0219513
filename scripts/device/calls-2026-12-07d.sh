#!/usr/bin/env bash
# The fourth device call of 2026-12-07: idea 58 (the chunk-major path's BF16 key tiles in the 128-byte swizzle,
# read by swizzled descriptors) on ideas34's head, --focus 'b1_*' (tag ideas36); then the phase marks of the stack
# with 58 (does S get faster than the 1.9 µs the marks had for it?), b1_32k. PARTS (default "1 2") picks the
# parts; everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29 33 34
calls_start run phases
calls_parts "1 2"
part 1 && judge_idea ideas36 kernels/sparse_mla/results/ideas34.bundle autoresearch/sparse_mla-ideas34 \
  58-chunk-tile-swizzled 'b1_*'
if part 2; then marks_of "$H+55+56+58:$S" b1_32k; fi
