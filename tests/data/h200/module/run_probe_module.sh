#!/bin/bash
# Builds kernels.cu in every form probe_module loads, then runs the probe (on the H200).
# Usage: run_probe_module.sh OUTDIR
set -u
out=$1; mkdir -p "$out/img"; cd "$(dirname "$0")"
nvcc -ptx -arch=sm_90 -o "$out/img/vadd.ptx" kernels.cu
nvcc -cubin -arch=sm_90 -o "$out/img/vadd_sm90.cubin" kernels.cu
nvcc -cubin -arch=sm_80 -o "$out/img/vadd_sm80.cubin" kernels.cu
nvcc -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o "$out/img/vadd.fatbin" kernels.cu
nvcc -fatbin -gencode arch=compute_90,code=compute_90 -o "$out/img/vadd_ptxonly.fatbin" kernels.cu
nvcc -fatbin -gencode arch=compute_80,code=sm_80 -o "$out/img/vadd_sm80only.fatbin" kernels.cu
nvcc -O2 -arch=sm_90 -o "$out/probe_module" probe_module.cu -lcuda
cd "$out"
./probe_module img > probe_module.txt 2>&1
# The JIT cache: a fresh CUDA_CACHE_PATH, a PTX load in one process, then the same in a second.
rm -rf cache && mkdir cache
CUDA_CACHE_PATH=$PWD/cache ./probe_module img cache1 > cache_run1.txt 2>&1
find cache -type f -printf '%P %s\n' | sort > cache_files_after1.txt
CUDA_CACHE_PATH=$PWD/cache ./probe_module img cache2 > cache_run2.txt 2>&1
find cache -type f -printf '%P %s\n' | sort > cache_files_after2.txt
CUDA_CACHE_PATH=$PWD/cache CUDA_CACHE_DISABLE=1 ./probe_module img cache3 > cache_run3.txt 2>&1
find cache -type f -printf '%P %s\n' | sort > cache_files_after3.txt
CUDA_CACHE_PATH=$PWD/cache CUDA_FORCE_PTX_JIT=1 ./probe_module img forcejit > forcejit.txt 2>&1
find cache -type f -printf '%P %s\n' | sort > cache_files_after4.txt
for f in $(find cache -type f | sort | head -5); do echo "== $f"; od -A x -t x1z "$f" | head -24; done > cache_hexdump.txt
for f in img/*.fatbin; do echo "== $f"; od -A x -t x1z "$f" | head -12; done > fatbin_hexdump.txt
