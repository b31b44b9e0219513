#!/usr/bin/env bash
# Where a block's time goes (issue 9: B=1 and B=16 are mostly a fixed cost of about 10 us a
# block, timeline-b1-2026-12-03.txt): the stack REF built with phase_probe.patch, whose
# PROBE marks print the global timer and the SM clock as thread 0 (math) and the first
# producer thread of the first blocks pass each phase (start, slots loaded, tile 0 issued,
# Q loaded, tile 0 landed, its softmax and P V, tiles done, epilogue, end; the combine's
# start and end). The cubin is loaded into the harness directly (the guard would refuse its
# clock reads), which runs it with `exercise` on three input distributions; the last one's
# marks are summarised, in microseconds from the first block's start.
#
#   REF="1+2+3+5+8+11+13:KEYS_PER_TILE=64,KV_STAGES=2,EXTRA_STAGES=0,PRODUCER_WARPS=1,PRODUCER_DEQUANT=1,ROW_GATHER=1,LDMATRIX=1,GATHER_PREFETCH=64,PREFETCH_NEXT_TILE=0" \
#     WORKLOADS=b1_32k,h16_b1_8k,b16_32k bash scripts/device/phase_probe/run.sh
#
# PROBE_PATCH=marks puts phase_probe.patch's marks in by anchor lines instead (insert_marks.py), for the
# stacks that patch no longer matches: ideas23's head and later (built on ideas23's and ideas29's heads, and on
# ideas29's with 55 and with 55+56), where the combine runs
# beside the attention stage (programmatic launch) and marks its wait for it (dep_done). Its printf
# arguments give the entry points a stack frame (8 bytes of spill in the row path's): the marks time a
# build a little unlike the candidate's.
#
# SWITCHES=1 adds the leave-out switches of scripts/device/fixed_costs/switches.py after the marks, so that REF's sets
# may turn one on (e.g. LO_G=1: where a tile's time goes without its boxes).
#
# PROBE_PATCH=phase_probe_rows.patch (for the stack 01..18+26+32+33, sparse_mla-ideas19's head; it applies to ideas17's) instead
# times every tile of the row path: each block's math thread 0 waiting for its stage, the tile's
# math and its S^T alone; each producer warp waiting for a free stage and issuing a tile
# (summarise.py prints them per tile, over all blocks); PROBE_PATCH=phase_probe_attend.patch (the same stack) times the
# chunk-major path's tiles (attend: FP8, and BF16 with ROW_GATHER=0 in REF's sets) the same way;
# PROBE_PATCH=phase_probe_fp8.patch (the same stack) does too, and splits an FP8 tile's issue: from its start
# until the first row group's loads have returned, and its closing proxy fence.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/phase_probe.XXXXXX)}
mkdir -p "$OUT_DIR"
REF=${REF:?REF: STACK:SETS of prepared ideas (as scripts/ideas_bench.sh takes them)}
WORKLOADS=${WORKLOADS:-b1_32k,b16_32k}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
work=$(mktemp -d)
pkg=$work/sparse_mla
ideas_stack "${REF%%:*}" "$pkg"
if [ "${PROBE_PATCH:-}" = marks ]; then   # the whole-block marks by anchor lines (insert_marks.py)
  python3 "$REPO/scripts/device/phase_probe/insert_marks.py" "$pkg/kernel.cu"
else
  (cd "$pkg" && patch -s -F0 -p3 < "$REPO/scripts/device/phase_probe/${PROBE_PATCH:-phase_probe.patch}")
fi
if [ "${SWITCHES:-0}" = 1 ]; then   # the leave-out switches (fixed_costs/switches.py), turned on by REF's sets
  python3 "$REPO/scripts/device/fixed_costs/switches.py" "$pkg/kernel.cu"
fi
cp "$REPO/scripts/device/phase_probe/tile_probe.h" "$pkg/"   # the tile probes' shared part
mapfile -t defines < <(set_defines "${REF#*:}")
PKG=$pkg bash tests/gpu/build_sparse_mla.sh harness "$work/harness" > "$work/build.log" 2>&1
PKG=$pkg bash tests/gpu/build_sparse_mla.sh cubin "$pkg/kernel.cu" "$work/probe.cubin" "${defines[@]}" >> "$work/build.log" 2>&1
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader || true; echo "REF=$REF"; } \
  | tee "$OUT_DIR/phases.txt"
IFS=, read -ra names <<< "$WORKLOADS"
for w in "${names[@]}"; do
  request=$(workload_request "$pkg/manifest.json" "$w")
  printf '%s\n' '{"cmd":"hello"}' \
    "{\"cmd\":\"load\",\"slot\":\"p\",\"artifact\":\"$work/probe.cubin\"}" \
    "{\"cmd\":\"exercise\",\"slot\":\"p\",\"workload\":$request,\"seed\":1,\"distributions\":3}" \
    '{"cmd":"quit"}' | "$work/harness" --gpu 0 > "$OUT_DIR/probe-$w.txt" 2>&1 || true
  echo "== $w" | tee -a "$OUT_DIR/phases.txt"
  python3 "$REPO/scripts/device/phase_probe/summarise.py" "$OUT_DIR/probe-$w.txt" | tee -a "$OUT_DIR/phases.txt"
done
