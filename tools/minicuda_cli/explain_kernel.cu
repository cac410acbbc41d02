// The kernel `minicuda explain launch` launches: one thread per element adds 1. A .cu source, so
// that the launch goes through <<<>>> and the start-up registration as in any student program.
#include <cuda_runtime.h>

int minicuda_cli_launch_add_one(int* d, int n);

__global__ void add_one(int* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] += 1;
}

int minicuda_cli_launch_add_one(int* d, int n) {
  add_one<<<(n + 255) / 256, 256>>>(d, n);
  return static_cast<int>(cudaGetLastError());
}
