#!/bin/bash
# How far clang's NVPTX back end (Debian's clang, no NVIDIA toolkit) could stand in for nvcc -ptx:
# compiles every kernel source of the PTX corpus (tests/data/ptx/src, tests/ptx_vs_cxx/kernels)
# with clang in CUDA device-only mode and the small header scripts/clang-ptx/cuda_shim.h, has
# libcuda's JIT compile each result (minicuda sass), and runs the PTX-vs-C++ gate on clang's PTX
# of its eight kernels (MINICUDA_XCHECK_PTX_DIR, MINICUDA_XCHECK_CORPUS_DIR). docs/ptx.md, "PTX
# from clang", has the figures.
#
#   scripts/clang-ptx.sh [--build DIR] [--work DIR]
#
# DIR defaults: build (a debug build with minicuda and test_ptx_vs_cxx), /tmp/minicuda-clang-ptx.
# Exit status: 0 when the gate passed on clang's PTX, 1 when it did not, 77 without clang (the
# ctest clang_ptx_gate skips), 2 for a missing build.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
work=/tmp/minicuda-clang-ptx
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "usage: scripts/clang-ptx.sh [--build DIR] [--work DIR]" >&2; exit 2 ;;
  esac
done
clang=$(command -v clang++ || true)
[ -n "$clang" ] || { echo "clang-ptx.sh: no clang++ (apt-get install clang)" >&2; exit 77; }
for tool in minicuda test_ptx_vs_cxx; do
  [ -x "$build/bin/$tool" ] || { echo "clang-ptx.sh: no $build/bin/$tool (build it first)" >&2; exit 2; }
done
rm -rf "$work/corpus" "$work/gate" "$work/gate.log"
mkdir -p "$work/corpus" "$work/gate"

# clang 14 knows GPUs up to sm_86 and PTX up to 7.5; the JIT takes a target below the device's.
flags=(-x cuda --cuda-gpu-arch=sm_80 --cuda-device-only -nocudainc -nocudalib -O2
       -Xclang -target-feature -Xclang +ptx70 -include "$here/scripts/clang-ptx/cuda_shim.h" -S)
compiled=0 loaded=0 total=0
printf '%-26s %-9s %s\n' SOURCE RESULT WHY
for cu in "$here"/tests/data/ptx/src/*.cu "$here"/tests/ptx_vs_cxx/kernels/*.cu; do
  name=$(basename "$cu" .cu)
  case $cu in */ptx_vs_cxx/*) out=$work/gate ;; *) out=$work/corpus ;; esac
  total=$((total + 1))
  if ! "$clang" "${flags[@]}" "$cu" -o "$out/$name.ptx" > "$out/$name.clang.log" 2>&1; then
    why=$(grep -m1 'error:' "$out/$name.clang.log" | sed -e 's/^.*error: //')
    printf '%-26s %-9s %s\n' "$(basename "$(dirname "$cu")")/$name" "no PTX" "clang: $why"
    rm -f "$out/$name.ptx"
    continue
  fi
  compiled=$((compiled + 1))
  if ! "$build/bin/minicuda" sass "$out/$name.ptx" > "$out/$name.jit.log" 2>&1; then
    why=$(grep -m1 -iE 'error|not supported|unknown' "$out/$name.jit.log")
    printf '%-26s %-9s %s\n' "$(basename "$(dirname "$cu")")/$name" "refused" "JIT: $why"
    continue
  fi
  loaded=$((loaded + 1))
  printf '%-26s %-9s\n' "$(basename "$(dirname "$cu")")/$name" "loads"
done
echo "clang made PTX for $compiled of $total sources; minicuda's JIT compiled $loaded of them"

# The gate: the same kernels from the C++ path and from clang's PTX, bit for bit.
MINICUDA_XCHECK_PTX_DIR=$work/gate MINICUDA_XCHECK_CORPUS_DIR=$work/corpus "$build/bin/test_ptx_vs_cxx" \
  > "$work/gate.log" 2>&1
grep -E '^\[ +(OK|FAILED) +\]' "$work/gate.log" | sed -e 's/ ([0-9]* ms)//' | sort -u
grep -E '^\[  (PASSED|FAILED)  \]' "$work/gate.log" | head -2
grep -qE '^\[  PASSED  \] 8 tests' "$work/gate.log"
