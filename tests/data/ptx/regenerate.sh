#!/bin/sh
# Rebuilds the PTX fixtures of tests/ptx (corpus/*.ptx) from src/*.cu with nvcc 13, and records
# ptxas's diagnostics for the malformed inputs in diag/ (each .ptx beside its .log). The fixtures
# are kept in git so the tests need no CUDA toolkit; run this only when a source changes.
#   nvcc -ptx -arch=sm_90 -lineinfo src/NAME.cu -o corpus/NAME.ptx
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
mkdir -p corpus
for cu in src/*.cu; do
  name=$(basename "$cu" .cu)
  "$NVCC" -ptx -arch=sm_90 -lineinfo "$cu" -o "corpus/$name.ptx"
  # .file names the source by its absolute path; keep it relative to this folder.
  sed -i "s|\"$(pwd)/|\"|" "corpus/$name.ptx"
done
# src/refused/NAME.cu -> refused/NAME.ptx: kernels minicuda's JIT refuses at load (the tests check
# the error names the instruction).
mkdir -p refused
for cu in src/refused/*.cu; do
  name=$(basename "$cu" .cu)
  "$NVCC" -ptx -arch=sm_90 -lineinfo "$cu" -o "refused/$name.ptx"
  sed -i "s|\"$(pwd)/|\"|" "refused/$name.ptx"
done
# diag/NAME.ptx -> diag/NAME.log: ptxas's own messages, with the input named as the driver's JIT
# names it ("application ptx input") so the tests compare the JIT's log line for line.
for p in diag/*.ptx; do
  name=$(basename "$p" .ptx)
  { echo "# $PTXAS -arch=sm_90 $p -o /dev/null"; \
    "$PTXAS" -arch=sm_90 "$p" -o /dev/null 2>&1 | sed "s|$p|application ptx input|g" || true; } > "diag/$name.log"
done
