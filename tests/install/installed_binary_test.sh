#!/usr/bin/env bash
# The installed binary on its own: `cmake --install` into a temporary prefix,
# the prefix moved elsewhere (the home is found from the executable, not from
# a path baked in), AUTORESEARCH_HOME unset, and a fresh git repository that
# holds only packages taken from the installed share/ (the CPU demo) or made by
# `init`. It runs the CPU demo (a short `run`), then `init` + `verify
# --dry-run` + `verify` on a new CPU package.
#
#   installed_binary_test.sh BUILD_DIR CACHE_DIR
# CACHE_DIR holds the harness builds (shared with the e2e tests: a harness is
# keyed by the hash of the files it is built from, so the installed copies
# reuse the build of identical sources, and a file missing from the install
# changes the hash and is built, and fails, here).
set -euo pipefail
build=$(cd "$1" && pwd)
export AUTORESEARCH_CACHE_DIR=$2
unset AUTORESEARCH_HOME
export NO_COLOR=1 GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null
work=$(mktemp -d /tmp/ar-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "+ $*" >&2; }

step "cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
mv "$work/prefix" "$work/moved"
share=$work/moved/share/autoresearch
ar=$work/moved/bin/autoresearch

version=$("$ar" --version)
echo "$version"
# The first line is matched from the variable, not through `echo | head |
# grep -q`: under pipefail that pipe fails at random when head exits before
# echo writes the second line (SIGPIPE), which failed CI once.
first_line=${version%%$'\n'*}
version_re='^autoresearch [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)$'
[[ $first_line =~ $version_re ]] \
  || fail "--version: expected 'autoresearch X.Y.Z (commit HASH[-dirty])'"
[ "$(echo "$version" | sed -n 2p)" = "home: $share" ] || fail "--version: the home is not the installed share/autoresearch"

repo=$work/repo
mkdir -p "$repo/kernels" && cd "$repo"
git init -q -b main
cp -r "$share/kernels/matmul_cpu" kernels/
git add -A && git -c user.name=t -c user.email=t@t commit -qm "the CPU demo package"

step "autoresearch run --kernel matmul_cpu (installed, from $repo)"
rc=0
"$ar" run --kernel matmul_cpu --goal 1.01x --max-iters 2 --config "$share/configs/quick.json" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "run exited $rc (expected 0: goal, or 3: budget)"
log=$(ls .autoresearch/runs/*/experiments.jsonl)
grep -q '"type":"final"' "$log" || fail "$log has no final line"
[ "$(grep -c '"type":"candidate"' "$log")" -ge 1 ] || fail "$log has no candidate"

step "autoresearch init demo --backend cpu; verify --dry-run; verify"
"$ar" init demo --backend cpu
[ -f kernels/demo/manifest.json ] && grep -q '"name": "demo"' kernels/demo/manifest.json || fail "init wrote no manifest"
if "$ar" init demo --backend cpu 2>/dev/null; then fail "init accepted an existing package"; fi
if "$ar" init 1bad --backend cpu 2>/dev/null; then fail "init accepted an invalid name"; fi
git add -A && git -c user.name=t -c user.email=t@t commit -qm "demo: new package"
"$ar" verify --kernel demo --dry-run
"$ar" verify --kernel demo
echo "ok: the installed binary ran the CPU demo and verified a new package from $repo"
