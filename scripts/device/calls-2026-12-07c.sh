#!/usr/bin/env bash
# The third device call of 2026-12-07, after ideas33 (55, B=16) and ideas34 (56, B=1) were kept on an H100:
# 1. idea 57 on ideas34's head, --focus 'b1_*' (tag ideas35): the chunk-major BF16 tile (B=1's one tile a block)
#    gathered by all four producer warps; the phase marks of 2026-12-07 had one warp issuing it for 1.06 us;
# 2. where a block's first tile goes (the phase probe's marks, now with the scores' end inside the chunk-major
#    path's one scoring warpgroup, and the row path's first two tiles split into S^T, P^T and P V), on the
#    newest stack (H+55+56, and 57 where part 1 kept it), b1_32k and b16_32k;
# 3. the 128-byte-swizzle tile probe with block pairs that gather the same rows, as b16_32k's two head groups of a
#    token do (SET=pairs), against blocks with rows of their own: does B=16's real pattern feed that tile faster?
# 4. the issue's table at the newest head (ideas35 where part 1 kept 57, else ideas34).
# PARTS (default "1 2 3 4") picks the parts. Everything is packed into $OUT/calls.tar.gz after each part.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29 33 34
calls_start run table phases
calls_parts "1 2 3 4"
part 1 && judge_idea ideas35 kernels/sparse_mla/results/ideas34.bundle autoresearch/sparse_mla-ideas34 \
  57-chunk-tile-four-producer-warps 'b1_*'
STACK=$H+55+56
REF=autoresearch/sparse_mla-ideas34
if [ -s "$W/run/ideas35.bundle" ]; then
  STACK=$STACK+57
  REF=autoresearch/sparse_mla-ideas35
fi
part 2 && marks_of "$STACK:$S" b1_32k,b16_32k
if part 3; then
  mkdir -p "$W/sw128"
  SET=pairs OUT=$W/sw128 timeout 120 bash scripts/device/wgmma_sw128_probe/run.sh > "$W/sw128/log.txt" 2>&1
  grep -E "^check|^time" "$W/sw128/log.txt" | head -12
  date -u
  pack
fi
if part 4; then table_at "$REF" 120; fi
