# Sourced by scripts/ideas_bench.sh and tests/gpu/ideas_compile.sh: a throwaway
# copy of kernels/sparse_mla with prepared ideas applied.
#
#   ideas_package DIR PATCH...   DIR: the package (results/ left out) with the patches
#                                applied in order (paths as git diff writes them);
#                                fails, leaving DIR behind, if one does not apply
ideas_package() {
  local dir=$1 repo
  shift
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && cp -r "$repo/kernels/sparse_mla" "$dir" && rm -rf "$dir/results" ||
    return 1
  local p
  for p in "$@"; do (cd "$dir" && patch -s -p3 < "$p") || return 1; done
}
