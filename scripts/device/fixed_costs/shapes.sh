#!/usr/bin/env bash
# B=1's launch shape, probed at the record's head with the knobs of switches.py, timed interleaved with the
# head and the launch floor by slots_bench (cold): the row path at one tile a block (rmt1), two tiles a block
# on the chunk-major path (ms16), four on the row path (ms8) and on the chunk-major path (ms8c), and the
# chunk-major path's tile issued by 2 or 4 producer warps instead of 1 (pw2, pw4). Unverified
# timing probes: verify a shape with `autoresearch verify` before reading more into it.
#
#   H=1+2+... S=KEYS_PER_TILE=64,... bash scripts/device/fixed_costs/shapes.sh
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
H=${H:?H: the stack of prepared ideas (scripts/ideas_bench.sh)}
S=${S:?S: its tunables, NAME=V,...}
SLOTS="head=$H:$S rmt1=$H:$S,ROW_MIN_TILES=1 ms16=$H:$S,MAX_SPLITS=16 ms8=$H:$S,MAX_SPLITS=8"
SLOTS+=" ms8c=$H:$S,MAX_SPLITS=8,ROW_MIN_TILES=99"
CHUNK=${S/ROW_GATHER=1/ROW_GATHER=0}   # every launch on the chunk-major path, its cp.async tiles by more warps
SLOTS+=" pw2=$H:${CHUNK/PRODUCER_WARPS=1/PRODUCER_WARPS=2} pw4=$H:${CHUNK/PRODUCER_WARPS=1/PRODUCER_WARPS=4}"
SLOTS=$SLOTS SWITCHES=1 WARM=${WARM:-0} WORKLOADS=${WORKLOADS:-b1_32k,h16_b1_8k,b16_32k} \
  bash "$REPO/scripts/device/slots_bench/run.sh"
