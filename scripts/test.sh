#!/usr/bin/env bash
# test.sh: builds and runs every check of the project, one preset after another (CMakePresets.json):
#
#   debug   the whole test suite (GoogleTest + CTest), -O0 -g
#   asan    the suite again under AddressSanitizer + UBSan + LeakSanitizer (all but the samples
#           and the reruns of other modes, which the debug preset runs)
#   tsan    the concurrency tests under ThreadSanitizer
#   fuzz    the three libFuzzer targets, a fixed number of executions each from the seed corpus
#           (clang; fuzz/CMakeLists.txt)
#
#   scripts/test.sh            all four, in that order
#   scripts/test.sh debug asan only those
#
# Builds and tests with as many jobs as the machine has cores; a test that runs past 10 minutes
# fails (fuzz runs have their own limit). Stops at the first failure, with that preset's exit
# status. docs/reliability.md says what each preset checks and what it found.
set -euo pipefail
cd "$(dirname "$0")/.."

presets=("$@")
if [ "${#presets[@]}" -eq 0 ]; then
  presets=(debug asan tsan fuzz)
fi

jobs=$(nproc)
for preset in "${presets[@]}"; do
  case "$preset" in
    debug|asan|tsan|fuzz) ;;
    *) echo "test.sh: unknown preset '$preset' (debug, asan, tsan or fuzz)" >&2; exit 2 ;;
  esac
  echo "== test.sh: $preset =="
  start=$SECONDS
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j"$jobs"
  built=$SECONDS
  ctest --preset "$preset" -j"$jobs"
  echo "== test.sh: $preset took $((SECONDS - start)) s (build $((built - start)) s, tests $((SECONDS - built)) s) =="
done
