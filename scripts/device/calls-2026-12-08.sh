#!/usr/bin/env bash
# Prepared 2026-12-08 (early): idea 61, 60's boxes multicast by a cluster of two blocks (a row's two head groups each
# issue half of every key tile, to both), after the leave-outs of 2026-12-07 found 60's B=16 paced by the boxes' issue
# (51.8 us with them, 38.3 without, on an H100).
# 1. a screen at B=1 and B=16 (bench verifies each first): the kept stack (B=16 on the row path), with 61 (about 2
#    minutes);
# 2. `run` from ideas36's head proposing 61, --focus 'b16_*', tag ideas39 (about 4.5 minutes);
# 3. the issue's table at the newest head: ideas39's if part 2 kept 61 (its bundle brought back under .carry/ by an
#    earlier call, or made by part 2 in this one), else ideas36's (about 3.5 minutes); owed on the H200, so on another
#    card only with TABLE_ANY=1.
# 4. (after 1 and 2 on an H100: 61 discarded, B=16 49.09 -> 48.83 us, fp8_b128_32k 3.5% slower) whether the boxes
#    still pace the tile with half of them issued by each block: the slots bench at B=16 of the kept stack, 60 and
#    61, each also with its boxes alone (S and P V left out: the gather's own time in the real kernel, against which
#    the build with the math says whether the math slows while the boxes land), and 61 without its boxes (LO_G);
#    then the phase marks of 61 at B=16 (about 3.5 minutes);
# 5. part 4's slots cut to 60 and 61 with and without their math (about 2 minutes).
# 61 was set aside after part 2 (scripts/ideas/sparse_mla/set-aside/; ideas_stack finds it there, part 2 would need it
# copied back). PARTS (default "1 2") picks the parts; everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29 33 34 36
calls_start run table screen slots phases
calls_parts "1 2"
STACK=$H+55+56+58
part 1 && screen 170 b1_32k,b16_32k "$STACK+61:$S" "$STACK:$S"
REF=autoresearch/sparse_mla-ideas36
part 2 && JUDGE_HOURS=${JUDGE_HOURS:-0.06} JUDGE_TIMEOUT=${JUDGE_TIMEOUT:-270} \
  judge_idea ideas39 kernels/sparse_mla/results/ideas36.bundle "$REF" 61-chunk-tile-boxes-multicast 'b16_*'
if part 4; then
  slots_of slots 200 b16_32k "head=$STACK:$S" "h60=$STACK+60:$S" "h60_spv=$STACK+60:$S,LO_S=1,LO_PV=1" \
    "h61=$STACK+61:$S" "h61_g=$STACK+61:$S,LO_G=1" "h61_spv=$STACK+61:$S,LO_S=1,LO_PV=1"
  [ "${MARKS:-1}" = 1 ] && marks_of "$STACK+61:$S" b16_32k   # MARKS=0: the slots alone, for a short call
fi
# part 4 cut to what a few device minutes allow: the boxes alone and with the math, 60 against 61
part 5 && slots_of slots 150 b16_32k "h60=$STACK+60:$S" "h60_spv=$STACK+60:$S,LO_S=1,LO_PV=1" "h61=$STACK+61:$S" \
  "h61_spv=$STACK+61:$S,LO_S=1,LO_PV=1"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if part 3 && [[ $card == *H200* || ${TABLE_ANY:-0} == 1 ]]; then
  for b in "$W/run/ideas39.bundle" .carry/ideas39.bundle; do
    if [ -s "$b" ]; then
      git rev-parse -q --verify autoresearch/sparse_mla-ideas39 > /dev/null ||
        git fetch -q "$b" autoresearch/sparse_mla-ideas39:autoresearch/sparse_mla-ideas39
      REF=autoresearch/sparse_mla-ideas39
      break
    fi
  done
  echo "table at $REF"
  table_at "$REF" 220
elif part 3; then
  echo "part 3 left out: the table is owed on an H200, this is $card (TABLE_ANY=1 runs it anyway)"
fi
