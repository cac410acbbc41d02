// lab_copy (docs/labs/, lab "pinned"): copies 4 MiB to the GPU from pageable memory (malloc) or
// from pinned memory (cudaMallocHost), and times the copy with events, in simulated time.
//
// Run it:  MINICUDA_TRACE=libcuda build/bin/lab_copy pageable
//          MINICUDA_TRACE=libcuda build/bin/lab_copy pinned
// and read the "copy:" line under cuMemcpyHtoD_v2: who moves the bytes?
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  const bool pinned = argc > 1 && std::strcmp(argv[1], "pinned") == 0;
  if (argc > 1 && !pinned && std::strcmp(argv[1], "pageable") != 0) {
    std::printf("usage: %s [pageable|pinned]\n", argv[0]);
    return 2;
  }
  const size_t bytes = 4u << 20;
  void* host = nullptr;
  if (pinned) {
    if (cudaMallocHost(&host, bytes) != cudaSuccess) return 1;  // page-locked, known to the driver
  } else {
    host = std::malloc(bytes);  // ordinary pageable memory
  }
  std::memset(host, 1, bytes);
  void* dev = nullptr;
  cudaEvent_t start, stop;
  cudaMalloc(&dev, bytes);
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, 0);
  cudaError_t err = cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
  cudaEventRecord(stop, 0);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  std::printf("%s copy of %zu bytes: %s, %.3f ms (simulated)\n", pinned ? "pinned" : "pageable", bytes,
              cudaGetErrorName(err), ms);
  cudaFree(dev);
  if (pinned) cudaFreeHost(host); else std::free(host);
  return err == cudaSuccess ? 0 : 1;
}
