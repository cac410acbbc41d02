#!/bin/bash
# Builds the wmma probes for sm_90 and records their output in $1/wmma.txt and $1/wmma_misuse.txt.
set -e
out=${1:?usage: run.sh OUTDIR}
/usr/local/cuda/bin/nvcc -arch=sm_90 -O2 -o probe_wmma probe_wmma.cu
/usr/local/cuda/bin/nvcc -arch=sm_90 -O2 -o probe_wmma_misuse probe_wmma_misuse.cu
./probe_wmma > "$out/wmma.txt" 2>&1
for c in offset0 offset1 offset4 offset8 offset16 ldm12 ldm4 halfwarp; do
  timeout 5 ./probe_wmma_misuse $c >> "$out/wmma_misuse.txt" 2>&1 || echo "misuse $c exit=$?" >> "$out/wmma_misuse.txt"
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$out/wmma.txt" 2>&1 || true
