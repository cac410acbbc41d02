#!/bin/sh
# Rebuilds ptx/NAME.ptx from kernels/NAME.cu with nvcc 13 (the kernels only: nvcc -ptx drops the
# host wrappers that the C++ path of the test calls). launchers/*.cu need none here: their kernels'
# PTX is the corpus's, rebuilt by tests/data/ptx/regenerate.sh. The .ptx files are kept in git so that the
# build and the tests need no CUDA toolkit; run this only when a kernel source changes.
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p ptx
for cu in kernels/*.cu; do
  name=$(basename "$cu" .cu)
  "$NVCC" -ptx -arch=sm_90 -lineinfo "$cu" -o "ptx/$name.ptx"
  # .file names the source by its absolute path; keep it relative to this folder.
  sed -i "s|\"$(pwd)/|\"|" "ptx/$name.ptx"
done
# The texture and surface gate (textures/): its PTX lives beside its source.
"$NVCC" -ptx -arch=sm_90 -lineinfo textures/textures.cu -o textures/textures.ptx
sed -i "s|\"$(pwd)/|\"|" textures/textures.ptx
