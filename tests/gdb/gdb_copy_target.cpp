// The program the second gdb test debugs: a copy back from the device, the first work the copy
// engine does in this process (context creation only binds engines). cudaMemcpy DeviceToHost
// returns only when the copy engine has finished, so when the copy engine's thread stops in the
// copy engine, the program's thread is still inside cudaMemcpy, waiting on the channel's
// semaphore. 1 MiB, because copies up to 64 KiB run on the PBDMA's thread (engine_thread.h).
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  int* d_a = nullptr;
  std::vector<int> h(262144, 0);
  if (cudaMalloc(&d_a, h.size() * sizeof(int)) != cudaSuccess) return 1;
  cudaError_t err = cudaMemcpy(h.data(), d_a, h.size() * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("cudaMemcpy = %s, h[0] = %d\n", cudaGetErrorName(err), h[0]);
  cudaFree(d_a);
  return err == cudaSuccess ? 0 : 1;
}
