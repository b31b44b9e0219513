#!/usr/bin/env bash
# Every prepared idea of scripts/ideas/sparse_mla still applies and builds as a
# candidate cubin, in the configuration its .sets file and those before it name
# (as a run's tunables file accumulates them), on the stack a run
# reaches: the ideas in order, each on top of the ones before it or, where it
# does not apply there, on the most of them it does apply to (an alternative to
# an idea a run may discard, as 05 is to 04). An idea's alternate versions
# (NAME.alt-LABEL.diff, for another state a run may reach) each build too.
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
  # (each idea's .sets over the ones before it, as a run's tunables file accumulates them), over the
  # defaults of every tunable the manifest declares: the driver passes them all (-DNAME=VALUE), so a
  # tunable whose name an older state of the kernel uses for something else breaks that state's build
  local name=$1 pkg=$2 k v e sets=()
  declare -A value=()
  local order=()
  local defaults
  defaults=$(python3 -c 'import json, sys
for t in json.load(open(sys.argv[1]))["tunables"]: print("%s=%s" % (t["name"], t["default"]))' "$pkg/manifest.json") ||
    { echo "FAIL $name: cannot read the tunables of $pkg/manifest.json" >&2; exit 1; }
  while IFS='=' read -r k v; do
    order+=("$k")
    value[$k]=$v
  done <<< "$defaults"
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
  grep -E "spill|C7515" "$OUT/$name.log" | sort | uniq -c   # spills; wgmma serialised by ptxas
  # A wgmma pipeline ptxas serialised runs several times slower (47's first version: B=128 20% slower,
  # from a branch inside its k-step loop): a prepared idea must not ship one.
  if grep -q "Potential Performance Loss" "$OUT/$name.log"; then
    grep "Potential Performance Loss" "$OUT/$name.log" | sort -u >&2
    echo "FAIL $name: ptxas reports a performance loss (above)" >&2
    exit 1
  fi
}

# Every version of an idea (the patch and its alternates, NAME.alt-LABEL.diff)
# must apply on a state a run may reach, and build there: the ideas before it,
# or the most of them, each kept or discarded (a version for a run that
# discarded an earlier idea applies only without it).
# The states to try, fewest ideas left out first: the indices to leave out, one set a line (a generator, so a
# version that applies with all or nearly all of them is found at once, not after 2^n subsets in bash).
leave_out_sets() {
  python3 -c 'import itertools, sys
n = int(sys.argv[1])
for d in range(n + 1):
    for c in itertools.combinations(range(n), d):
        print(" ".join(map(str, c)) or "-")' "$1" 2> /dev/null   # the reader stops at the first that applies
}
prior=()   # the ideas before this one, in order
for p in "${patches[@]}"; do
  for v in $(idea_versions "$p"); do
    name=$(basename "$v"); name=${name%.patch}; name=${name%.diff}
    pkg=$OUT/$name/sparse_mla
    n=${#prior[@]} found=0
    while read -r drop; do
      subset=()
      for ((b = 0; b < n; b++)); do [[ " $drop " == *" $b "* ]] || subset+=("${prior[$b]}"); done
      if IDEAS_EXACT_LAST=1 ideas_package "$pkg" "${subset[@]}" "$v" >/dev/null 2>&1; then
        on=("${subset[@]}" "$v")
        found=1
        break
      fi
    done < <(leave_out_sets "$n")
    if [ $found = 0 ]; then
      echo "FAIL $name: applies on no state a run may reach (the ideas before it, each kept or discarded)" >&2
      exit 1
    fi
    build "$name" "$pkg"
  done
  prior+=("$p")
done
# Idea 11's layout probe builds against the stack it checks.
if compgen -G "$IDEAS/11-*.patch" > /dev/null; then
  COMPILE_ONLY=1 bash "$REPO/scripts/device/row_gather_probe/run.sh" > "$OUT/row_gather_probe.log" 2>&1 ||
    { echo "FAIL tests/gpu/row_gather_probe.cu does not build:" >&2; tail -20 "$OUT/row_gather_probe.log" >&2; exit 1; }
fi
echo "all ${#patches[@]} prepared ideas apply and build"
