// launch_round_trips N: N empty-kernel round trips (<<<1, 1>>> + cudaDeviceSynchronize), after
// one to start the device. A fixed amount of work for instruction counts, where wall time is
// noise (a loaded host): run it under `valgrind --tool=callgrind` for N and 3N round trips, and
// the difference over 2N is what one round trip executes (docs/performance.md, launch latency).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void empty_kernel() {}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000;
  if (n < 0) {
    std::fprintf(stderr, "usage: launch_round_trips [N >= 0]\n");
    return 2;
  }
  minicuda::launch<empty_kernel>(dim3(1), dim3(1), 0, nullptr);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "launch_round_trips: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (long i = 0; i < n; ++i) {
    minicuda::launch<empty_kernel>(dim3(1), dim3(1), 0, nullptr);
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
      std::fprintf(stderr, "launch_round_trips: round trip %ld: %s\n", i, cudaGetErrorString(e));
      return 1;
    }
  }
  return 0;
}
