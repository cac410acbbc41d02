#!/bin/bash
# Builds probe_wmma.cu for sm_90 and records its output in $1/wmma.txt.
set -e
out=${1:?usage: run.sh OUTDIR}
/usr/local/cuda/bin/nvcc -arch=sm_90 -O2 -o probe_wmma probe_wmma.cu
./probe_wmma > "$out/wmma.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$out/wmma.txt" 2>&1 || true
