# Sourced by scripts/ideas_bench.sh, scripts/apply_ideas.sh,
# scripts/device/sparse_mla_table/run.sh and tests/gpu/ideas_compile.sh: a
# throwaway copy of kernels/sparse_mla with prepared ideas applied.
#
#   ideas_package DIR PATCH...   DIR: the package (results/ left out) with the patches
#                                applied in order (paths as git diff writes them);
#                                fails, leaving DIR behind, if one does not apply
#
# An idea written for two states a run may reach (its patch NAME.patch, and a
# version NAME.alt-LABEL.diff for the state where an earlier idea was kept or
# discarded) applies as the first version that fits, as scripts/apply_ideas.sh
# does in a run. IDEAS_EXACT_LAST=1 applies the last file given exactly;
# IDEAS_PACKAGE_SRC names another package to start from (the tests' toy one).
ideas_package() {
  local dir=$1 repo
  shift
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && cp -r "${IDEAS_PACKAGE_SRC:-$repo/kernels/sparse_mla}" "$dir" &&
    rm -rf "$dir/results" ||
    return 1
  local p v applied i=0
  for p in "$@"; do
    i=$((i + 1))
    applied=
    for v in $(idea_versions "$p"); do
      [ "$v" != "$p" ] && [ "${IDEAS_EXACT_LAST:-0}" = 1 ] && [ $i = $# ] && continue
      # a dry run first: patch applies the hunks that fit even when others fail. No fuzz, as git apply
      # in a run: a version that needs it is not the one a run applies there
      if (cd "$dir" && patch --dry-run -s -F0 -p3 < "$v" > /dev/null 2>&1); then
        (cd "$dir" && patch -s -F0 --no-backup-if-mismatch -p3 < "$v") || return 1
        applied=$v
        break
      fi
    done
    [ -n "$applied" ] || return 1
  done
}

# idea_versions PATCH: the patch, then its alternates (PATCH's name with .alt-*.diff), one per line
idea_versions() {
  echo "$1"
  case "$1" in *.patch) compgen -G "${1%.patch}.alt-*.diff" | sort ;; esac
}

# idea_patch N|FILE: the patch of idea N (NN-*.patch in scripts/ideas/sparse_mla, else in its set-aside/
# folder), or FILE (a path under scripts/ideas/sparse_mla ending in .patch), as an absolute path
idea_patch() {
  local dir f
  dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/ideas/sparse_mla
  case "$1" in
    *.patch) f=$dir/$1 ;;
    *) f=$(compgen -G "$dir/$(printf '%02d' "$((10#$1))")-*.patch" || compgen -G "$dir/set-aside/$(printf '%02d' "$((10#$1))")-*.patch") ;;
  esac
  [ -n "$f" ] && [ -f "$f" ] || { echo "no prepared idea $1 in $dir" >&2; return 1; }
  echo "$f"
}

# ideas_stack N|A+B+... DIR: ideas_package DIR with ideas A, B, ... (idea_patch names them), or with
# the ideas a run proposes (not the set-aside ones) up to number N
ideas_stack() {
  local picked=() k f n nums
  if [[ "$1" == *+* ]]; then
    IFS=+ read -ra nums <<< "$1"
    for k in "${nums[@]}"; do picked+=("$(idea_patch "$k")") || return 1; done
  else
    for f in "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"/scripts/ideas/sparse_mla/[0-9][0-9]-*.patch; do
      n=$(basename "$f"); n=$((10#${n%%-*}))
      [ "$n" -le "$1" ] && picked+=("$f")
    done
  fi
  ideas_package "$2" "${picked[@]}"
}

# set_args SETS: "NAME=V,NAME=V" as the words --set NAME=V ..., one per line
set_args() {
  local kv s
  IFS=, read -ra kv <<< "$1"
  for s in "${kv[@]}"; do [ -n "$s" ] && printf -- '--set\n%s\n' "$s"; done
}

# set_defines SETS: "NAME=V,NAME=V" as the nvcc flags -DNAME=V ..., one per line (a stack built outside
# the tool, as the device scripts build diagnostic cubins)
set_defines() {
  local kv s
  IFS=, read -ra kv <<< "$1"
  for s in "${kv[@]}"; do [ -n "$s" ] && printf -- '-D%s\n' "$s"; done
}

# workload_request MANIFEST NAME: the harness's workload object for a declared workload ({"name", "params"})
workload_request() {
  python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
w = next(w for w in m["workloads"] if w["name"] == sys.argv[2])
print(json.dumps({"name": w["name"], "params": w["params"]}))' "$1" "$2"
}
