// The program the gdb test debugs: one cudaMalloc, whose first call runs the whole chain down to
// the GPU MMU writing page-table entries for the new 2 MiB chunk.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int* d_a = nullptr;
  cudaError_t err = cudaMalloc(&d_a, 256 * sizeof(int));
  std::printf("cudaMalloc = %s, d_a = %p\n", cudaGetErrorName(err), static_cast<void*>(d_a));
  cudaFree(d_a);
  return err == cudaSuccess ? 0 : 1;
}
