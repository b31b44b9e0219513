# shellcheck shell=bash
# What the dated device calls (scripts/device/calls-*.sh) share; they source it from the repository root.
#   H, S                    the kept stack of prepared ideas up to ideas29's head and its tunables (ideas_stack, set_defines)
#   fetch_runs N...         the run branches sparse_mla-ideasN from their committed bundles, in chain order; a branch
#                           already here (a machine still warm from an earlier call has it checked out in its run's
#                           worktree, which git refuses to fetch into) is kept
#   calls_start DIR...      O ($OUT), AR (the carried driver), W (a work folder holding DIR...); prints the card and time
#   calls_parts DEFAULT     PARTS as the caller gave it, else DEFAULT; `part N` says whether it names part N
#   pack                    everything under W into $O/calls.tar.gz, after each part: a call cut short (machines are
#                           taken back mid-call) still brings back the parts before the cut
#   judge_idea TAG BUNDLE BASE IDEAS FOCUS  `run` from BASE proposing IDEAS (file names without .patch), --focus FOCUS
#                           (scripts/device/ideas_continue), within JUDGE_HOURS (0.05) and JUDGE_TIMEOUT seconds (200)
#   marks_of STACK:SETS WORKLOADS [DIR]     the phase probe's marks by anchor lines (scripts/device/phase_probe), into
#                           W/DIR (phases); SWITCHES=1 adds the leave-out switches, which the sets may turn on
#   slots_of DIR SECONDS WORKLOADS NAME=STACK:SETS...  the stacks timed interleaved beside the launch floor, with
#                           the leave-out switches (scripts/device/slots_bench, fixed_costs/switches.py), into W/DIR
#   screen SECONDS WORKLOADS STACK:SETS...  the stacks benched on WORKLOADS (scripts/ideas_bench.sh: each verified
#                           first on the workloads it times), into W/screen
#   table_at REF SECONDS                    the table at REF (scripts/device/sparse_mla_table)
# shellcheck disable=SC2034  # H and S are read by the calls that source this file
H=1+2+3+5+8+11+13+18+26+32+33+38+16+40+41+50
# shellcheck disable=SC2034
S=EXTRA_STAGES=0,GATHER_PREFETCH=0,HEADS_PER_BLOCK=64,KEYS_PER_TILE=64,KV_STAGES=2,LDMATRIX=1,PAIR_GATHER=0,PREFETCH_NEXT_TILE=0,PRODUCER_DEQUANT=1,PRODUCER_WARPS=1,QK_PIPELINE=0,QK_WGMMA=1,ROW_GATHER=1,SPLIT_WAVES=1,THREADS=256

fetch_runs() {
  local n
  for n in "$@"; do
    git rev-parse -q --verify "autoresearch/sparse_mla-ideas$n" > /dev/null ||
      git fetch -q "kernels/sparse_mla/results/ideas$n.bundle" "autoresearch/sparse_mla-ideas$n:autoresearch/sparse_mla-ideas$n"
  done
}

calls_start() {
  O=${OUT:?}
  AR=$(realpath .carry/autoresearch)
  W=$(mktemp -d /tmp/calls.XXXXXX)
  local d
  for d in "$@"; do mkdir -p "$W/$d"; done
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  date -u
}

calls_parts() { PARTS=" ${PARTS:-$1} "; }
part() { [[ $PARTS == *" $1 "* ]]; }

pack() { tar -C "$W" -czf "$O/calls.tar.gz.part" . && mv "$O/calls.tar.gz.part" "$O/calls.tar.gz"; }

judge_idea() {  # TAG BUNDLE BASE IDEAS FOCUS
  mkdir -p "$W/run"
  BUNDLE=$2 BASE=$3 TAG=$1 IDEAS=$4 FOCUS=$5 TUNE_EACH=0 AUTORESEARCH=$AR \
    EXTRA_ARGS="--max-hours ${JUDGE_HOURS:-0.05} --seed 7" OUT=$W/run timeout "${JUDGE_TIMEOUT:-200}" \
    bash scripts/device/ideas_continue/run.sh \
    > "$W/run/$1.out.txt" 2>&1
  grep -v '^\[#' "$W/run/$1.out.txt" | grep -E '^#|^stopped|^could not|^no bundle|error|FAIL|wrong' | cut -c1-600
  date -u
  pack
}

marks_of() {  # STACK:SETS WORKLOADS [DIR]
  local dir=$W/${3:-phases}
  mkdir -p "$dir"
  REF=$1 PROBE_PATCH=marks SWITCHES=${SWITCHES:-0} WORKLOADS=$2 OUT=$dir timeout 150 \
    bash scripts/device/phase_probe/run.sh > "$dir/log.txt" 2>&1
  grep -A30 "^==" "$dir/phases.txt" | cut -c1-400 | head -70
  date -u
  pack
}

slots_of() {  # DIR SECONDS WORKLOADS NAME=STACK:SETS...
  local dir=$W/$1
  mkdir -p "$dir"
  SLOTS="${*:4}" SWITCHES=1 WORKLOADS=$3 OUT=$dir timeout "$2" \
    bash scripts/device/slots_bench/run.sh > "$dir/log.txt" 2>&1
  grep "^==\|rror" "$dir/log.txt" | cut -c1-700
  date -u
  pack
}

screen() {  # TIMEOUT WORKLOADS STACK:SETS...
  mkdir -p "$W/screen"
  PROBE=0 BENCH_ARGS="--workloads $2" AUTORESEARCH=$AR OUT=$W/screen timeout "$1" \
    bash scripts/ideas_bench.sh "${@:3}" > "$W/screen/log.txt" 2>&1
  grep -E "^==|${2//,/|}|error|FAIL|wrong|mismatch" "$W/screen/log.txt" | cut -c1-200
  date -u
  pack
}

table_at() {  # REF SECONDS
  mkdir -p "$W/table"
  AUTORESEARCH=$AR REF=$1 OUT=$W/table timeout "$2" bash scripts/device/sparse_mla_table/run.sh > "$W/table/log.txt" 2>&1
  tail -14 "$W/table/log.txt"
  date -u
  pack
}
