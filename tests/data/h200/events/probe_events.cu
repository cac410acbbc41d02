// probe_events: how many events one context can hold live, and whether events beyond the
// first few hundred record and time as the first ones do. Built with nvcc -o probe_events.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

__global__ void tick(int* x) { x[threadIdx.x] += 1; }

int main() {
  int* x = nullptr;
  cudaMalloc(&x, 256 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int n : {255, 1000, 10000, 100000}) {
    std::vector<cudaEvent_t> ev(n);
    int made = 0;
    cudaError_t first_error = cudaSuccess;
    for (int i = 0; i < n; ++i) {
      cudaError_t e = cudaEventCreate(&ev[i]);
      if (e != cudaSuccess) { first_error = e; break; }
      ++made;
    }
    std::printf("create_%d made=%d error=%d\n", n, made, static_cast<int>(first_error));
    int recorded = 0;
    for (int i = 0; i < made; ++i) {
      if (i % 64 == 0) tick<<<1, 256, 0, s>>>(x);
      if (cudaEventRecord(ev[i], s) == cudaSuccess) ++recorded;
    }
    cudaError_t sync = cudaStreamSynchronize(s);
    int complete = 0;
    for (int i = 0; i < made; ++i) complete += cudaEventQuery(ev[i]) == cudaSuccess;
    float ms = -1;
    cudaError_t elapsed = made > 1 ? cudaEventElapsedTime(&ms, ev[0], ev[made - 1]) : cudaSuccess;
    float ms_last = -1;
    cudaError_t elapsed_last = made > 2 ? cudaEventElapsedTime(&ms_last, ev[made - 2], ev[made - 1]) : cudaSuccess;
    std::printf("record_%d recorded=%d sync=%d complete=%d elapsed_first_last=%d positive=%d elapsed_last_pair=%d nonneg=%d\n",
                n, recorded, static_cast<int>(sync), complete, static_cast<int>(elapsed), ms > 0,
                static_cast<int>(elapsed_last), ms_last >= 0);
    int destroyed = 0;
    for (int i = 0; i < made; ++i) destroyed += cudaEventDestroy(ev[i]) == cudaSuccess;
    std::printf("destroy_%d destroyed=%d\n", n, destroyed);
  }
  std::printf("last_error=%d\n", static_cast<int>(cudaGetLastError()));
  return 0;
}
