#!/usr/bin/env bash
# Issue 9's results table on the GPU machine: `bench --json` of the plain start
# (kernels/sparse_mla in this tree, benched from a copy) and of the kernel at REF (a kept commit,
# e.g. a run branch's head), in one session, then scripts/sparse_mla_table.py.
# bench verifies each on every workload before it times them. Output under $OUT.
#
#   AUTORESEARCH=.carry/autoresearch REF=autoresearch/sparse_mla-ideas6 bash scripts/device/sparse_mla_table/run.sh
#   REF=STACK:SETS (e.g. "1+2+3+5:KEYS_PER_TILE=64,...") benches prepared ideas instead of a commit.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
AR=${AUTORESEARCH:-$REPO/build/autoresearch}
OUT_DIR=${OUT:-$(mktemp -d /tmp/sparse_mla_table.XXXXXX)}
mkdir -p "$OUT_DIR"
REF=${REF:?REF: the commit (or STACK:SETS of prepared ideas) to tabulate}
WORKLOADS=${WORKLOADS:-b1_32k,b16_32k,b64_32k,b128_32k,b256_160k,mtp_b128_32k,h8_b128_32k,h16_b128_32k,h64_b128_32k,fp8_b64_32k,fp8_b128_32k}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
work=$(mktemp -d)
args=()
if [[ "$REF" == *:* ]]; then   # prepared ideas, as scripts/ideas_bench.sh stacks them
  source scripts/ideas_package.sh
  ideas_stack "${REF%%:*}" "$work/best/sparse_mla"
  mapfile -t args < <(set_args "${REF#*:}")
else                           # a commit: its kernels/sparse_mla, tunables included
  mkdir -p "$work/best" && git archive "$REF" kernels/sparse_mla | tar -x -C "$work/best" --strip-components=1
fi
rm -rf "$work/best/sparse_mla/results"
# The plain start from a copy too: benched in place, the guard compares the package with the checkout's commit,
# and on the GPU machine the copied tree can be ahead of the commit its git has (new result files under
# kernels/sparse_mla/results made the start's bench refuse to run on 2026-12-07).
mkdir -p "$work/start" && cp -r kernels/sparse_mla "$work/start/" && rm -rf "$work/start/sparse_mla/results"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; echo "REF=$REF ${args[*]}"; } \
  | tee "$OUT_DIR/table.txt"
"$AR" bench --kernel "$work/start/sparse_mla" --workloads "$WORKLOADS" --min-seconds 0.3 --json > "$OUT_DIR/start.json"
"$AR" bench --kernel "$work/best/sparse_mla" "${args[@]}" --workloads "$WORKLOADS" --min-seconds 0.3 --json \
  > "$OUT_DIR/best.json"
python3 scripts/sparse_mla_table.py "$OUT_DIR/best.json" "$OUT_DIR/start.json" | tee -a "$OUT_DIR/table.txt"
