#!/usr/bin/env bash
# The second device call of 2026-12-07. The first (calls-2026-12-07.sh) judged 55 on every workload's
# geomean: 1.001x, discarded, though the screen beside it measured B=16 3.1% faster and the rest level.
# 55 and 56 are aimed at B=16 and B=1, the two unmet targets, so here each is judged with run --focus
# on its target (every workload still verified, measured, and able to veto a keep by regressing):
# 1. 55 on ideas29's head, --focus 'b16_*' (tag ideas33);
# 2. the 128-byte-swizzle tile probe with 4 and 8 issuing warps, whole and in halves (the B=16 route's
#    question: does that tile, fed at the bulk copies' rate, beat the row path's 3.8 us?);
# 3. 56 on top of 55 where 55 was kept (56 is written on 55), --focus 'b1_*' (tag ideas34);
# 4. the issue's table at the head the runs leave;
# 5. where a B=1 and a B=16 block's time goes now (the phase probe's marks, by anchor lines, in the stack
#    H+55+56), last measured on 2026-12-03 at ideas11's head.
# PARTS (default "1 2 3 4 5") picks the parts to run, so that a short call can take a few of them; part 3
# and part 4 start from the newest run head that the runs of this call or an earlier one's bundle left
# (RUN_BUNDLE: an ideas33.bundle brought back by an earlier call).
# Everything is packed into $OUT/calls.tar.gz (a call brings back at most eight files), again after each
# part, so that a call cut short still brings back the parts before the cut.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29
calls_start run table
calls_parts "1 2 3 4 5"
[ "${ONLY:-}" = probe ] && PARTS=" 2 "   # the older spelling of PARTS=2
if [ -n "${RUN_BUNDLE:-}" ]; then
  [ -s "$RUN_BUNDLE" ] || { echo "RUN_BUNDLE: no bundle at $RUN_BUNDLE (carry it)" >&2; exit 2; }
  cp "$RUN_BUNDLE" "$W/run/ideas33.bundle"
  # On a machine still warm from the earlier call the branch is already here (and checked out in its
  # run's worktree, which git refuses to fetch into).
  git rev-parse -q --verify autoresearch/sparse_mla-ideas33 >/dev/null ||
  git fetch -q "$RUN_BUNDLE" autoresearch/sparse_mla-ideas33:autoresearch/sparse_mla-ideas33 ||
    { echo "RUN_BUNDLE: could not fetch autoresearch/sparse_mla-ideas33 from $RUN_BUNDLE" >&2; exit 2; }
fi
part 1 && judge_idea ideas33 kernels/sparse_mla/results/ideas29.bundle \
  autoresearch/sparse_mla-ideas29 55-row-q-by-tensor-map 'b16_*'
if part 2; then
  mkdir -p "$W/sw128"
  OUT=$W/sw128 timeout 120 bash scripts/device/wgmma_sw128_probe/run.sh > "$W/sw128/log.txt" 2>&1
  grep -E "^check|^time|spill" "$W/sw128/log.txt" | head -24
  date -u
  pack
fi
REF=autoresearch/sparse_mla-ideas29
# A run's branch exists whether or not it kept anything; its bundle (only the commits after its base) only
# where it kept something.
if [ -s "$W/run/ideas33.bundle" ]; then
  REF=autoresearch/sparse_mla-ideas33
  part 3 && judge_idea ideas34 "$W/run/ideas33.bundle" autoresearch/sparse_mla-ideas33 56-chunk-q-by-tensor-map 'b1_*'
  [ -s "$W/run/ideas34.bundle" ] && REF=autoresearch/sparse_mla-ideas34
fi
part 4 && table_at "$REF" 120
if part 5; then marks_of "$H+55+56:$S" b1_32k,b16_32k; fi
