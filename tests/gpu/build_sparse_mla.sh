#!/usr/bin/env bash
# Builds the sparse_mla harness and candidate cubins with the commands the
# driver uses (src/harness/PROTOCOL.md): the one place these commands are
# written out for tests and scripts. Flags, sources and tunables come from
# kernels/sparse_mla/manifest.json and tunables.json.
#
#   build_sparse_mla.sh harness OUT_BINARY
#   build_sparse_mla.sh cubin   SOURCE.cu OUT.cubin [extra nvcc args, e.g. -DTHREADS=128]
#
# NVCC picks the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc); PKG another
# copy of the package (default kernels/sparse_mla).
# The harness needs nlohmann/json.hpp: where the system lacks it (the GPU
# machines' image), a copy under .carry/include (an ignored path the device
# tool can carry) is used. Every command is echoed before it runs.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PKG=${PKG:-$REPO/kernels/sparse_mla}   # another copy of the package (a stack of prepared ideas)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_ROOT=$(cd "$(dirname "$NVCC")/.." && pwd)

manifest() {   # manifest() KEY... -> one item per line
  python3 - "$PKG/manifest.json" "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[k]
if isinstance(v, list):
    for x in v:
        print(x)
else:
    print(v)
PY
}

run() { echo "+ $*" >&2; "$@"; }

case "${1:-}" in
  harness)
    out=$2
    mapfile -t sources < <(manifest harness sources)
    mapfile -t flags < <(manifest harness flags)
    carried=()
    [ -f "$REPO/.carry/include/nlohmann/json.hpp" ] && carried=(-I"$REPO/.carry/include")
    # As the driver does: each source compiled on its own core, then one link.
    objects=$(mktemp -d)
    trap 'rm -rf "$objects"' EXIT
    compile=("$NVCC" -std=c++17 -O2 -arch="$(manifest build arch)" "${flags[@]}"
             -I"$REPO/include" -I"$REPO/src/harness" -I"$PKG" "${carried[@]}" -Xcompiler=-pthread)
    pids=() objs=() i=0
    for src in "$REPO"/src/harness/common/*.cpp "$REPO"/src/harness/cuda/*.cu "$REPO"/src/harness/cuda/*.cpp \
               "${sources[@]/#/$PKG/}"; do
      obj=$objects/$i-$(basename "${src%.*}").o
      i=$((i + 1))
      objs+=("$obj")
      while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 0.2; done
      run "${compile[@]}" -c "$src" -o "$obj" &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    run "$NVCC" -arch="$(manifest build arch)" "${objs[@]}" "${flags[@]}" \
      -L"$CUDA_ROOT/lib64/stubs" -lcuda -ldl -Xcompiler=-pthread -o "$out"
    ;;
  cubin)
    src=$2 out=$3
    shift 3
    mapfile -t flags < <(manifest build flags)
    mapfile -t defines < <(python3 -c 'import json,sys; [print(f"-D{k}={v}") for k, v in json.load(open(sys.argv[1])).items()]' "$PKG/tunables.json")
    # A -DNAME=value among the extra arguments replaces the tunables file's value (no redefinition).
    overridden=" "
    for a in "$@"; do case "$a" in -D*=*) n=${a#-D}; overridden+="${n%%=*} " ;; esac; done
    kept=()
    for d in "${defines[@]}"; do n=${d#-D}; n=${n%%=*}; [[ "$overridden" == *" $n "* ]] || kept+=("$d"); done
    run "$NVCC" -cubin -arch="$(manifest build arch)" "${flags[@]}" "${kept[@]}" "$@" \
      -I"$REPO/include" -I"$PKG" "$src" -o "$out"
    ;;
  *)
    echo "usage: $0 harness OUT | cubin SOURCE.cu OUT.cubin [nvcc args]" >&2
    exit 2
    ;;
esac
