#!/usr/bin/env bash
# Where a tile's time goes, by leaving parts out (H200.md: "time variants that leave one stage out"): the
# stack REF built with leave_out.patch at several DIAG values, each cubin in its own harness slot, all timed
# together (interleaved) by the harness's `bench` on each workload, without verification (the variants'
# results are wrong by design). DIAG bits: 1 the producers copy nothing after the first stages (the math
# reads stale tiles: no gather traffic, no dequantisation), 4 no S wgmma, 8 no P V wgmma.
#
# leave_out.patch applies to the proposed ideas' stack up to 33 (sparse_mla-ideas19's head; the leave-out
# of 2026-12-03 used its first version, on 1+2+3+5+8+11+13+18+32+33 before 26 joined: git log this folder).
#
#   REF="33:KEYS_PER_TILE=64,..." WORKLOADS=b1_32k,b16_32k bash scripts/device/leave_out/run.sh
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/leave_out.XXXXXX)}
mkdir -p "$OUT_DIR"
REF=${REF:?REF: STACK:SETS of prepared ideas (as scripts/ideas_bench.sh takes them)}
WORKLOADS=${WORKLOADS:-b1_32k,b16_32k,b128_32k,fp8_b128_32k}
DIAGS=${DIAGS:-0 1 4 8 12 13}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
work=$(mktemp -d)
pkg=$work/sparse_mla
ideas_stack "${REF%%:*}" "$pkg"
(cd "$pkg" && patch -s -F0 -p3 < "$REPO/scripts/device/leave_out/leave_out.patch")
mapfile -t defines < <(set_defines "${REF#*:}")
PKG=$pkg bash tests/gpu/build_sparse_mla.sh harness "$work/harness" > "$work/build.log" 2>&1 &
slots=()
for d in $DIAGS; do   # in parallel: each cubin takes nvcc about half a minute
  PKG=$pkg bash tests/gpu/build_sparse_mla.sh cubin "$pkg/kernel.cu" "$work/d$d.cubin" "${defines[@]}" "-DDIAG=$d" > "$work/build-d$d.log" 2>&1 &
  slots+=("d$d")
done
wait
for d in $DIAGS; do [ -f "$work/d$d.cubin" ] || { tail -20 "$work/build-d$d.log"; exit 1; }; done
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true; echo "REF=$REF"; } \
  | tee "$OUT_DIR/leave_out.txt"
slot_list=$(printf '"%s",' "${slots[@]}"); slot_list=[${slot_list%,}]
IFS=, read -ra names <<< "$WORKLOADS"
for w in "${names[@]}"; do
  request=$(workload_request "$pkg/manifest.json" "$w")
  {
    echo '{"cmd":"hello"}'
    for d in $DIAGS; do echo "{\"cmd\":\"load\",\"slot\":\"d$d\",\"artifact\":\"$work/d$d.cubin\"}"; done
    echo "{\"cmd\":\"bench\",\"slots\":$slot_list,\"workload\":$request,\"seed\":7,\"cold\":true,\"min_samples\":30,\"min_seconds\":0.5,\"max_seconds\":4,\"target_rel_ci\":0.005}"
    echo '{"cmd":"quit"}'
  } | "$work/harness" --gpu 0 > "$OUT_DIR/bench-$w.jsonl" 2> "$OUT_DIR/bench-$w.err" || true
  python3 - "$OUT_DIR/bench-$w.jsonl" "$w" <<'PY' | tee -a "$OUT_DIR/leave_out.txt"
import json, statistics, sys
reply = None
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if "samples" in r:
        reply = r
if reply is None:
    print(f"== {sys.argv[2]}: no bench reply (see bench-{sys.argv[2]}.err)")
    sys.exit(0)
base = statistics.median(reply["samples"]["d0"])
cells = "  ".join(f"{s} {statistics.median(v):7.2f} ({statistics.median(v) - base:+6.2f})" for s, v in reply["samples"].items())
print(f"== {sys.argv[2]}: median us (vs d0): {cells}")
PY
done
