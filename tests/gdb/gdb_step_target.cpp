// The program the stepping test debugs: a cudaMalloc (which runs the lazy initialisation), then
// a cudaMemcpy from the host to the device. From cudaMemcpy, gdb's `step` goes through the
// runtime's copy body straight into libcuda's cuMemcpyHtoD_v2.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  int* d_a = nullptr;
  std::vector<int> h(256, 7);
  if (cudaMalloc(&d_a, h.size() * sizeof(int)) != cudaSuccess) return 1;
  cudaError_t err = cudaMemcpy(d_a, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice);
  std::printf("cudaMemcpy = %s\n", cudaGetErrorName(err));
  cudaFree(d_a);
  return err == cudaSuccess ? 0 : 1;
}
