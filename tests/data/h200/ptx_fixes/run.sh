#!/bin/bash
# Device malloc heap limits/exhaustion and recursion stack overflow on the H200.
set -u
out=${1:-out}
mkdir -p "$out"
/usr/local/cuda/bin/nvcc -arch=sm_90 -o probe_heap_stack probe_heap_stack.cu > "$out/build.txt" 2>&1
/usr/local/cuda/bin/cuobjdump -res-usage probe_heap_stack >> "$out/build.txt" 2>&1
timeout 50 ./probe_heap_stack > "$out/heap_stack.txt" 2>&1
echo "rc=$?" >> "$out/heap_stack.txt"
