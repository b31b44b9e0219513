#!/usr/bin/env bash
# Every prepared idea of scripts/ideas/sparse_mla still applies and builds as a
# candidate cubin, in the configuration its .sets file and those before it name
# (as a run's tunables file accumulates them), on the stack a run
# reaches: the ideas in order, each on top of the ones before it, or, where it
# does not apply there, in place of the last one (an alternative to an idea a
# run may discard, as 05 is to 04). An idea's alternate versions
# (NAME.alt-LABEL.diff, for the other state a run may reach) each build too.
# No GPU needed.
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

build() {   # build NAME PKG: the package's cubin in the configuration the ideas of `on` name, in order
  # (each idea's .sets over the ones before it, as a run's tunables file accumulates them)
  local name=$1 pkg=$2 k v e sets=()
  declare -A value=()
  local order=()
  for e in "${on[@]}"; do
    local f=${e%.patch}
    f=${f%%.alt-*}.sets
    [ -f "$f" ] || continue
    while IFS='=' read -r k v; do
      case "$k" in ''|'#'*) continue ;; esac
      [ -n "${value[$k]+x}" ] || order+=("$k")
      value[$k]=$v
    done < "$f"
  done
  for k in "${order[@]}"; do sets+=("-D$k=${value[$k]}"); done
  echo "== $name on [$(for s in "${on[@]}"; do basename "$s" .patch; done | paste -sd' ')] ${sets[*]}"
  if ! PKG=$pkg bash "$REPO/tests/gpu/build_sparse_mla.sh" cubin "$pkg/kernel.cu" "$OUT/$name.cubin" "${sets[@]}" \
       > "$OUT/$name.log" 2>&1; then
    tail -20 "$OUT/$name.log" >&2
    echo "FAIL $name: does not build" >&2
    exit 1
  fi
  grep -E "spill" "$OUT/$name.log" | sort | uniq -c
}

# Every version of an idea (the patch and its alternates, NAME.alt-LABEL.diff)
# must apply on one of the two stacks and build there.
stack=()
for p in "${patches[@]}"; do
  append_with= replace_with=
  for v in $(idea_versions "$p"); do
    name=$(basename "$v"); name=${name%.patch}; name=${name%.diff}
    pkg=$OUT/$name/sparse_mla
    if IDEAS_EXACT=1 ideas_package "$pkg" "${stack[@]}" "$v" >/dev/null 2>&1; then
      on=("${stack[@]}" "$v"); append_with=${append_with:-$v}
    elif [ ${#stack[@]} -gt 0 ] && IDEAS_EXACT=1 ideas_package "$pkg" "${stack[@]:0:${#stack[@]}-1}" "$v" >/dev/null 2>&1; then
      on=("${stack[@]:0:${#stack[@]}-1}" "$v"); replace_with=${replace_with:-$v}
    else
      echo "FAIL $name: applies neither on the ideas before it nor in place of the last one" >&2
      exit 1
    fi
    build "$name" "$pkg"
  done
  # The next ideas build on the version that extends the stack where one does,
  # else on the one that takes the last idea's place.
  if [ -n "$append_with" ]; then stack+=("$append_with"); else stack=("${stack[@]:0:${#stack[@]}-1}" "$replace_with"); fi
done
echo "all ${#patches[@]} prepared ideas apply and build"
