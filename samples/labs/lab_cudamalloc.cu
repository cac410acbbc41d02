// lab_cudamalloc (docs/labs/, lab "pool"): one small cudaMalloc, then one of the size given on the
// command line. Does the second one fit in the pool's shared 2 MiB chunk (512 B slots, no system
// call), or does it get a chunk of its own (ioctls to nvidia.ko)?
//
// Run it:  MINICUDA_TRACE=libcuda,kernel build/bin/lab_cudamalloc 1048576
//          MINICUDA_TRACE=libcuda,kernel build/bin/lab_cudamalloc 1572864
// and read the "pool:" line and the ioctls under the second cuMemAlloc_v2.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 1048576;
  void* small = nullptr;
  void* big = nullptr;
  cudaError_t first = cudaMalloc(&small, 4096);  // the first call: lazy init, and the pool's first chunk
  cudaError_t second = cudaMalloc(&big, bytes);  // the one the lab asks about
  std::printf("cudaMalloc(4096) = %p (%s)\ncudaMalloc(%zu) = %p (%s)\n", small, cudaGetErrorName(first), bytes, big,
              cudaGetErrorName(second));
  cudaFree(big);
  cudaFree(small);
  return first == cudaSuccess && second == cudaSuccess ? 0 : 1;
}
