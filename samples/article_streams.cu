// article_streams: the seed article's stream example (section 二.3), made complete and correct.
//
// Teaches streams, asynchronous copies into pinned memory, and events:
//   - two streams from cudaStreamCreate: stream1 runs the kernel (<<<256, 256, 0, stream1>>>),
//     stream2 copies the result back with cudaMemcpyAsync into page-locked memory from
//     cudaHostAlloc (a copy into pageable memory could not be asynchronous);
//   - cudaEventCreate / cudaEventRecord / cudaEventElapsedTime time the work on the GPU's clock;
//   - cudaStreamSynchronize on both streams, then cudaStreamDestroy / cudaEventDestroy.
// Work in two different streams is NOT ordered: the article's snippet copies d_c on stream2 while
// stream1 may still be writing it. Here an event recorded on stream1 after the kernel, waited for
// by stream2 (cudaStreamWaitEvent), orders the copy after the kernel: stream2's channel acquires
// stream1's fence semaphore. (Each stream has a channel of its own, so without that wait the
// copy could run before the kernel, here as on a real GPU.) The copied-back result is checked
// against the host.
//
// Run it:  build/bin/article_streams
// Traced:  MINICUDA_TRACE=1 build/bin/article_streams
//   look for cudaStreamCreate, cudaLaunchKernel on stream1, cudaEventRecord as a semaphore
//   release with the GPU's timestamp, cudaStreamWaitEvent (a semaphore acquire of stream1's
//   channel's fence),
//   cudaMemcpyAsync returning before its copy has run (the GPU thread's "ce1: copy" comes after
//   cudaStreamQuery's CUDA_ERROR_NOT_READY), and no ioctl between the launch and the
//   synchronizations.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void vector_add(const int* d_a, const int* d_b, int* d_c, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) d_c[idx] = d_a[idx] + d_b[idx];
}

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

int main() {
  constexpr int n = 65536;  // 256 blocks x 256 threads
  const size_t bytes = n * sizeof(int);

  std::vector<int> h_a(n), h_b(n);
  for (int i = 0; i < n; ++i) {
    h_a[i] = 7 * i;
    h_b[i] = i % 1000;
  }
  int *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  check(cudaMalloc(&d_a, bytes), "cudaMalloc(d_a)");
  check(cudaMalloc(&d_b, bytes), "cudaMalloc(d_b)");
  check(cudaMalloc(&d_c, bytes), "cudaMalloc(d_c)");
  check(cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(d_a)");
  check(cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(d_b)");

  // The destination of the asynchronous copy: page-locked ("pinned") host memory, which the
  // copy engine can reach directly.
  int* h_c = nullptr;
  check(cudaHostAlloc(&h_c, bytes, cudaHostAllocDefault), "cudaHostAlloc(h_c)");
  for (int i = 0; i < n; ++i) h_c[i] = -1;

  cudaStream_t stream1, stream2;
  check(cudaStreamCreate(&stream1), "cudaStreamCreate(stream1)");  // stream1: computation
  check(cudaStreamCreate(&stream2), "cudaStreamCreate(stream2)");  // stream2: data transfer

  cudaEvent_t start, computed, stop;
  check(cudaEventCreate(&start), "cudaEventCreate(start)");
  check(cudaEventCreate(&computed), "cudaEventCreate(computed)");
  check(cudaEventCreate(&stop), "cudaEventCreate(stop)");

  // stream1: mark the start, run the kernel, mark the end of the computation.
  check(cudaEventRecord(start, stream1), "cudaEventRecord(start)");
  vector_add<<<256, 256, 0, stream1>>>(d_a, d_b, d_c, n);
  check(cudaGetLastError(), "vector_add<<<256, 256, 0, stream1>>>");
  check(cudaEventRecord(computed, stream1), "cudaEventRecord(computed)");

  // stream2: wait for the kernel's event (without it the copy could read d_c too early), then
  // copy the result into pinned memory. cudaMemcpyAsync returns before the copy has run.
  check(cudaStreamWaitEvent(stream2, computed, 0), "cudaStreamWaitEvent(stream2, computed)");
  check(cudaMemcpyAsync(h_c, d_c, bytes, cudaMemcpyDeviceToHost, stream2), "cudaMemcpyAsync(h_c, stream2)");
  check(cudaEventRecord(stop, stream2), "cudaEventRecord(stop)");
  cudaError_t copy_state = cudaStreamQuery(stream2);  // usually cudaErrorNotReady: still queued
  std::printf("after cudaMemcpyAsync: cudaStreamQuery(stream2) = %s\n", cudaGetErrorName(copy_state));

  // Wait for both streams.
  check(cudaStreamSynchronize(stream1), "cudaStreamSynchronize(stream1)");
  check(cudaStreamSynchronize(stream2), "cudaStreamSynchronize(stream2)");

  float kernel_ms = 0, copy_ms = 0, total_ms = 0;
  check(cudaEventElapsedTime(&kernel_ms, start, computed), "cudaEventElapsedTime(start, computed)");
  check(cudaEventElapsedTime(&copy_ms, computed, stop), "cudaEventElapsedTime(computed, stop)");
  check(cudaEventElapsedTime(&total_ms, start, stop), "cudaEventElapsedTime(start, stop)");
  std::printf("kernel on stream1: %.6f ms, copy on stream2: %.6f ms, elapsed time start->stop: %.6f ms\n",
              kernel_ms, copy_ms, total_ms);

  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (h_c[i] != h_a[i] + h_b[i]) {
      if (wrong < 5) std::printf("  h_c[%d] = %d, expected %d\n", i, h_c[i], h_a[i] + h_b[i]);
      ++wrong;
    }
  }

  check(cudaStreamDestroy(stream1), "cudaStreamDestroy(stream1)");
  check(cudaStreamDestroy(stream2), "cudaStreamDestroy(stream2)");
  check(cudaEventDestroy(start), "cudaEventDestroy(start)");
  check(cudaEventDestroy(computed), "cudaEventDestroy(computed)");
  check(cudaEventDestroy(stop), "cudaEventDestroy(stop)");
  check(cudaFreeHost(h_c), "cudaFreeHost(h_c)");
  check(cudaFree(d_a), "cudaFree(d_a)");
  check(cudaFree(d_b), "cudaFree(d_b)");
  check(cudaFree(d_c), "cudaFree(d_c)");

  if (total_ms < 0 || kernel_ms < 0 || copy_ms < 0) {
    std::printf("article_streams: FAIL: a negative elapsed time\n");
    return 1;
  }
  if (wrong != 0) {
    std::printf("article_streams: FAIL: %d of %d results differ from the host's\n", wrong, n);
    return 1;
  }
  std::printf("article_streams: PASS (%d results copied back on stream2 match the host)\n", n);
  return 0;
}
