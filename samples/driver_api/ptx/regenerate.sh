#!/bin/sh
# Regenerates the samples' PTX from kernels.cu with NVIDIA's nvcc (CUDA 13). Not part of the build.
set -e
cd "$(dirname "$0")"
nvcc -ptx -arch=sm_90 -o kernels.ptx kernels.cu
