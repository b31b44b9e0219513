#!/usr/bin/env bash
# Prepared 2026-12-07 (night): idea 60 (B=16 on the chunk-major path, its key tiles by tensor-map boxes from eight
# warps into the 128-byte swizzle that 58 writes by hand).
# 1. `run` from ideas36's head proposing 60, --focus 'b16_*', tag ideas37 (about 4 minutes);
# 2. a screen at B=1, 16, 64 and 128 (bench verifies each on them first): the kept stack (the row path for B >= 16),
#    the stack with 60 (B=16 by boxes), and with 60 and ROW_GATHER=0 (every BF16 launch of more than one tile by
#    boxes: B=64 and 128 too) (about 4 minutes);
# 3. idea 59 (FP8's tiles in the same swizzle) from the newest head, --focus 'fp8_*', tag ideas38;
# 4. the issue's table at the newest head;
# 5. (for a call with only a few device minutes) part 2 cut down: 60 against the kept stack at B=1 and B=16.
# PARTS (default "1") picks the parts; everything is packed into $OUT/calls.tar.gz after each part. A later call on
# a machine still warm has the earlier parts' branches; on a fresh one, carry the bundles the earlier call brought
# back as .carry/ideas37.bundle (and .carry/ideas38.bundle).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29 33 34 36
calls_start run table screen
calls_parts "1"
for n in 37 38; do   # a bundle an earlier call brought back
  b=.carry/ideas$n.bundle
  if [ -s "$b" ] && ! git rev-parse -q --verify "autoresearch/sparse_mla-ideas$n" > /dev/null; then
    git fetch -q "$b" "autoresearch/sparse_mla-ideas$n:autoresearch/sparse_mla-ideas$n"
  fi
done
bundle_of() { if [ -s "$W/run/$1.bundle" ]; then echo "$W/run/$1.bundle"; else echo ".carry/$1.bundle"; fi; }
REF=autoresearch/sparse_mla-ideas36
# The judgement of part 1 gets a little more time than judge_idea's default (JUDGE_HOURS, JUDGE_TIMEOUT override it).
part 1 && JUDGE_HOURS=${JUDGE_HOURS:-0.06} JUDGE_TIMEOUT=${JUDGE_TIMEOUT:-260} \
  judge_idea ideas37 kernels/sparse_mla/results/ideas36.bundle "$REF" 60-chunk-tile-by-boxes 'b16_*'
BUNDLE=kernels/sparse_mla/results/ideas36.bundle
if [ -s "$(bundle_of ideas37)" ]; then   # the run of part 1 kept something
  REF=autoresearch/sparse_mla-ideas37 BUNDLE=$(bundle_of ideas37)
fi
STACK=$H+55+56+58
SETS=${S/,PRODUCER_WARPS=1/}
SETS=${SETS/,ROW_GATHER=1/}
part 2 && screen 260 b1_32k,b16_32k,b64_32k,b128_32k "$STACK:$SETS,ROW_GATHER=1,PRODUCER_WARPS=1" \
  "$STACK+60:$SETS,ROW_GATHER=1,PRODUCER_WARPS=1" "$STACK+60:$SETS,ROW_GATHER=0,PRODUCER_WARPS=1"
# part 2 cut down to what a few device minutes allow: 60 against the kept stack, B=1 and B=16
part 5 && screen 180 b1_32k,b16_32k "$STACK+60:$S" "$STACK:$S"
if part 3; then
  judge_idea ideas38 "$BUNDLE" "$REF" 59-fp8-tile-swizzled 'fp8_*'   # the run leaves its branch here
fi
[ -s "$(bundle_of ideas38)" ] && REF=autoresearch/sparse_mla-ideas38
if part 4; then table_at "$REF" 200; fi
