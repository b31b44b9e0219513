#!/usr/bin/env bash
# What compute-sanitizer's racecheck reports on stacks of prepared ideas, side by side: each STACK:SETS
# is built with -lineinfo and loaded into the harness directly (as the run's sanitizer step loads a
# candidate: `exercise`, only the ar_ kernels instrumented), on WORKLOADS (first input distribution), so a
# suspected fix is checked beside the stack the run flagged. (On the H200 with CUDA 13.0's sanitizer the
# hazards came with code offsets only, no source lines, 2026-12-03.)
#
#   WORKLOADS=b16_4k bash scripts/device/racecheck_lines/run.sh "1+2+3+5+8+11+13:KEYS_PER_TILE=64,..." ...
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/racecheck_lines.XXXXXX)}
mkdir -p "$OUT_DIR"
WORKLOADS=${WORKLOADS:-b16_4k}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
work=$(mktemp -d)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true; compute-sanitizer --version | tail -1; } \
  | tee "$OUT_DIR/racecheck.txt"
PKG=$REPO/kernels/sparse_mla bash tests/gpu/build_sparse_mla.sh harness "$work/harness" > "$work/harness.log" 2>&1 ||
  { tail -20 "$work/harness.log"; exit 1; }
n=0
for spec in "$@"; do
  n=$((n + 1))
  pkg=$work/s$n/sparse_mla
  ideas_stack "${spec%%:*}" "$pkg" || { echo "stack ${spec%%:*} does not apply" | tee -a "$OUT_DIR/racecheck.txt"; continue; }
  mapfile -t defines < <(set_defines "${spec#*:}")
  PKG=$pkg bash tests/gpu/build_sparse_mla.sh cubin "$pkg/kernel.cu" "$work/s$n.cubin" -lineinfo "${defines[@]}" \
    > "$work/s$n.build.log" 2>&1 || { tail -20 "$work/s$n.build.log"; continue; }
  IFS=, read -ra names <<< "$WORKLOADS"
  script='{"cmd":"hello"}'$'\n'"{\"cmd\":\"load\",\"slot\":\"c\",\"artifact\":\"$work/s$n.cubin\"}"
  for w in "${names[@]}"; do
    request=$(workload_request "$pkg/manifest.json" "$w")
    script+=$'\n'"{\"cmd\":\"exercise\",\"slot\":\"c\",\"workload\":$request,\"seed\":1,\"distributions\":1}"
  done
  script+=$'\n''{"cmd":"quit"}'
  echo "== ${spec%%:*} on $WORKLOADS" | tee -a "$OUT_DIR/racecheck.txt"
  printf '%s\n' "$script" | timeout 300 compute-sanitizer --tool racecheck --report-api-errors no --print-limit 12 \
    --kernel-name kns=ar_ "$work/harness" --gpu 0 > "$OUT_DIR/s$n.txt" 2>&1
  echo "exit $?" >> "$OUT_DIR/s$n.txt"
  grep -E "SUMMARY|Race reported|Read access|Write access|at .*kernel.cu:|^exit" "$OUT_DIR/s$n.txt" | head -60 \
    | tee -a "$OUT_DIR/racecheck.txt"
done
