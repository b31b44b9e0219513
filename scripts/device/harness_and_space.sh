#!/usr/bin/env bash
# One device call (H200): the merged CUDA harness on sparse_mla (verify, every
# workload and the hidden draws), a CUDA package scaffolded by `init` checked
# and timed as generated, then the sparse_mla tunable space measured with what
# time is left (resumable: the same command continues from OUT.partial).
# Usage (device root of the repo, the stripped driver at .carry/autoresearch):
#   SPACE_SECONDS=300 bash scripts/device/harness_and_space.sh
# (SKIP_VERIFY=1: the space only; VERIFY_SPARSE_MLA=0: the init demo without sparse_mla's verify)
set -uo pipefail
AR="$PWD/.carry/autoresearch"
export PATH=/usr/local/cuda/bin:$PATH AUTORESEARCH_HOME=$PWD AUTORESEARCH_CACHE_DIR=${AUTORESEARCH_CACHE_DIR:-/tmp/arcache}
out=${OUT:-/tmp/out}; mkdir -p "$out"
git -c user.name=d -c user.email=d@d add -A >/dev/null; git -c user.name=d -c user.email=d@d commit -qm device >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
if [ "${SKIP_VERIFY:-0}" != 1 ]; then
  start=$(date +%s)
  [ "${VERIFY_SPARSE_MLA:-1}" = 1 ] && timeout 240 "$AR" verify --kernel sparse_mla --seed 7 > "$out/verify_sparse_mla.txt" 2>&1; echo "rc=$? seconds=$(( $(date +%s) - start ))" >> "$out/verify_sparse_mla.txt"
  tail -5 "$out/verify_sparse_mla.txt"
  demo=$(mktemp -d); ( cd "$demo" && git init -q && git -c user.name=d -c user.email=d@d commit -q --allow-empty -m init &&
    "$AR" init gpu_demo --backend cuda && git add -A && git -c user.name=d -c user.email=d@d commit -qm demo &&
    timeout 120 "$AR" verify --kernel gpu_demo --seed 3; echo "verify rc=$?";
    timeout 120 "$AR" bench --kernel gpu_demo --seed 3; echo "bench rc=$?" ) > "$out/init_cuda_demo.txt" 2>&1
  tail -8 "$out/init_cuda_demo.txt"
fi
mkdir -p .autoresearch/spaces; chmod -R u+w .autoresearch/spaces
timeout -s INT "${SPACE_SECONDS:-300}" "$AR" space --kernel sparse_mla --seed 1 --screen-max-seconds 0.5 \
  --values EXTRA_STAGES=0 --values QK_WGMMA=1 -o .autoresearch/spaces/sparse_mla_quick.jsonl > "$out/space.txt" 2>&1
echo "space rc=$?" | tee -a "$out/space.txt"
tail -3 "$out/space.txt"
cp -r .autoresearch/spaces "$out/" 2>/dev/null
exit 0
