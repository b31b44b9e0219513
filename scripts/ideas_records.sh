# Sourced by scripts/ideas_run.sh and scripts/device/ideas_continue/run.sh: what a
# record run leaves under OUT, read from the run's repository (the current directory).
#
#   save_run_records AUTORESEARCH OUT_DIR TAG [BASE]
#
# TAG.experiments.jsonl.gz (the log), TAG.log.txt (its table), TAG.branch.txt (the
# branch's last commits) and TAG.bundle: the branch, or only its commits after BASE
# (fetch that one into a repository that has BASE):
#   git fetch OUT/TAG.bundle autoresearch/sparse_mla-TAG:autoresearch/sparse_mla-TAG
save_run_records() {
  local ar=$1 out=$2 tag=$3 base=${4:-} branch=autoresearch/sparse_mla-$3
  gzip -c ".autoresearch/runs/sparse_mla-$tag/experiments.jsonl" > "$out/$tag.experiments.jsonl.gz" 2>/dev/null
  "$ar" log "sparse_mla-$tag" > "$out/$tag.log.txt" 2>&1
  git log --format='%h %s%n%b' "$branch" -n 8 > "$out/$tag.branch.txt" 2>&1
  # A branch with no commits after BASE (the run kept nothing) has nothing to bundle.
  if [ -n "$base" ] && [ "$(git rev-list --count "$base..$branch" 2>/dev/null)" = 0 ]; then
    echo "no bundle: $branch has no commits after $base (nothing kept)" >&2
    return 0
  fi
  git bundle create "$out/$tag.bundle" "$branch" ${base:+"^$base"} > /dev/null 2>&1 ||
    echo "could not bundle $branch" >&2
}
