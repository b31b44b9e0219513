#!/usr/bin/env bash
# Where a small launch's time goes (issue 9: B=1 takes about 20 us for one key tile a block):
# each stage's duration without cache flushes (ncu --cache-control none, gpu__time_duration of
# every launch `bench` makes), beside the bench's own median for the whole graph. Under ncu the
# bench's verification runs but its timing may not (on the H200 the harness gave up, exit 4): the
# launches counted are then the verification's, each on freshly drawn inputs.
# With nsys on the machine, also its CUDA GPU trace (the gaps measured directly).
#
#   AUTORESEARCH=.carry/autoresearch REF="1+2+3+5+8+11+13+16:KEYS_PER_TILE=64,..." \
#     WORKLOADS=b1_32k,b16_32k bash scripts/device/stage_timeline/run.sh
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
AR=$(realpath "${AUTORESEARCH:-$REPO/build/autoresearch}")
OUT_DIR=${OUT:-$(mktemp -d /tmp/stage_timeline.XXXXXX)}
REF=${REF:?REF: STACK:SETS of prepared ideas (as scripts/ideas_bench.sh takes them)}
WORKLOADS=${WORKLOADS:-b1_32k,b16_32k}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
source scripts/ideas_package.sh
pkg=$(mktemp -d)/sparse_mla
ideas_stack "${REF%%:*}" "$pkg"
mapfile -t args < <(set_args "${REF#*:}")
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader; echo "REF=$REF"; } \
  | tee "$OUT_DIR/timeline.txt"
IFS=, read -ra names <<< "$WORKLOADS"
for w in "${names[@]}"; do
  echo "== $w" | tee -a "$OUT_DIR/timeline.txt"
  "$AR" bench --kernel "$pkg" "${args[@]}" --workloads "$w" --min-seconds 0.2 2>&1 | grep -E "^\| $w " \
    | tee -a "$OUT_DIR/timeline.txt"
  # Every launch (bench verifies on all workloads first); the parser keeps each stage's last 40, the
  # timed replays of this workload.
  ncu --clock-control none --cache-control none --target-processes all --kernel-name "regex:^ar_(k[0-9]+_)?stage" \
    --launch-count 4000 --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
    --csv --page raw --log-file "$OUT_DIR/ncu-$w.csv" \
    "$AR" bench --kernel "$pkg" "${args[@]}" --workloads "$w" --min-seconds 0.05 --max-seconds 0.2 > /dev/null 2>&1 || true
  python3 - "$OUT_DIR/ncu-$w.csv" <<'PY' | tee -a "$OUT_DIR/timeline.txt"
import csv, statistics, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("=="))]
if len(rows) < 3:
    print("ncu: no launches recorded"); sys.exit()
head = rows[0]
k, d = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
g = head.index("Grid Size") if "Grid Size" in head else None
by = {}
for r in rows[2:]:
    try: by.setdefault(r[k] + (f" grid {r[g]}" if g is not None else ""), []).append(float(r[d].replace(",", "")))
    except (ValueError, IndexError): pass
unit = rows[1][d]
# the timed replays are the most frequent (stage, grid) pairs; verification launches each workload a few times
for name, v in sorted(by.items(), key=lambda kv: -len(kv[1]))[:4]:
    last = v[-40:]
    print(f"{name}: {len(v)} launches; the last {len(last)}: median {statistics.median(last):.2f} {unit} "
          f"(min {min(last):.2f}, max {max(last):.2f})")
PY
  if command -v nsys > /dev/null; then
    nsys profile -q --cuda-graph-trace=node -t cuda -o "$OUT_DIR/nsys-$w" --force-overwrite true \
      "$AR" bench --kernel "$pkg" "${args[@]}" --workloads "$w" --min-seconds 0.05 --max-seconds 0.1 > /dev/null 2>&1 || true
    nsys stats -q --report cuda_gpu_trace --format csv -o "$OUT_DIR/trace-$w" "$OUT_DIR/nsys-$w.nsys-rep" > /dev/null 2>&1 || true
    python3 - "$OUT_DIR/trace-$w"_cuda_gpu_trace.csv <<'PY' | tee -a "$OUT_DIR/timeline.txt" || true
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ks = [(int(r["Start (ns)"]), int(r["Duration (ns)"]), r["Name"]) for r in rows if r["Name"].startswith("ar_")]
ks.sort()
# consecutive stage0 -> stage1 pairs of one replay: stage0 duration, gap, stage1 duration
s0, gap, s1 = [], [], []
for a, b in zip(ks, ks[1:]):
    if "stage0" in a[2] and "stage1" in b[2]:
        s0.append(a[1] / 1e3); s1.append(b[1] / 1e3); gap.append((b[0] - a[0] - a[1]) / 1e3)
tail = lambda v: v[len(v) // 2:]
if s0:
    print(f"nsys: {len(s0)} stage0->stage1 pairs (later half): stage0 {statistics.median(tail(s0)):.2f} us, "
          f"gap {statistics.median(tail(gap)):.2f} us, stage1 {statistics.median(tail(s1)):.2f} us")
else:
    durs = [d / 1e3 for _, d, _ in ks]
    print(f"nsys: {len(ks)} launches, median {statistics.median(durs) if durs else 0:.2f} us")
PY
  else
    echo "nsys: not installed" | tee -a "$OUT_DIR/timeline.txt"
  fi
done
