// A program of two translation units built with nvcc -rdc=true (tests/abi/test_nvcc_programs.cpp):
// the kernel calls add_ten, which rdc_add.cu defines. Prints "key value" lines.
#include <cstdio>

__device__ int add_ten(int x);

__global__ void call_add_ten(int* out) { out[threadIdx.x] = add_ten(static_cast<int>(threadIdx.x)); }

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  call_add_ten<<<1, 32>>>(d);
  std::printf("launch %d\n", static_cast<int>(cudaGetLastError()));
  int h[32] = {};
  std::printf("copy %d\n", static_cast<int>(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost)));
  int sum = 0;
  for (int v : h) sum += v;
  std::printf("out31 %d\nsum %d\n", h[31], sum);
  cudaFree(d);
  return 0;
}
