// lab_out_of_bounds (docs/labs/, lab "memcheck"): an off-by-one bug. The buffer holds 250 ints
// (1000 bytes) but the kernel's test is i <= n, so thread 250 writes one int past the end.
//
// Run it:                     build/bin/lab_out_of_bounds
//          MINICUDA_MEMCHECK=1 build/bin/lab_out_of_bounds
// and compare what cudaDeviceSynchronize returns, and what is printed on stderr.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void store_ints(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = i;  // the bug: should be i < n
}

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep stdout in order with the reports on stderr
  const int n = 250;
  int* a = nullptr;
  cudaMalloc(&a, n * sizeof(int));
  store_ints<<<1, 256>>>(a, n);
  cudaError_t launched = cudaGetLastError();
  cudaError_t finished = cudaDeviceSynchronize();
  std::printf("launch: %s, cudaDeviceSynchronize: %s (%d)\n", cudaGetErrorName(launched), cudaGetErrorName(finished),
              static_cast<int>(finished));
  cudaFree(a);
  return 0;  // the lab reads the output; the bug is the point, not a failure of the program
}
