#!/usr/bin/env bash
# Every prepared idea of scripts/ideas/sparse_mla still applies and builds as a
# candidate cubin, in the configuration its .sets file names, on the stack a run
# reaches: the ideas in order, each on top of the ones before it, or, where it
# does not apply there, in place of the last one (an alternative to an idea a
# run may discard, as 05 is to 04). No GPU needed.
#
#   ideas_compile.sh OUT_DIR
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IDEAS=$REPO/scripts/ideas/sparse_mla
OUT=${1:?usage: ideas_compile.sh OUT_DIR}
mkdir -p "$OUT"
mapfile -t patches < <(find "$IDEAS" -maxdepth 1 -name '*.patch' | sort)
[ ${#patches[@]} -gt 0 ] || { echo "no prepared ideas in $IDEAS" >&2; exit 1; }

source "$REPO/scripts/ideas_package.sh"

stack=()
for p in "${patches[@]}"; do
  name=$(basename "$p" .patch)
  pkg=$OUT/$name/sparse_mla
  if ideas_package "$pkg" "${stack[@]}" "$p" >/dev/null 2>&1; then
    stack+=("$p")
  elif [ ${#stack[@]} -gt 0 ] && ideas_package "$pkg" "${stack[@]:0:${#stack[@]}-1}" "$p" >/dev/null 2>&1; then
    stack=("${stack[@]:0:${#stack[@]}-1}" "$p")
  else
    echo "FAIL $name: applies neither on the ideas before it nor in place of the last one" >&2
    exit 1
  fi
  sets=()
  if [ -f "${p%.patch}.sets" ]; then
    while IFS='=' read -r k v; do
      case "$k" in ''|'#'*) continue ;; esac
      sets+=("-D$k=$v")
    done < "${p%.patch}.sets"
  fi
  echo "== $name on [$(for s in "${stack[@]}"; do basename "$s" .patch; done | paste -sd' ')] ${sets[*]}"
  if ! PKG=$pkg bash "$REPO/tests/gpu/build_sparse_mla.sh" cubin "$pkg/kernel.cu" "$OUT/$name.cubin" "${sets[@]}" \
       > "$OUT/$name.log" 2>&1; then
    tail -20 "$OUT/$name.log" >&2
    echo "FAIL $name: does not build" >&2
    exit 1
  fi
  grep -E "spill" "$OUT/$name.log" | sort | uniq -c
done
echo "all ${#patches[@]} prepared ideas apply and build"
