#!/usr/bin/env bash
# The CUDA harness and the sparse_mla package, end to end on a GPU machine:
# builds the harness, the default kernel and the planted cheats
# (tests/gpu/cheats), then drives the harness protocol (tests/gpu/selftest.py):
# hello; verify of the default kernel on every workload; an A/A bench with
# every timed replay checked, a padded bench, the fingerprint's cost on the
# largest workload; each cheat (caught or neutralised, with the guard named)
# and each honest control (must pass); compute-sanitizer on the smallest
# workload. About 4-5 minutes on an H200 (most of it the nvcc builds).
# Prints a compact summary last; full output under $OUT when set (else a
# temporary folder). Exits 77 (skipped) when there is no GPU.
#
#   scripts/gpu_selftest.sh [--gpu N] [--skip-sanitizer]
#
# HARNESS=/path/to/harness uses a harness built elsewhere (e.g. on the dev
# machine) instead of building one here; the harness build needs
# nlohmann/json.hpp (system-wide or under .carry/include).
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/tests/gpu/build_sparse_mla.sh

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "gpu_selftest: no GPU found (nvidia-smi -L): skipped"
  exit 77
fi
export NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
OUT_DIR=${OUT:-$(mktemp -d /tmp/gpu_selftest.XXXXXX)}
BIN=$OUT_DIR/build
mkdir -p "$BIN"
echo "gpu_selftest: output in $OUT_DIR"
nvidia-smi -L
"$NVCC" --version | tail -2

# Everything builds in parallel; each build logs to its own file.
start=$(date +%s)
if [ -n "${HARNESS:-}" ]; then
  cp "$HARNESS" "$BIN/harness"
  true &
else
  "$BUILD" harness "$BIN/harness" >"$BIN/harness.log" 2>&1 &
fi
harness_pid=$!
"$BUILD" cubin "$REPO/kernels/sparse_mla/kernel.cu" "$BIN/kernel.cubin" >"$BIN/kernel.log" 2>&1 &
kernel_pid=$!
# Each cheat is a whole kernel.cu, built with exactly the candidate command
# (its helper headers are found through -I<repo>/include, as in a run).
cheat_pids=()
for src in "$REPO"/tests/gpu/cheats/*.cu; do
  name=$(basename "$src" .cu)
  "$BUILD" cubin "$src" "$BIN/cheat_$name.cubin" >"$BIN/cheat_$name.log" 2>&1 &
  cheat_pids+=($!)
done
# An honest control that is the shipped kernel with other tunables: split-KV
# through the workspace, a double-buffered gather, ldmatrix.
"$BUILD" cubin "$REPO/kernels/sparse_mla/kernel.cu" "$BIN/cheat_honest_kernel_split.cubin" \
  -DSPLIT_WAVES=4 -DKV_STAGES=2 -DLDMATRIX=1 >"$BIN/cheat_honest_kernel_split.log" 2>&1 &
cheat_pids+=($!)
status=0
wait "$kernel_pid" || { echo "BUILD FAILED: kernel.cubin"; tail -20 "$BIN/kernel.log"; status=1; }
grep -E "ar_stage|registers|spill" "$BIN/kernel.log" | sed 's/^/  /'
for pid in "${cheat_pids[@]}"; do wait "$pid" || status=1; done
for log in "$BIN"/cheat_*.log; do
  [ -f "${log%.log}.cubin" ] || { echo "BUILD FAILED: $(basename "${log%.log}")"; tail -5 "$log"; }
done
wait "$harness_pid" || { echo "BUILD FAILED: harness"; tail -30 "$BIN/harness.log"; exit 1; }
echo "builds: $(( $(date +%s) - start )) s"

python3 "$REPO/tests/gpu/selftest.py" --harness "$BIN/harness" --cubins "$BIN" \
  --manifest "$REPO/kernels/sparse_mla/manifest.json" --out "$OUT_DIR" "$@"
rc=$?
[ $status -eq 0 ] || rc=1
echo "gpu_selftest: exit $rc (full log: $OUT_DIR/selftest.txt, replies: $OUT_DIR/selftest.jsonl)"
exit $rc
