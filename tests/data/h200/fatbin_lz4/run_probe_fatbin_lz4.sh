#!/bin/bash
# Builds module/kernels.cu into LZ4-compressed fatbinaries and loads each (on the H200).
# Usage: run_probe_fatbin_lz4.sh OUTDIR
set -u
out=$1; mkdir -p "$out/img"; here="$(cd "$(dirname "$0")" && pwd)"; cd "$here"
k=../module/kernels.cu
nvcc -fatbin -compress-mode=speed -gencode arch=compute_90,code=compute_90 -o "$out/img/vadd_lz4_ptxonly.fatbin" $k
nvcc -fatbin -compress-mode=speed -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o "$out/img/vadd_lz4.fatbin" $k
nvcc -O2 -arch=sm_90 -o "$out/probe_fatbin_lz4" probe_fatbin_lz4.cu -lcuda
cd "$out"
{ echo "# date: $(date -u +%Y-%m-%dT%H:%MZ) (one run)"; echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)";
  ./probe_fatbin_lz4 img/vadd_lz4_ptxonly.fatbin img/vadd_lz4.fatbin; } > probe_fatbin_lz4.txt 2>&1
for f in img/*.fatbin; do echo "== $f"; od -A x -t x1z "$f" | head -12; done > fatbin_hexdump.txt
