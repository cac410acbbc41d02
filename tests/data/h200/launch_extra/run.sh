#!/bin/bash
# cuLaunchKernel's `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END) on the H200: what the driver
# accepts and refuses, for a fatbin kernel and a JIT-compiled PTX kernel, and cuLaunchKernelEx.
# Usage: run.sh OUTDIR   (builds in a temporary directory; writes build.txt, probe_launch_extra.txt)
set -u
out=$(realpath -m "${1:-out}")
mkdir -p "$out"
here=$PWD
tmp=$(mktemp -d)
nvcc=/usr/local/cuda/bin/nvcc
cd "$tmp"
$nvcc -fatbin -arch=sm_90 -o kernels.fatbin "$here/kernels.cu" > "$out/build.txt" 2>&1
$nvcc -ptx -arch=sm_90 -o kernels.ptx "$here/kernels.cu" >> "$out/build.txt" 2>&1
$nvcc -O2 -arch=sm_90 -o probe_launch_extra "$here/probe_launch_extra.cu" -lcuda >> "$out/build.txt" 2>&1
timeout 50 ./probe_launch_extra . > "$out/probe_launch_extra.txt" 2>&1
echo "rc=$?" >> "$out/probe_launch_extra.txt"
rm -rf "$tmp"
