// The program the doorbell debugger test runs, with the GPU on its own threads (no
// CUDA_LAUNCH_BLOCKING): context creation and a memset submit work first; then `launching` is
// set and the kernel's launch rings the doorbell. The breakpoint in the host interface's
// doorbell handler is conditional on `launching`, so gdb stops at the launch's doorbell: the
// store libcuda made to the usermode page, delivered over the bus on the program's own thread
// (docs/debugging.md).
#include <cuda_runtime.h>

volatile int launching = 0;

__global__ void double_each(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}

int main() {
  const int n = 1024;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(d, 1, n * sizeof(int));
  launching = 1;
  double_each<<<n / 256, 256>>>(d, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
