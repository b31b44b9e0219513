#!/usr/bin/env bash
# Prepared 2026-12-07 (late night), after idea 60 was discarded on an H100 (B=16 49.0 → 49.9 µs, where the probe of
# its tile form had the attention stage at 38.8): where the chunk-major path's tile time goes, in the real build.
# 1. leave-outs, timed interleaved (slots_bench with the switches of fixed_costs/switches.py) at B=1 and B=16, beside
#    the launch floor: the kept stack (B=1 on the chunk-major path, B=16 on the row path) without its chunk-major S
#    wgmmas (LO_S) or P V wgmmas (LO_PV), or with each issued twice (TWICE_S, TWICE_PV: what one more pass costs in
#    place); the stack with 60 (B=16 on the chunk-major path by boxes) without S, P V, its boxes (LO_G), and all
#    three (about 4 minutes);
# 2. the phase marks of the stack with 60 at B=16 and B=1, tile 0, tile 1 and the last tile apart (about 1.5 minutes);
# 3. the issue's table at ideas36's head, owed on the H200 (about 3.5 minutes).
# 4. (after 1 and 2: 60 without its boxes took B=16 from 51.8 to 38.3 µs, without S only to 50.6) the marks of the
#    stack with 60 at B=16 without its boxes (LO_G), and leave-outs at B=16 around it: boxes and S, boxes and P V,
#    S and P V with the boxes; and B=16 on the chunk-major path by 58's 16-byte copies (ROW_GATHER=0) from one and
#    from four producer warps, never screened since 58 (about 3 minutes).
# PARTS (default "1 2") picks the parts; everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
calls_start table
calls_parts "1 2"
STACK=$H+55+56+58
part 1 && slots_of slots 300 b1_32k,b16_32k "head=$STACK:$S" "head_s=$STACK:$S,LO_S=1" "head_2s=$STACK:$S,TWICE_S=1" \
  "head_pv=$STACK:$S,LO_PV=1" "head_2pv=$STACK:$S,TWICE_PV=1" "h60=$STACK+60:$S" "h60_s=$STACK+60:$S,LO_S=1" \
  "h60_pv=$STACK+60:$S,LO_PV=1" "h60_g=$STACK+60:$S,LO_G=1" "h60_all=$STACK+60:$S,LO_S=1,LO_PV=1,LO_G=1"
part 2 && marks_of "$STACK+60:$S" b16_32k,b1_32k
if part 4; then
  # B=16 on the chunk-major path by 58's 16-byte copies into the swizzle (ROW_GATHER=0), one and four producer warps
  CM=${S/,PRODUCER_WARPS=1/}
  CM=${CM/,ROW_GATHER=1/},ROW_GATHER=0
  slots_of slots4 240 b16_32k "h60=$STACK+60:$S" "h60_g=$STACK+60:$S,LO_G=1" "h60_gs=$STACK+60:$S,LO_G=1,LO_S=1" \
    "h60_gpv=$STACK+60:$S,LO_G=1,LO_PV=1" "h60_spv=$STACK+60:$S,LO_S=1,LO_PV=1" "head=$STACK:$S" \
    "cm1=$STACK:$CM,PRODUCER_WARPS=1" "cm4=$STACK:$CM,PRODUCER_WARPS=4"
  SWITCHES=1 marks_of "$STACK+60:$S,LO_G=1" b16_32k phases4
fi
# the table last: the parts before it are the shorter ones, and each is packed as it ends
if part 3; then
  fetch_runs 17 19 20 21 22 23 29 33 34 36
  table_at autoresearch/sparse_mla-ideas36 220
fi
