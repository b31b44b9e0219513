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
for N in 17 19 20 21 22 23 29; do
  git fetch -q kernels/sparse_mla/results/ideas$N.bundle autoresearch/sparse_mla-ideas$N:autoresearch/sparse_mla-ideas$N
done
AR=$(realpath .carry/autoresearch)
O=${OUT:?}
W=$(mktemp -d /tmp/calls.XXXXXX)
mkdir -p "$W/run" "$W/table"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date -u
pack() { tar -C "$W" -czf "$O/calls.tar.gz.part" . && mv "$O/calls.tar.gz.part" "$O/calls.tar.gz"; }
continue_run() {  # TAG BUNDLE BASE IDEA FOCUS
  BUNDLE=$2 BASE=$3 TAG=$1 IDEAS=$4 FOCUS=$5 TUNE_EACH=0 AUTORESEARCH=$AR \
    EXTRA_ARGS="--max-hours 0.05 --seed 7" OUT=$W/run timeout 200 bash scripts/device/ideas_continue/run.sh \
    > "$W/run/$1.out.txt" 2>&1
  grep -v '^\[#' "$W/run/$1.out.txt" | grep -E '^#|^stopped|^could not|^no bundle|error' | cut -c1-400
  date -u
  pack
}
PARTS=" ${PARTS:-1 2 3 4 5} "
[ "${ONLY:-}" = probe ] && PARTS=" 2 "   # the older spelling of PARTS=2
part() { [[ $PARTS == *" $1 "* ]]; }
if [ -n "${RUN_BUNDLE:-}" ]; then
  [ -s "$RUN_BUNDLE" ] || { echo "RUN_BUNDLE: no bundle at $RUN_BUNDLE (carry it)" >&2; exit 2; }
  cp "$RUN_BUNDLE" "$W/run/ideas33.bundle"
  # On a machine still warm from the earlier call the branch is already here (and checked out in its
  # run's worktree, which git refuses to fetch into).
  git rev-parse -q --verify autoresearch/sparse_mla-ideas33 >/dev/null ||
  git fetch -q "$RUN_BUNDLE" autoresearch/sparse_mla-ideas33:autoresearch/sparse_mla-ideas33 ||
    { echo "RUN_BUNDLE: could not fetch autoresearch/sparse_mla-ideas33 from $RUN_BUNDLE" >&2; exit 2; }
fi
part 1 && continue_run ideas33 kernels/sparse_mla/results/ideas29.bundle \
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
  part 3 && continue_run ideas34 "$W/run/ideas33.bundle" autoresearch/sparse_mla-ideas33 56-chunk-q-by-tensor-map 'b1_*'
  [ -s "$W/run/ideas34.bundle" ] && REF=autoresearch/sparse_mla-ideas34
fi
if part 4; then
  AUTORESEARCH=$AR REF=$REF OUT=$W/table timeout 120 bash scripts/device/sparse_mla_table/run.sh > "$W/table/log.txt" 2>&1
  tail -14 "$W/table/log.txt"
  date -u
  pack
fi
part 5 || exit 0
H=1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50
S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,PRODUCER_WARPS=1,QK_PIPELINE=0,QK_WGMMA=1,ROW_GATHER=1,SPLIT_WAVES=1,THREADS=256
mkdir -p "$W/phases"
REF="$H+55+56:$S" PROBE_PATCH=marks WORKLOADS=b1_32k,b16_32k OUT=$W/phases timeout 150 \
  bash scripts/device/phase_probe/run.sh > "$W/phases/log.txt" 2>&1
grep -A12 "^==" "$W/phases/phases.txt" | cut -c1-300 | head -40
date -u
pack
