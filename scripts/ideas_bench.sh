#!/usr/bin/env bash
# Before a run: what each stack of prepared ideas does on its own (issue 9).
# Runs the wgmma probe (each case in its own process), then for each N given,
# builds a throwaway package with patches 1..N applied and `bench`es it (and,
# with PROFILE=WORKLOAD, profiles it there). Not a judgement: `run` judges.
#
#   AUTORESEARCH=./build/autoresearch scripts/ideas_bench.sh "2:KEYS_PER_TILE=32,KV_STAGES=2" "3:"
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AR=${AUTORESEARCH:-$REPO/build/autoresearch}
OUT_DIR=${OUT:-$(mktemp -d /tmp/ideas_bench.XXXXXX)}
cd "$REPO"
mapfile -t patches < <(find scripts/ideas/sparse_mla -maxdepth 1 -name '*.patch' | sort)
stack() {   # stack N DIR: the package with patches 1..N applied
  rm -rf "$2" && cp -r kernels/sparse_mla "$2" && rm -rf "$2/results"
  for p in "${patches[@]:0:$1}"; do (cd "$2" && patch -s -p3 < "$REPO/$p") || return 1; done
}
probe=$(mktemp -d)/pkg
stack ${#patches[@]} "$probe"
if nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -w -I"$probe" -I include tests/gpu/wgmma_probe.cu \
     -o "$probe/probe" 2> "$probe/probe.err"; then
  for c in 0 1 2 3; do "$probe/probe" $c; done 2>&1 | tee "$OUT_DIR/wgmma_probe.txt"
else
  head -20 "$probe/probe.err" | tee "$OUT_DIR/wgmma_probe.txt"
fi
for spec in "$@"; do
  n=${spec%%:*}; sets=${spec#*:}
  pkg=$(mktemp -d)/sparse_mla; stack "$n" "$pkg" || { echo "stack $n does not apply"; continue; }
  args=(); IFS=, read -ra kv <<< "$sets"; for s in "${kv[@]}"; do [ -n "$s" ] && args+=(--set "$s"); done
  echo "== ideas 1..$n ${args[*]}" | tee -a "$OUT_DIR/ideas_bench.txt"
  "$AR" bench --kernel "$pkg" "${args[@]}" --min-seconds 0.3 2>&1 | tail -22 | tee -a "$OUT_DIR/ideas_bench.txt"
  if [ -n "${PROFILE:-}" ]; then
    "$AR" profile --kernel "$pkg" "${args[@]}" --workload "$PROFILE" 2>&1 | tee -a "$OUT_DIR/ideas_profile.txt"
  fi
done
