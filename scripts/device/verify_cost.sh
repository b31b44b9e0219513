#!/usr/bin/env bash
# What verification and the sanitizer cost on the H200 (issue 11), from the
# package as committed: `autoresearch verify --json` of the starting kernel
# (every workload's time split by part), the GPU selftest on that harness
# (every cheat and honest control, the default kernel on every workload), and
# compute-sanitizer (memcheck and racecheck side by side, as the driver runs
# them) on the smallest workload: once on the `exercise` request the driver
# sends, once on a whole `verify` (what it sent before), each timed.
#   bash scripts/device/verify_cost.sh      (the stripped driver at .carry/autoresearch)
set -uo pipefail
AR="$PWD/.carry/autoresearch"
export PATH=/usr/local/cuda/bin:$PATH AUTORESEARCH_HOME=$PWD AUTORESEARCH_CACHE_DIR=${AUTORESEARCH_CACHE_DIR:-/tmp/arcache}
out=${OUT:-/tmp/out}; mkdir -p "$out"
g() { git -c user.name=d -c user.email=d@d "$@"; }
g add -A >/dev/null; g commit -qm device >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$out/verify_cost.gpu.txt" 2>&1
now() { date +%s.%N; }

# The driver's verify builds the harness into the cache; without a carried
# driver the selftest builds its own.
harness=""
if [ -x "$AR" ]; then
  start=$(now)
  timeout 300 "$AR" verify --kernel sparse_mla --seed 7 --json > "$out/verify.json" 2> "$out/verify.stderr.txt"
  echo "verify rc=$? wall $(python3 -c "print(round($(now) - $start, 1))") s (harness build included)" | tee "$out/verify_cost.txt"
  python3 - "$out/verify.json" <<'PY' | tee -a "$out/verify_cost.txt"
import json, sys
v = json.load(open(sys.argv[1]))
ws = v.get("workloads", [])
parts = {}
for w in ws:
    for k, x in (w.get("timing") or {}).items():
        parts[k] = parts.get(k, 0) + x
total = sum(w.get("seconds", 0) for w in ws)
print(f"pass {v.get('pass')}: {len(ws)} workloads, {total:.1f} s in the harness; " +
      ", ".join(f"{k} {x:.1f} s ({100 * x / max(total, 1e-9):.0f}%)" for k, x in sorted(parts.items(), key=lambda p: -p[1])))
for w in sorted(ws, key=lambda w: -w.get("seconds", 0))[:6]:
    print(f"  {w['name']}: {w.get('seconds', 0):.2f} s", json.dumps({k: round(x, 3) for k, x in (w.get('timing') or {}).items()}))
PY
  harness=$(ls -d "$AUTORESEARCH_CACHE_DIR"/harness/cuda-*/harness 2>/dev/null | head -1)
fi

# The selftest's build folder stays here (binaries); its logs come back.
st=/tmp/selftest; rm -rf "$st"
HARNESS="$harness" OUT="$st" timeout 360 bash scripts/gpu_selftest.sh --skip-sanitizer > "$out/selftest.txt" 2>&1
echo "selftest rc=$?" | tee -a "$out/verify_cost.txt"
mkdir -p "$out/selftest"; find "$st" -maxdepth 1 -type f -exec cp {} "$out/selftest/" \;
tail -45 "$out/selftest.txt"
[ -n "$harness" ] || harness="$st/build/harness"

cubin="$st/build/kernel.cubin"
workload=$(python3 -c "
import json; m = json.load(open('kernels/sparse_mla/manifest.json'))
w = [w for w in m['workloads'] if w['name'] == 'b1_4k'][0]; print(json.dumps({'name': w['name'], 'params': w['params']}))")
tolerances=$(python3 -c "
import json; m = json.load(open('kernels/sparse_mla/manifest.json')); t = m.get('tolerances')
print(json.dumps([dict(output=k, **v) for k, v in t.items()] if isinstance(t, dict) else t))")
load="{\"cmd\":\"load\",\"slot\":\"cand\",\"artifact\":\"$cubin\"}"
for request in exercise verify; do
  if [ "$request" = exercise ]; then
    rq="{\"cmd\":\"exercise\",\"slot\":\"cand\",\"workload\":$workload,\"seed\":99}"
  else
    rq="{\"cmd\":\"verify\",\"slot\":\"cand\",\"workload\":$workload,\"seed\":99,\"tolerances\":$tolerances,\"deterministic\":true}"
  fi
  both=$(now)
  for tool in memcheck racecheck; do
    ( s=$(now)
      printf '%s\n%s\n{"cmd":"quit"}\n' "$load" "$rq" |
        timeout 300 compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 99 "$harness" --gpu 0 \
        > "$out/sanitizer_${request}_$tool.txt" 2>&1
      echo "sanitizer $tool on $request: rc=$? $(python3 -c "print(round($(now) - $s, 1))") s;" \
        "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer_${request}_$tool.txt" | head -1)" ) &
  done | tee -a "$out/verify_cost.txt"
  wait
  echo "sanitizer pair on $request: $(python3 -c "print(round($(now) - $both, 1))") s wall" | tee -a "$out/verify_cost.txt"
done
exit 0
