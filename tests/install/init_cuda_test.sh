#!/usr/bin/env bash
# `init --backend cuda` + `verify --dry-run` where nvcc exists (no GPU needed):
# the generated problem compiles for the host with nvcc and answers the dry
# run, and the generated kernel compiles to a cubin.
#
#   init_cuda_test.sh AUTORESEARCH_BINARY CACHE_DIR
set -euo pipefail
ar=$1
export AUTORESEARCH_CACHE_DIR=$2
export NO_COLOR=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
work=$(mktemp -d /tmp/ar-init-cuda-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" && git init -q -b main
"$ar" init gpu_demo --backend cuda
git add -A && git -c user.name=t -c user.email=t@t commit -qm "gpu_demo: new package"
"$ar" verify --kernel gpu_demo --dry-run --json > dry.json
grep -q '"pass": true' dry.json || { cat dry.json; exit 1; }
echo "ok: init --backend cuda passes verify --dry-run"
