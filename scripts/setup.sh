#!/usr/bin/env bash
# Installs what building autoresearch needs on Debian/Ubuntu (only what is
# missing), then configures and builds it into build/.
# nvcc is optional: without it CPU packages still work and CUDA sources are not compiled.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ git pkg-config jq libcli11-dev nlohmann-json3-dev libfmt-dev
          libspdlog-dev libcurl4-openssl-dev catch2 libcpp-httplib-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# nvcc from NVIDIA's toolkit is often outside PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j "$(nproc)"
