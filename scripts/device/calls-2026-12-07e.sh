#!/usr/bin/env bash
# The issue's table at the newest head (sparse_mla-ideas36: ideas34's + 58), meant for the H200, where the
# targets are set: fetches the chain of bundles, then scripts/device/sparse_mla_table/run.sh into $OUT/table.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
source scripts/device/calls_common.sh
fetch_runs 17 19 20 21 22 23 29 33 34 36
mkdir -p "${OUT:?}/table"
AUTORESEARCH=$(realpath .carry/autoresearch) REF=autoresearch/sparse_mla-ideas36 OUT=$OUT/table timeout 200 \
  bash scripts/device/sparse_mla_table/run.sh > "$OUT/table/log.txt" 2>&1
tail -16 "$OUT/table/log.txt"
