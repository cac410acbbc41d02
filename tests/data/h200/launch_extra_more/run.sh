#!/bin/bash
# The second run of ../launch_extra, for the cases its first run lost to a sticky 700: cuLaunchKernel's
# `extra` for kernels without parameters, cuLaunchKernelEx, and a half-copied pointer (in a fresh process).
# Usage: run.sh OUTDIR   (builds in a temporary directory; writes build.txt, probe_launch_extra_more.txt)
set -u
out=$(realpath -m "${1:-out}")
mkdir -p "$out"
here=$PWD
tmp=$(mktemp -d)
nvcc=/usr/local/cuda/bin/nvcc
cd "$tmp"
$nvcc -fatbin -arch=sm_90 -o kernels.fatbin "$here/../launch_extra/kernels.cu" > "$out/build.txt" 2>&1
$nvcc -ptx -arch=sm_90 -o kernels.ptx "$here/../launch_extra/kernels.cu" >> "$out/build.txt" 2>&1
$nvcc -O2 -arch=sm_90 -o probe_launch_extra_more "$here/probe_launch_extra_more.cu" -lcuda >> "$out/build.txt" 2>&1
timeout 50 ./probe_launch_extra_more . > "$out/probe_launch_extra_more.txt" 2>&1
echo "rc=$?" >> "$out/probe_launch_extra_more.txt"
rm -rf "$tmp"
