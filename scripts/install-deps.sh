#!/usr/bin/env bash
# install-deps.sh: installs what a fresh Debian 12 machine lacks to build and test minicuda.
#
#   scripts/install-deps.sh
#
# Checks each package with dpkg -s and calls apt-get only when something is missing (one
# apt-get update, then one apt-get install). Runs as root (CI) or through sudo. Prints nothing
# when everything is already installed, so it is safe to run before every build.
set -euo pipefail

packages=(
  build-essential   # gcc, g++, make, libc headers, binutils (ld.gold links the build)
  g++
  cmake             # >= 3.25 (Debian 12 ships 3.25)
  libfmt-dev        # trace formatting
  libspdlog-dev     # trace sinks
  libgtest-dev      # GoogleTest: tests/
  libgmock-dev      # GoogleMock (part of googletest)
  libbenchmark-dev  # Google Benchmark: bench/ (MINICUDA_BUILD_BENCHMARKS)
  libboost-context-dev  # fibers for CUDA threads that wait at barriers
  libcli11-dev      # CLI11 (header-only): the minicuda command's options (tools/minicuda_cli/)
  libzstd-dev       # zstd: the compressed PTX and ELF entries of real fatbins (driver/user/src/image.cpp)
  liblz4-dev        # LZ4: the same, from nvcc -compress-mode=speed (driver/user/src/image.cpp)
  gdb               # the gdb backtrace test, and stepping through the layers
  clang             # the fuzz preset: libFuzzer targets (fuzz/)
  libclang-rt-14-dev  # clang's libFuzzer, ASan, UBSan and LeakSanitizer runtimes
  python3           # scripts and the tools' helpers
  chromium          # headless: the HTML trace's drawing test (tests/trace/check_html_trace.py)
)

missing=()
for pkg in "${packages[@]}"; do
  # "install ok installed" is the only state that means the package is really there (a removed
  # package can leave "deinstall ok config-files"). No pipe: grep -q would break it under pipefail.
  status="$(dpkg -s "$pkg" 2>/dev/null || true)"
  if [[ "$status" != *"Status: install ok installed"* ]]; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps.sh: missing ${missing[*]}, and not root and no sudo to install them" >&2
  exit 1
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps.sh: done"
