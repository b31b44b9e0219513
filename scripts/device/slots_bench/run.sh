#!/usr/bin/env bash
# Stacks of prepared ideas timed together, interleaved in one harness `bench` per workload (ratios from one
# run, which separate benches cannot give below about 1%), beside the launch floor of the first stack: the
# same cubin built with -DLAUNCH_FLOOR=1, whose attention stage returns as its blocks start and whose
# combine returns once the attention stage is done (floor.py adds the switch). The floor keeps the launch
# (grid, block, shared memory, the stages and their programmatic launch, the workspace fill, the graph) and
# drops the work: what a workload would take if its blocks cost nothing. Nothing here verifies (the floor
# is wrong by design); verify each stack with scripts/ideas_bench.sh (VERIFY=1) before reading its times.
#
#   SLOTS="head=1+2+3:KEYS_PER_TILE=64 new=1+2+3+45:KEYS_PER_TILE=64" WORKLOADS=b1_32k,b16_32k \
#     bash scripts/device/slots_bench/run.sh
#   SASS=ar_k1_stage0 also writes each stack's SASS of that entry point (sass-NAME.txt).
#   SWITCHES=1 adds the leave-out switches of scripts/device/fixed_costs/switches.py to every stack, so a
#   slot's sets may turn one on (head=H:S lo_q=H:S,LO_Q=1): what each fixed cost adds, interleaved.
#   WARM=1 also times every slot without the cold flush (a second bench: how much of a time is cold memory).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/slots_bench.XXXXXX)}
mkdir -p "$OUT_DIR"
SLOTS=${SLOTS:?SLOTS: NAME=STACK:SETS ... (STACK as scripts/ideas_bench.sh takes it)}
WORKLOADS=${WORKLOADS:-b1_32k,b16_32k}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
work=$(mktemp -d)
read -ra specs <<< "$SLOTS"
names=()
for spec in "${specs[@]}"; do
  name=${spec%%=*}; ref=${spec#*=}
  ideas_stack "${ref%%:*}" "$work/$name/sparse_mla" || { echo "stack ${ref%%:*} does not apply"; exit 1; }
  if [ "${SWITCHES:-0}" = 1 ]; then
    python3 "$REPO/scripts/device/fixed_costs/switches.py" "$work/$name/sparse_mla/kernel.cu" || exit 1
  fi
  mapfile -t defines < <(set_defines "${ref#*:}")
  echo "${defines[*]}" > "$work/$name/defines"
  names+=("$name")
done
first=${names[0]}
cp -r "$work/$first" "$work/floor"
python3 "$REPO/scripts/device/slots_bench/floor.py" "$work/floor/sparse_mla/kernel.cu"
names+=(floor)
PKG=$work/$first/sparse_mla bash tests/gpu/build_sparse_mla.sh harness "$work/harness" > "$work/build.log" 2>&1 &
for name in "${names[@]}"; do   # in parallel: each cubin takes nvcc about half a minute
  read -ra defines < "$work/$name/defines"
  extra=(); [ "$name" = floor ] && extra=(-DLAUNCH_FLOOR=1)
  PKG=$work/$name/sparse_mla bash tests/gpu/build_sparse_mla.sh cubin "$work/$name/sparse_mla/kernel.cu" "$work/$name.cubin" \
    "${defines[@]}" "${extra[@]}" > "$work/build-$name.log" 2>&1 &
done
wait
for name in "${names[@]}"; do [ -f "$work/$name.cubin" ] || { tail -20 "$work/build-$name.log"; exit 1; }; done
# SASS=FUNCTION: each stack's SASS of that entry point beside the times (e.g. SASS=ar_k1_stage0, the row path):
# where ptxas put the waits around the wgmmas, which no bench shows.
if [ -n "${SASS:-}" ]; then
  for name in "${names[@]}"; do
    [ "$name" = floor ] || cuobjdump -sass -fun "$SASS" "$work/$name.cubin" > "$OUT_DIR/sass-$name.txt" 2>&1 || true
  done
fi
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true; echo "SLOTS=$SLOTS"; } \
  | tee "$OUT_DIR/slots_bench.txt"
slot_list=$(printf '"%s",' "${names[@]}"); slot_list=[${slot_list%,}]
IFS=, read -ra wls <<< "$WORKLOADS"
colds=(true); [ "${WARM:-0}" = 1 ] && colds+=(false)
for w0 in "${wls[@]}"; do
 request=$(workload_request "$work/$first/sparse_mla/manifest.json" "$w0")
 for cold in "${colds[@]}"; do
  w=$w0; [ "$cold" = false ] && w=$w0.warm   # the file and line names of the warm bench
  {
    echo '{"cmd":"hello"}'
    for name in "${names[@]}"; do echo "{\"cmd\":\"load\",\"slot\":\"$name\",\"artifact\":\"$work/$name.cubin\"}"; done
    echo "{\"cmd\":\"bench\",\"slots\":$slot_list,\"workload\":$request,\"seed\":7,\"cold\":$cold,\"min_samples\":40,\"min_seconds\":1,\"max_seconds\":6,\"target_rel_ci\":0.003}"
    echo '{"cmd":"quit"}'
  } | "$work/harness" --gpu 0 > "$OUT_DIR/bench-$w.jsonl" 2> "$OUT_DIR/bench-$w.err" || true
  python3 - "$OUT_DIR/bench-$w.jsonl" "$w" "$first" <<'PY' | tee -a "$OUT_DIR/slots_bench.txt"
import json, statistics, sys
reply = None
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if "samples" in r:
        reply = r
if reply is None:
    print(f"== {sys.argv[2]}: no bench reply (see bench-{sys.argv[2]}.err)")
    sys.exit(0)
base = statistics.median(reply["samples"][sys.argv[3]])
cells = "  ".join(f"{s} {statistics.median(v):7.2f} ({base / statistics.median(v):.3f}x)" for s, v in reply["samples"].items())
print(f"== {sys.argv[2]}: median us (speedup vs {sys.argv[3]}): {cells}")
PY
 done
done
