#!/usr/bin/env bash
# Before a run: what each stack of prepared ideas does on its own (issue 9).
# Runs the wgmma probe (each case in its own process), then for each STACK:SETS
# given, builds a throwaway package with those patches applied and `bench`es it
# (with VERIFY=1 first `verify`s it on every workload and hidden ones; with
# PROFILE=WORKLOAD, profiles it there). STACK is N (the ideas a run proposes, up
# to number N) or a list
# "1+2+3+5" (a stack that leaves out an idea the run discards); a number names
# the idea by its prefix (5: 05-*.patch, in scripts/ideas/sparse_mla or else in
# its set-aside/ folder), and an element may name a patch file under
# scripts/ideas/sparse_mla ("1+2+3+5+set-aside/07-paired-gathers-inline-push.patch").
# An idea's alternate version applies where its patch does not (ideas_package.sh).
# Not a judgement: `run` judges. BENCH_ARGS go to bench (e.g. "--workloads b1_32k,b128_32k"); PROBE=0
# skips the probe.
#
#   AUTORESEARCH=./build/autoresearch scripts/ideas_bench.sh "2:KEYS_PER_TILE=32,KV_STAGES=2" "3:" "1+2+3+5:"
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AR=${AUTORESEARCH:-$REPO/build/autoresearch}
OUT_DIR=${OUT:-$(mktemp -d /tmp/ideas_bench.XXXXXX)}
mkdir -p "$OUT_DIR"
cd "$REPO"
source "$REPO/scripts/ideas_package.sh"
if [ "${PROBE:-1}" = 1 ]; then   # PROBE=0 skips the probe (its descriptors have not changed since it ran)
  probe=$(mktemp -d)/pkg
  ideas_stack "${PROBE_STACK:-1+2+3}" "$probe"   # the ideas whose wgmma descriptors the probe checks
  if nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -w -I"$probe" -I include tests/gpu/wgmma_probe.cu \
       -o "$probe/probe" 2> "$probe/probe.err"; then
    for c in 0 1 2 3; do "$probe/probe" $c; done 2>&1 | tee "$OUT_DIR/wgmma_probe.txt"
  else
    head -20 "$probe/probe.err" | tee "$OUT_DIR/wgmma_probe.txt"
  fi
fi
for spec in "$@"; do
  n=${spec%%:*}; sets=${spec#*:}
  pkg=$(mktemp -d)/sparse_mla; ideas_stack "$n" "$pkg" || { echo "stack $n does not apply"; continue; }
  mapfile -t args < <(set_args "$sets")
  echo "== ideas $n ${args[*]}" | tee -a "$OUT_DIR/ideas_bench.txt"
  if [ "${VERIFY:-0}" = 1 ]; then
    "$AR" verify --kernel "$pkg" "${args[@]}" ${VERIFY_ARGS:-} 2>&1 | tail -8 | tee -a "$OUT_DIR/ideas_bench.txt"
  fi
  "$AR" bench --kernel "$pkg" "${args[@]}" --min-seconds 0.3 ${BENCH_ARGS:-} 2>&1 | tail -22 | tee -a "$OUT_DIR/ideas_bench.txt"
  if [ -n "${PROFILE:-}" ]; then
    "$AR" profile --kernel "$pkg" "${args[@]}" --workload "$PROFILE" 2>&1 | tee -a "$OUT_DIR/ideas_profile.txt"
  fi
done
