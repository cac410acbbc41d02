// scale.cu: one kernel and its host wrapper, compiled separately (-c) by the Makefile.
#include <cuda_runtime.h>

#include "scale.cuh"

__global__ void scale(float* values, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] *= factor;
}

int scale_on_gpu(float* values, int n, float factor) {
  float* d = nullptr;
  cudaError_t status = cudaMalloc(&d, n * sizeof(float));
  if (status != cudaSuccess) return status;
  cudaMemcpy(d, values, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 63) / 64, 64>>>(d, n, factor);
  status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaMemcpy(values, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return status;
}
