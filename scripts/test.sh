#!/usr/bin/env bash
# Sets up, builds, and runs every test this machine can run: unit tests, the
# harness tests, the end-to-end tests on the CPU package, and — where nvcc is
# present — a compile of the CUDA harness and kernels. Tests labelled "gpu"
# skip themselves when no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The browser test (ctest -L browser) renders `report --format html` in
# headless Chromium and reads its screenshot with netpbm: only the tests need
# them, so a distribution without them fails that test (under CI=true), not the build.
test_tools=()
for p in chromium netpbm; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || test_tools+=("$p")
done
if [ ${#test_tools[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing for the tests: ${test_tools[*]}"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${test_tools[@]}"; } ||
    echo "warning: could not install ${test_tools[*]}; the browser test will say so" >&2
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
