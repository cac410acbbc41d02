#!/usr/bin/env bash
# test.sh: builds and runs every check of the project, one preset after another (CMakePresets.json):
#
#   debug   the whole test suite (GoogleTest + CTest), -O0 -g3
#   asan    the whole suite again under AddressSanitizer + UBSan + LeakSanitizer
#   tsan    the concurrency tests under ThreadSanitizer
#   fuzz    the three libFuzzer targets, 10^5 executions each from the seed corpus (clang)
#
#   scripts/test.sh            all four, in that order
#   scripts/test.sh debug asan only those
#
# Stops at the first failure, with that preset's exit status. docs/reliability.md says what each
# preset checks and what it found.
set -euo pipefail
cd "$(dirname "$0")/.."

presets=("$@")
if [ "${#presets[@]}" -eq 0 ]; then
  presets=(debug asan tsan fuzz)
fi

for preset in "${presets[@]}"; do
  case "$preset" in
    debug|asan|tsan|fuzz) ;;
    *) echo "test.sh: unknown preset '$preset' (debug, asan, tsan or fuzz)" >&2; exit 2 ;;
  esac
  echo "== test.sh: $preset =="
  start=$SECONDS
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j2
  built=$SECONDS
  ctest --preset "$preset" -j2
  echo "== test.sh: $preset took $((SECONDS - start)) s (build $((built - start)) s, tests $((SECONDS - built)) s) =="
done
