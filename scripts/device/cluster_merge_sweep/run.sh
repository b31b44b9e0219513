#!/usr/bin/env bash
# Why ideas 43 and 44 lost (issue 9): each idea on the head it was judged on (BASE), benched at every
# CLUSTER_MERGE (0: the idea's code with no cluster, the control) on the workloads it is for, then
# profiled (ncu --clock-control none, `autoresearch profile`) with and without its clusters.
# The chain's earlier bundles must be fetched first (RESULTS.md). Output under $OUT.
#
#   AUTORESEARCH=.carry/autoresearch BASE=autoresearch/sparse_mla-ideas23 bash scripts/device/cluster_merge_sweep/run.sh
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
AR=$(realpath "${AUTORESEARCH:-$REPO/build/autoresearch}")
OUT_DIR=${OUT:-$(mktemp -d /tmp/cluster_merge_sweep.XXXXXX)}
mkdir -p "$OUT_DIR"
BASE=${BASE:?BASE: the branch whose head the ideas were judged on}
SIZES=${SIZES:-0 2 4 8 16}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
report=$OUT_DIR/cluster-merge-sweep.txt
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  echo "BASE=$BASE ($(git rev-parse --short "$BASE")), sizes: $SIZES"; } | tee "$report"
# idea file, workloads it is for, workload to profile
for spec in "43-row-splits-merged-in-cluster.patch b16_32k,b1_32k b16_32k" \
            "44-chunk-splits-merged-in-cluster.alt-without-43.diff b1_32k,b16_32k b1_32k"; do
  read -r idea workloads prof <<< "$spec"
  tree=$(mktemp -d /tmp/cluster_merge_sweep.XXXXXX)/tree
  git worktree add -q --detach "$tree" "$BASE" || exit 1
  cp kernels/sparse_mla/manifest.json "$tree/kernels/sparse_mla/"   # declares CLUSTER_MERGE
  git -C "$tree" apply "$REPO/scripts/ideas/sparse_mla/set-aside/$idea" || { echo "$idea does not apply on $BASE"; exit 1; }
  echo "== $idea" | tee -a "$report"
  for n in $SIZES; do
    echo "-- CLUSTER_MERGE=$n" | tee -a "$report"
    "$AR" bench --kernel "$tree/kernels/sparse_mla" --set CLUSTER_MERGE=$n --workloads "$workloads" \
      --min-seconds 0.3 2>&1 | tee -a "$report"
  done
  for n in 0 8; do
    "$AR" profile --kernel "$tree/kernels/sparse_mla" --set CLUSTER_MERGE=$n --workload "$prof" \
      > "$OUT_DIR/profile-${idea%%-*}-cm$n-$prof.txt" 2>&1
    echo "profile CLUSTER_MERGE=$n on $prof: exit $?" | tee -a "$report"
  done
done
