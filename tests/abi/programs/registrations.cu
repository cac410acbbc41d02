// Compiled by nvcc only for its imports (tests/data/abi/nvcc_imports.txt): a __device__, a
// __constant__ and a __managed__ variable and a kernel launched with --default-stream per-thread,
// so the list holds __cudaRegisterVar, __cudaRegisterManagedVar and __cudaLaunchKernel_ptsz.
#include <cuda_runtime.h>

__device__ int counter;
__constant__ float scale[4];
__managed__ int managed_total;

__global__ void accumulate(int* out) { atomicAdd(out, counter + static_cast<int>(scale[0]) + managed_total); }

int main() {
  int one = 1;
  cudaMemcpyToSymbol(counter, &one, sizeof one);
  accumulate<<<1, 32>>>(&managed_total);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
