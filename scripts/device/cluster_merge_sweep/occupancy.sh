#!/usr/bin/env bash
# How many waves each stage of ideas 43 and 44 takes at each CLUSTER_MERGE (the harness's "launch"
# reply, its "occupancy": cuOccupancyMaxActiveClusters for a stage in clusters): whether a clustered
# stage holds fewer blocks at once than the same blocks launched alone. Same trees as run.sh.
#
#   BASE=autoresearch/sparse_mla-ideas23 bash scripts/device/cluster_merge_sweep/occupancy.sh
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT_DIR=${OUT:-$(mktemp -d /tmp/cluster_occupancy.XXXXXX)}
mkdir -p "$OUT_DIR"
BASE=${BASE:?BASE: the branch whose head the ideas were judged on}
SIZES=${SIZES:-0 2 4 8 16}
WORKLOADS=${WORKLOADS:-b1_32k b16_32k b64_32k}
export PATH=/usr/local/cuda/bin:$PATH
cd "$REPO"
report=$OUT_DIR/cluster-occupancy.txt
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "BASE=$BASE ($(git rev-parse --short "$BASE")), sizes: $SIZES"; } | tee "$report"
work=$(mktemp -d /tmp/cluster_occupancy.XXXXXX)   # trees and builds: only the report goes to OUT
ideas="43-row-splits-merged-in-cluster.patch 44-chunk-splits-merged-in-cluster.alt-without-43.diff"
# Every build at once (the harness once: the ideas change only kernel.cu).
for idea in $ideas; do
  tree=$work/tree-${idea%%-*}
  git worktree add -q --detach "$tree" "$BASE" || exit 1
  cp kernels/sparse_mla/manifest.json "$tree/kernels/sparse_mla/"
  git -C "$tree" apply "$REPO/scripts/ideas/sparse_mla/set-aside/$idea" || { echo "$idea does not apply on $BASE"; exit 1; }
  pkg=$tree/kernels/sparse_mla bin=$work/build-${idea%%-*}
  mkdir -p "$bin"
  for n in $SIZES; do
    PKG=$pkg bash tests/gpu/build_sparse_mla.sh cubin "$pkg/kernel.cu" "$bin/cm$n.cubin" -DCLUSTER_MERGE=$n \
      2> "$bin/cm$n.log" &
  done
done
PKG=$work/tree-43/kernels/sparse_mla bash tests/gpu/build_sparse_mla.sh harness "$work/harness" \
  2> "$work/harness.log" || { echo "harness build failed"; tail "$work/harness.log"; exit 1; }
wait
for idea in $ideas; do
  pkg=$work/tree-${idea%%-*}/kernels/sparse_mla bin=$work/build-${idea%%-*}
  echo "== $idea" | tee -a "$report"
  python3 - "$bin" "$pkg/manifest.json" "$SIZES" "$WORKLOADS" <<'PY' | tee -a "$report"
import json, subprocess, sys
bin_dir, manifest, sizes, workloads = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
params = {w["name"]: w["params"] for w in json.load(open(manifest))["workloads"]}
h = subprocess.Popen([f"{bin_dir}/../harness"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def call(rq):
    try:
        h.stdin.write(json.dumps(rq) + "\n"); h.stdin.flush()
    except BrokenPipeError:
        return {"ok": False, "error": "harness exited"}
    while True:
        line = h.stdout.readline()
        if not line: return {"ok": False, "error": "harness exited"}
        try:
            r = json.loads(line)
            if isinstance(r, dict) and "ok" in r: return r
        except json.JSONDecodeError:
            pass
for n in sizes:
    r = call({"cmd": "load", "slot": "c", "artifact": f"{bin_dir}/cm{n}.cubin"})
    if not r.get("ok"):
        print(f"CLUSTER_MERGE={n}: load: {r.get('error')}"); continue
    for w in workloads:
        r = call({"cmd": "launch", "slot": "c", "workload": {"name": w, "params": params[w]}})
        if not r.get("ok"):
            print(f"CLUSTER_MERGE={n:>2} {w:<8} {r.get('kind')}: {r.get('error', '')[:200]}"); continue
        stages = r["launch"]["stages"]
        occ = (r.get("occupancy") or {}).get("stages", [])
        parts = []
        for i, (s, o) in enumerate(zip(stages, occ)):
            c = f" clusters of {s['cluster']}" if s.get("cluster") else ""
            parts.append(f"stage {i}: {o['blocks']} blocks{c}, {o['resident_blocks']} resident"
                         f"{' (' + str(o['resident_clusters']) + ' clusters)' if 'resident_clusters' in o else ''},"
                         f" {o['waves']} wave(s), {s['shared_bytes']} B smem")
        print(f"CLUSTER_MERGE={n:>2} {w:<8} variant {r['launch']['variant']}: " + "; ".join(parts))
call({"cmd": "quit"})
PY
done
for idea in $ideas; do git worktree remove --force "$work/tree-${idea%%-*}"; done
