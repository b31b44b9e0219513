#!/usr/bin/env bash
# Where a tuner run's time goes on this machine's CPU package (issue 11): the
# same run twice, tunables-only candidates screened first (the default) and
# verified first (--screen-first false), each in a fresh repository with the
# same seed and time budget; then scripts/device/throughput_summary.py on both
# logs. Prints a report; commit it under kernels/matmul_cpu/results/.
#   HOURS=0.06 bash scripts/throughput_cpu.sh > kernels/matmul_cpu/results/throughput-$(date +%F).txt
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
AR=${AUTORESEARCH:-$here/build/autoresearch}
HOURS=${HOURS:-0.06}
echo "# throughput on the CPU package: $(date -u +%FT%TZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# $AR run --kernel matmul_cpu --goal 100x --max-hours $HOURS --seed 3 --config configs/quick.json --plateau 0 [--screen-first false]"
for mode in true false; do
  work=$(mktemp -d /tmp/ar-throughput-XXXXXX)
  cp -r "$here/kernels" "$here/configs" "$work/"
  (cd "$work" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm start)
  (cd "$work" && AUTORESEARCH_HOME=$here AUTORESEARCH_CACHE_DIR=$work/.cache "$AR" run --kernel matmul_cpu --goal 100x \
      --max-hours "$HOURS" --seed 3 --config configs/quick.json --plateau 0 --tag tput --screen-first "$mode" \
      > "$work/console.txt" 2>&1)
  echo
  echo "## --screen-first $mode"
  tail -2 "$work/console.txt"
  python3 "$here/scripts/device/throughput_summary.py" "$work/.autoresearch/runs/matmul_cpu-tput/experiments.jsonl"
  rm -rf "$work"
done
