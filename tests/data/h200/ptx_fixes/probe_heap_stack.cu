// Probe: device malloc heap limits and recursion stack overflow on the real H200 (CUDA 13).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void alloc_until_null(unsigned long long* count, size_t chunk) {
  unsigned long long n = 0;
  while (malloc(chunk) != nullptr) ++n;
  *count = n;
}
__global__ void alloc_one(void** out, size_t bytes) { *out = malloc(bytes); }
__global__ void nothing() {}

__device__ __noinline__ unsigned descend(unsigned d, unsigned limit) {
  if (d >= limit) return d;
  unsigned r = descend(d + 1, limit);
  return r * 3 + d;
}
__global__ void deep(unsigned* out, unsigned limit) { out[threadIdx.x] = descend(0, limit); }

static void report(const char* what, cudaError_t e) { printf("%s = %d (%s)\n", what, (int)e, cudaGetErrorName(e)); }

int main() {
  size_t v = 0;
  report("getLimit(heap) initial", cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
  printf("heap_default = %zu\n", v);
  report("setLimit(heap, 1 MiB)", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  printf("heap_after_set_1MiB = %zu\n", v);
  report("setLimit(heap, 8 MiB)", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8 << 20));
  // A launch without malloc, then set again.
  nothing<<<1, 1>>>();
  report("sync after nothing", cudaDeviceSynchronize());
  report("setLimit(heap, 16 MiB) after a launch without malloc", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  printf("heap_now = %zu\n", v);
  unsigned long long* count;
  cudaMallocManaged(&count, sizeof *count);
  const size_t chunks[] = {16, 1024, 65536, 1 << 20};
  for (size_t c : chunks) {
    *count = 0;
    alloc_until_null<<<1, 1>>>(count, c);
    cudaError_t e = cudaDeviceSynchronize();
    printf("chunk %zu: err %d count %llu bytes %llu\n", c, (int)e, *count, *count * c);
  }
  report("setLimit(heap, 32 MiB) after malloc launches", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20));
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  printf("heap_after_late_set = %zu\n", v);
  void** out;
  cudaMallocManaged(&out, sizeof *out);
  alloc_one<<<1, 1>>>(out, size_t(64) << 20);
  report("sync alloc 64MiB", cudaDeviceSynchronize());
  printf("alloc_64MiB_null = %d\n", *out == nullptr);
  alloc_one<<<1, 1>>>(out, 0);
  report("sync alloc 0", cudaDeviceSynchronize());
  printf("alloc_0_null = %d\n", *out == nullptr);
  report("getLastError", cudaGetLastError());

  // Stack: limit 1024 default, recursion of increasing depth.
  unsigned* o;
  cudaMallocManaged(&o, 32 * sizeof(unsigned));
  cudaDeviceGetLimit(&v, cudaLimitStackSize);
  printf("stack_default = %zu\n", v);
  const unsigned depths[] = {10, 50, 60, 100, 200, 1000, 5000, 100000};
  for (unsigned d : depths) {
    deep<<<1, 32>>>(o, d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("depth %u: err %d (%s)\n", d, (int)e, cudaGetErrorName(e));
    if (e != cudaSuccess) {
      cudaDeviceReset();
      cudaMallocManaged(&o, 32 * sizeof(unsigned));
    }
  }
  return 0;
}
