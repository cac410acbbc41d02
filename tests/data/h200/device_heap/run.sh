#!/bin/bash
# Device malloc heap on the H200: limits, alignment, exhaustion, persistence across kernels,
# concurrency, late cudaDeviceSetLimit, when the heap memory is taken, device cudaMalloc, and
# what double/foreign/interior frees do. Each case is its own process with its own timeout.
set -u
out=${1:-out}
mkdir -p "$out"
start=$SECONDS
/usr/local/cuda/bin/nvcc -arch=sm_90 -rdc=true -o probe_heap probe_heap.cu -lcudadevrt > "$out/build.txt" 2>&1 \
  || { echo "build failed" >> "$out/build.txt"; exit 1; }
echo "build_s=$((SECONDS - start))" >> "$out/build.txt"
log="$out/heap.txt"
: > "$log"
run_case() {  # run_case TIMEOUT CASE [ENV=VALUE]
  local t=$1 c=$2; shift 2
  if (( SECONDS - start > 52 )); then echo "### $c $* skipped (time)" >> "$log"; return; fi
  echo "### $c $*" >> "$log"
  env "$@" timeout "$t" ./probe_heap "$c" >> "$log" 2>&1
  echo "### $c rc=$?" >> "$log"
}
run_case 5 limits
run_case 5 align
run_case 5 exhaust
run_case 5 exhaust_small
run_case 5 persist
run_case 5 free_null
run_case 6 many
run_case 5 late_limit
run_case 5 late_limit CUDA_MODULE_LOADING=EAGER
run_case 5 meminfo
run_case 5 meminfo CUDA_MODULE_LOADING=EAGER
run_case 5 new
run_case 5 devcm
run_case 4 devcfbad
run_case 4 double_free
run_case 4 free_foreign
run_case 4 free_interior
echo "total_s=$((SECONDS - start))" >> "$log"
