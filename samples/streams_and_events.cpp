// streams_and_events: what a stream, an asynchronous copy and an event are underneath.
//
// Two streams split a buffer: each uploads its half from pinned memory and downloads it back,
// asynchronously; an event before and after times the whole on the GPU's clock. Run it with
// MINICUDA_TRACE=1 and look for:
//   - cudaStreamCreate making the pool channel the stream maps onto (the ioctls of a channel),
//     the first time that pool slot is used;
//   - cudaMemcpyAsync returning before its copy has run: the trace shows "channel: submit" and
//     the call's result, and the GPU thread's "ce0: copy" (uploads) and "ce1: copy" (downloads)
//     lines arrive later;
//   - cudaEventRecord as a semaphore release with a timestamp ("event: semaphore release ...");
//   - no ioctl after the streams exist: work, streams and events are memory, not system calls.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

namespace {
bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("%s failed: %s\n", what, cudaGetErrorName(e));
  return false;
}
}  // namespace

int main() {
  constexpr size_t kCount = 1 << 22;  // 4 Mi ints, 16 MiB
  constexpr size_t kHalf = kCount / 2;
  int* host = nullptr;
  int* back = nullptr;
  int* device = nullptr;
  if (!check(cudaMallocHost(&host, kCount * sizeof(int)), "cudaMallocHost") ||
      !check(cudaMallocHost(&back, kCount * sizeof(int)), "cudaMallocHost") ||
      !check(cudaMalloc(&device, kCount * sizeof(int)), "cudaMalloc"))
    return 1;
  for (size_t i = 0; i < kCount; ++i) host[i] = static_cast<int>(i * 7);
  std::memset(back, 0, kCount * sizeof(int));

  cudaStream_t streams[2];
  cudaEvent_t start, stop;
  if (!check(cudaStreamCreate(&streams[0]), "cudaStreamCreate") ||
      !check(cudaStreamCreate(&streams[1]), "cudaStreamCreate") ||
      !check(cudaEventCreate(&start), "cudaEventCreate") || !check(cudaEventCreate(&stop), "cudaEventCreate"))
    return 1;

  check(cudaEventRecord(start, 0), "cudaEventRecord");
  for (int s = 0; s < 2; ++s) {
    size_t offset = s * kHalf;
    check(cudaMemcpyAsync(device + offset, host + offset, kHalf * sizeof(int), cudaMemcpyHostToDevice, streams[s]),
          "cudaMemcpyAsync H2D");
    check(cudaMemcpyAsync(back + offset, device + offset, kHalf * sizeof(int), cudaMemcpyDeviceToHost, streams[s]),
          "cudaMemcpyAsync D2H");
  }
  // The calls above only queued work: the first query may well find stream 1 still busy.
  cudaError_t busy = cudaStreamQuery(streams[1]);
  std::printf("right after queuing, stream 1 is %s\n", busy == cudaErrorNotReady ? "still busy" : "already done");
  check(cudaEventRecord(stop, 0), "cudaEventRecord");
  for (cudaStream_t s : streams) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");

  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  std::printf("32 MiB through the copy engine in %.3f ms of simulated GPU time\n", ms);

  size_t wrong = 0;
  for (size_t i = 0; i < kCount; ++i) wrong += back[i] != static_cast<int>(i * 7);
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(device);
  cudaFreeHost(host);
  cudaFreeHost(back);
  std::printf("streams_and_events: %s (%zu of %zu values wrong)\n", wrong == 0 ? "PASS" : "FAIL", wrong, kCount);
  return wrong == 0 ? 0 : 1;
}
