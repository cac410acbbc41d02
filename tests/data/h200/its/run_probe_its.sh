#!/bin/bash
# Builds spin.cu and loops.cu to PTX, and the probe; runs the probe (on the H200); disassembles
# ptxas' SASS of both (its convergence barriers, BSSY/BSYNC, and YIELDs). Usage: run_probe_its.sh OUTDIR
set -u
out=$1; mkdir -p "$out"; here="$(cd "$(dirname "$0")" && pwd)"; cd "$here"
nvcc -ptx -arch=sm_90 -o "$out/spin.ptx" spin.cu
nvcc -cubin -arch=sm_90 -o "$out/spin.cubin" spin.cu
nvcc -ptx -arch=sm_90 -o "$out/loops.ptx" loops.cu
nvcc -cubin -arch=sm_90 -o "$out/loops.cubin" loops.cu
nvcc -O2 -arch=sm_90 -o "$out/probe_its" probe_its.cu spin.cu -lcuda
cd "$out"
{ echo "# date: $(date -u +%Y-%m-%dT%H:%MZ) (one run)"; echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)";
  ./probe_its spin.ptx; } > probe_its.txt 2>&1
cuobjdump -sass spin.cubin | grep -vE '^\s*/\* [0-9a-fx]+ \*/\s*$' | sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@' > spin_sass.txt
cuobjdump -sass loops.cubin | grep -vE '^\s*/\* [0-9a-fx]+ \*/\s*$' | sed -E 's@ +/\* 0x[0-9a-f]+ \*/@@' > loops_sass.txt
rm -f spin.cubin loops.cubin probe_its
