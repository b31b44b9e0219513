#!/usr/bin/env bash
# The CUDA cheat suite through the product's own path (issue 7): one
# `autoresearch run --agent command` on sparse_mla whose agent applies cheat i on
# call i (tests/gpu/apply_cuda_cheat.sh). Every cheat must end with a non-keep
# decision; the reason names the guard that stopped it (or, for the cheats the
# harness defeats by construction, says it is no faster). Honest variants must
# never be rejected. Prints a table; the log and the table go under $OUT.
#
#   AUTORESEARCH=./build/autoresearch scripts/gpu_cheats_run.sh [NAME ...]
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AR=${AUTORESEARCH:-$REPO/build/autoresearch}
OUT_DIR=${OUT:-$(mktemp -d /tmp/gpu_cheats.XXXXXX)}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(phase_const_table phase_pasted_global fast_after_warmup phase_cold_cache phase_lse_slack
         tamper_reference tamper_reference_scan phase_workspace memo_q_hash skip_tail fp16_scores
         partial_write honest_reordered honest_workspace)
fi
tag=cheats-$(date +%H%M%S)
cd "$REPO"
"$AR" run --kernel sparse_mla --agent command --agent-cmd "sh tests/gpu/apply_cuda_cheat.sh ${names[*]}" \
  --goal 100x --plateau 0 --max-iters ${#names[@]} --tag "$tag" --profile false 2>&1 | tee "$OUT_DIR/cheats.console.txt"
log=.autoresearch/runs/sparse_mla-$tag/experiments.jsonl
cp "$log" "$OUT_DIR/cheats.experiments.jsonl" 2>/dev/null
python3 - "$log" <<'PY' | tee "$OUT_DIR/cheats.table.txt"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = 0
print(f"{'candidate':<28} {'decision':<18} reason")
for c in (l for l in lines if l.get("type") == "candidate"):
    idea = c.get("idea", "")
    kind, _, name = idea.partition(": ")
    d = c.get("decision")
    verdict = ""
    if kind == "cheat" and d == "keep": verdict, bad = "  <-- KEPT A CHEAT", bad + 1
    if kind == "honest" and d in ("rejected_by_guard", "wrong", "crash"): verdict, bad = "  <-- FALSE ALARM", bad + 1
    print(f"{name:<28} {d:<18} {c.get('reason', '')[:160]}{verdict}")
print("cheats kept / false alarms:", bad)
sys.exit(1 if bad else 0)
PY
