// one_file.cu: a whole CUDA program in one file, built by `minicuda-nvcc -o one_file one_file.cu`
// in check_nvcc.sh. Squares 1000 ints on the GPU and prints "Test passed" when every one is right.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void square(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

int main() {
  const int n = 1000;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i - 500;
  int *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, sizeof host) != cudaSuccess || cudaMalloc(&d_out, sizeof host) != cudaSuccess) return 2;
  cudaMemcpy(d_in, host, sizeof host, cudaMemcpyHostToDevice);
  square<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  cudaMemcpy(host, d_out, sizeof host, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i] != (i - 500) * (i - 500);
  std::printf("%d of %d squares wrong\n", wrong, n);
  cudaFree(d_in);
  cudaFree(d_out);
  if (wrong != 0) return 1;
  std::printf("Test passed\n");
  return 0;
}
