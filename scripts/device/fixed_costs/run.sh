#!/usr/bin/env bash
# What each fixed cost around sparse_mla's tiles adds, at the record's head: the stack H built with the
# leave-out switches of switches.py, every variant timed interleaved with the head and the launch floor by
# slots_bench, cold (the harness's 256 MB flush before each sample, as every bench here) and warm.
# Nothing is verified: the variants are wrong by design. k32 (the chunk-major path at 32-key tiles: 128
# blocks at B=1 instead of 64) and cb32 (the combine's 32 splits in flight at once) are timing probes
# for B=1, wrong or not; verify one with `autoresearch verify --set` before reading more into it.
#
#   H=1+2+... S=KEYS_PER_TILE=64,... bash scripts/device/fixed_costs/run.sh
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
H=${H:?H: the stack of prepared ideas (scripts/ideas_bench.sh)}
S=${S:?S: its tunables, NAME=V,...}
K32=${S/KEYS_PER_TILE=64/KEYS_PER_TILE=32}
K32=${K32/ROW_GATHER=1/ROW_GATHER=0}
SLOTS="head=$H:$S lo_q=$H:$S,LO_Q=1 lo_epi=$H:$S,LO_EPI=1 lo_comb=$H:$S,LO_COMB=1"
SLOTS+=" lo_all=$H:$S,LO_Q=1,LO_EPI=1,LO_COMB=1 cb32=$H:$S,COMB_BATCH=32 k32=$H:$K32"
SLOTS=$SLOTS SWITCHES=1 WARM=${WARM:-1} WORKLOADS=${WORKLOADS:-b1_32k,h16_b1_8k,b16_32k,b128_32k} \
  bash "$REPO/scripts/device/slots_bench/run.sh"
