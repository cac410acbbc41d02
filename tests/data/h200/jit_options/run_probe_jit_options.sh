#!/bin/bash
# Builds heavy.cu to PTX and the probe, then runs it (on the H200). Usage: run_probe_jit_options.sh OUTDIR
set -u
out=$1; mkdir -p "$out"; cd "$(dirname "$0")"
nvcc -ptx -arch=sm_90 -o "$out/heavy.ptx" heavy.cu
nvcc -O2 -arch=sm_90 -o "$out/probe_jit_options" probe_jit_options.cu -lcuda
cd "$out"
{ echo "# date: $(date -u +%Y-%m-%dT%H:%MZ) (one run)"; echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)";
  ./probe_jit_options heavy.ptx; } > probe_jit_options.txt 2>&1
