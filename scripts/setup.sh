#!/usr/bin/env bash
# Installs what building autoresearch needs on Debian/Ubuntu (only what is
# missing), then configures and builds it into build/.
# nvcc is optional: without it CPU packages still work and CUDA sources are not compiled.
#
#   bash scripts/setup.sh                          # everything (the tool and the tests)
#   bash scripts/setup.sh --target autoresearch    # only these targets (repeatable)
#   bash scripts/setup.sh --quiet ...              # apt, cmake and ninja output to build/setup.log
# Other arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=()
quiet=0
cmake_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=("$2"); shift 2 ;;
    --quiet) quiet=1; shift ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done

log=build/setup.log
mkdir -p build
if [ "$quiet" -eq 1 ]; then
  : > "$log"
  # Everything below writes to the log; a failure prints its tail.
  exec 3>&1 4>&2 >>"$log" 2>&1
  trap 'status=$?; if [ $status -ne 0 ]; then exec 1>&3 2>&4; echo "setup failed (exit $status); the end of $log:" >&2; tail -n 30 "$log" >&2; fi' EXIT
fi

packages=(cmake ninja-build g++ git pkg-config jq libcli11-dev nlohmann-json3-dev libfmt-dev
          libspdlog-dev libcurl4-openssl-dev catch2 libcpp-httplib-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$quiet" -eq 1 ] && echo "installing: ${missing[*]}" >&3
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

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${cmake_args[@]+"${cmake_args[@]}"}
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build build -j "$(nproc)" --target "${targets[@]}"
else
  cmake --build build -j "$(nproc)"
fi
