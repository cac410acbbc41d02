#!/usr/bin/env bash
# check_nvcc.sh: the tests of minicuda-nvcc (tools/minicuda-nvcc/tests/CMakeLists.txt).
#   check_nvcc.sh <minicuda-nvcc> <scratch directory> <case> [minicuda-cuda-toolchain.cmake]
# Cases: one_file, makefile, deps, refused, version, unknown, compat_script, compat_modules, cuda_language (which
# needs the toolchain file). Exit 0 when the case holds; else
# a message saying what differed, and 1.
set -uo pipefail
nvcc=$1
work=$2
case_name=$3
toolchain=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "check_nvcc.sh $case_name: $*" >&2; exit 1; }

case "$case_name" in
  one_file)
    "$nvcc" -O2 -arch=sm_90 -o one_file "$here/one_file.cu" || fail "build failed"
    out=$(./one_file) || fail "the program exited with $?: $out"
    [[ $out == *"0 of 1000 squares wrong"*"Test passed"* ]] || fail "unexpected output: $out"
    ;;
  makefile)
    cp "$here"/makefile_project/* . || exit 1
    make NVCC="$nvcc" >make.log 2>&1 || { cat make.log; fail "make NVCC=minicuda-nvcc failed"; }
    out=$(./scale_app) || fail "scale_app exited with $?: $out"
    [[ $out == *"0 of 300 values wrong"*"Test passed"* ]] || fail "unexpected output: $out"
    # -MD -MF wrote make rules naming the .cu and its header, not the translated file.
    grep -q "scale.o:" scale.d && grep -q "scale.cu" scale.d && grep -q "scale.cuh" scale.d ||
      fail "scale.d: $(cat scale.d)"
    grep -q "minicuda-nvcc\." scale.d && fail "scale.d names a temporary file: $(cat scale.d)"
    # A second make has nothing to do; touching the header rebuilds both .cu objects.
    make NVCC="$nvcc" | grep -q "up to date" || fail "the second make rebuilt something"
    sleep 1 && touch scale.cuh
    rebuilt=$(make NVCC="$nvcc" | grep -c -- "-c -o")
    [[ $rebuilt == 2 ]] || fail "touching scale.cuh rebuilt $rebuilt objects, expected 2"
    ;;
  deps)
    cp "$here"/makefile_project/* . || exit 1
    out=$("$nvcc" -M -I. -DSCALE_FACTOR=2 main.cu) || fail "-M failed"
    [[ $out == "main.o: main.cu"* ]] || fail "-M output does not start with 'main.o: main.cu': $out"
    [[ $out == *"scale.cuh"* ]] || fail "-M output misses scale.cuh: $out"
    [[ $out == *"cuda_runtime.h"* ]] || fail "-M output misses the system header cuda_runtime.h: $out"
    out=$("$nvcc" -MM -MT custom.o scale.cu) || fail "-MM failed"
    [[ $out == "custom.o: scale.cu"* && $out != *"cuda_runtime.h"* ]] || fail "-MM -MT output: $out"
    ;;
  refused)
    out=$("$nvcc" -ptx -o k.ptx "$here/one_file.cu" 2>&1) && fail "-ptx was accepted"
    [[ $out == "minicuda-nvcc: error: option '-ptx' is not supported: minicuda-nvcc cannot produce PTX"* ]] ||
      fail "message: $out"
    out=$("$nvcc" -arch=sm_9x -c "$here/one_file.cu" 2>&1) && fail "-arch=sm_9x was accepted"
    [[ $out == *"'sm_9x' is not a GPU architecture"* ]] || fail "message: $out"
    ;;
  unknown)
    out=$("$nvcc" --frobnicate "$here/one_file.cu" 2>&1) && fail "--frobnicate was accepted"
    [[ $out == *"option '--frobnicate' is not supported by minicuda-nvcc"* ]] || fail "message: $out"
    [[ ! -e a.out ]] || fail "a refused command line still built a.out"
    ;;
  version)
    out=$("$nvcc" --version) || fail "--version failed"
    [[ $out == *"minicuda"* && $out == *"Cuda compilation tools, release 13.0"* ]] || fail "--version: $out"
    ;;
  compat_script)
    # scripts/compat.sh on a corpus of five tiny samples laid out as cuda-samples' are.
    compat="$here/../../../scripts/compat.sh"
    "$compat" -j2 --nvcc "$nvcc" --run-timeout 30 --work "$work/runs" "$here/compat_corpus" >table.txt 2>&1 ||
      fail "compat.sh exited with $?: $(cat table.txt)"
    row() { grep -E "^0_Introduction/$1 " table.txt | tr -s ' ' | sed 's/ $//'; }
    [[ $(row okSample) == "0_Introduction/okSample yes yes PASS" ]] || fail "okSample: $(row okSample)"
    [[ $(row failSample) == "0_Introduction/failSample yes exit 1 FAIL exit 1: CUDA error: an illegal memory access was encountered" ]] ||
      fail "failSample: $(row failSample)"
    [[ $(row hangSample) == "0_Introduction/hangSample yes exit 124 FAIL timeout after 30s" ]] || fail "hangSample: $(row hangSample)"
    [[ $(row waivedSample) == "0_Introduction/waivedSample yes exit 2 WAIVED Waiving: needs two GPUs" ]] ||
      fail "waivedSample: $(row waivedSample)"
    [[ $(row libSample) == "0_Introduction/libSample NVIDIA library (cublas)" ]] || fail "libSample: $(row libSample)"
    grep -qx "TOTAL: 4 counted: 1 PASS, 1 WAIVED, 2 FAIL (4 build); 1 excluded" table.txt || fail "totals: $(cat table.txt)"
    "$compat" --report --markdown --work "$work/runs" "$here/compat_corpus" >table.md 2>/dev/null || fail "--report failed"
    grep -qx "| 0_Introduction/okSample | yes | yes | PASS |  |" table.md || fail "markdown: $(cat table.md)"
    ;;
  compat_modules)
    # A driver API sample whose CMakeLists makes its module with nvcc -fatbin (compat_corpus_modules).
    compat="$here/../../../scripts/compat.sh"
    corpus="$here/compat_corpus_modules"
    row() { grep -E "^0_Introduction/moduleSample " "$1" | tr -s ' ' | sed 's/ $//'; }
    "$compat" --scope 16 --nvcc "$nvcc" --module-nvcc none --run-timeout 30 --work "$work/none" "$corpus" \
      >none.txt 2>&1 || fail "compat.sh exited with $?: $(cat none.txt)"
    want="0_Introduction/moduleSample no - FAIL needs addOne_kernel64.fatbin (nvcc -fatbin), which minicuda-nvcc"
    want+=" cannot make, and no NVIDIA nvcc is given or found (--module-nvcc)"
    [[ $(row none.txt) == "$want" ]] || fail "without nvcc: $(row none.txt)"
    nvidia=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    if [ -x "$nvidia" ]; then
      "$compat" --scope 16 --nvcc "$nvcc" --module-nvcc "$nvidia" --run-timeout 30 --work "$work/nvcc" "$corpus" \
        >nvcc.txt 2>&1 || fail "compat.sh exited with $?: $(cat nvcc.txt)"
      [[ $(row nvcc.txt) == "0_Introduction/moduleSample yes yes PASS" ]] || fail "with $nvidia: $(row nvcc.txt)"
      [ -s "$work/nvcc/moduleSample/addOne_kernel64.fatbin" ] || fail "no addOne_kernel64.fatbin in the run directory"
      # The whole sample built by NVIDIA's nvcc, run on minicuda's libcuda.so.1 (when it is built).
      lib=$(cd "$(dirname "$nvcc")/../lib" && pwd)
      if [ -e "$lib/libcuda.so.1" ]; then
        "$compat" --scope 16 --nvcc "$nvidia" --lib "$lib" --run-timeout 30 --work "$work/nvidia" "$corpus" \
          >nvidia.txt 2>&1 || fail "compat.sh exited with $?: $(cat nvidia.txt)"
        grep -q "(nvcc mode;" nvidia.txt || fail "not in nvcc mode: $(head -1 nvidia.txt)"
        [[ $(row nvidia.txt) == "0_Introduction/moduleSample yes yes PASS" ]] || fail "nvcc mode: $(row nvidia.txt)"
        loads=$(ldd "$work/nvidia/moduleSample/moduleSample")
        [[ $loads == *"$lib/libcuda.so.1"* ]] || fail "the nvcc-built sample does not load $lib/libcuda.so.1: $loads"
      fi
    else
      echo "check_nvcc.sh compat_modules: no NVIDIA nvcc, so the module was not built (the refusal was checked)"
    fi
    ;;
  cuda_language)
    # project(... LANGUAGES CUDA) with CMake's own rules, minicuda-nvcc named by the toolchain.
    cmake -S "$here/cuda_language" -B build -G "Unix Makefiles" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
      >configure.log 2>&1 || { cat configure.log; fail "configure failed"; }
    cmake --build build -j2 >build.log 2>&1 || { cat build.log; fail "build failed"; }
    grep -q -- "-dlink" build/CMakeFiles/scale_app.dir/dlink.txt || fail "scale_app had no device-link step"
    out=$(build/one_file) || fail "one_file exited with $?: $out"
    [[ $out == *"Test passed"* ]] || fail "one_file: $out"
    out=$(build/scale_app) || fail "scale_app exited with $?: $out"
    [[ $out == *"0 of 300 values wrong"*"Test passed"* ]] || fail "scale_app: $out"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "check_nvcc.sh $case_name: ok"
