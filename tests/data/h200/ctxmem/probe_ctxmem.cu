// Probe: what the device memory a fresh CUDA context owns consists of, and how each part scales.
// Every mode runs in a process of its own and prints `key = value` lines:
//   base            the limits and the free memory of a fresh context, and what the first launches
//                   (plain, printf, malloc) add
//   stack S         free-memory change when cudaLimitStackSize becomes S, before and after a launch
//   printf F        the same for cudaLimitPrintfFifoSize = F (then a kernel that prints)
//   heap H          the same for cudaLimitMallocHeapSize = H (then a kernel that mallocs)
//   pending N       the same for cudaLimitDevRuntimePendingLaunchCount = N
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void empty_kernel() {}
__global__ void printf_kernel() { if (threadIdx.x == 0 && blockIdx.x == 0) printf("probe printf\n"); }
__global__ void malloc_kernel(int* out) {
  void* p = malloc(64);
  out[0] = p != nullptr;
  free(p);
}

static size_t free_now() {
  size_t f = 0, t = 0;
  cuMemGetInfo(&f, &t);
  return f;
}
static void show_free(const char* key, size_t before) {
  size_t f = free_now();
  printf("%s.free = %zu\n", key, f);
  printf("%s.used_delta = %lld\n", key, (long long)before - (long long)f);
}
static void marker(const char* step) { fprintf(stderr, "\n==== step: %s ====\n", step); fflush(stderr); }

static const char* limit_name(cudaLimit l) {
  switch (l) {
    case cudaLimitStackSize: return "stack";
    case cudaLimitPrintfFifoSize: return "printf_fifo";
    case cudaLimitMallocHeapSize: return "malloc_heap";
    case cudaLimitDevRuntimeSyncDepth: return "devrt_sync_depth";
    case cudaLimitDevRuntimePendingLaunchCount: return "devrt_pending_launches";
    case cudaLimitMaxL2FetchGranularity: return "l2_fetch_granularity";
    case cudaLimitPersistingL2CacheSize: return "persisting_l2";
    default: return "?";
  }
}

static void set_and_measure(const char* what, cudaLimit limit, size_t value) {
  marker("context");
  cudaFree(0);
  size_t f0 = free_now();
  printf("%s.value = %zu\n", what, value);
  printf("%s.ctx.free = %zu\n", what, f0);
  marker("set limit");
  cudaError_t e = cudaDeviceSetLimit(limit, value);
  printf("%s.set = %d %s\n", what, (int)e, cudaGetErrorName(e));
  size_t got = 0;
  cudaDeviceGetLimit(&got, limit);
  printf("%s.get = %zu\n", what, got);
  std::string key = std::string(what) + ".after_set";
  show_free(key.c_str(), f0);
  marker("launch");
  if (limit == cudaLimitPrintfFifoSize) printf_kernel<<<1, 1>>>();
  else if (limit == cudaLimitMallocHeapSize) { int* o = nullptr; cudaMalloc(&o, 4); malloc_kernel<<<1, 1>>>(o); }
  else empty_kernel<<<1, 1>>>();
  e = cudaDeviceSynchronize();
  fflush(stdout);
  printf("%s.launch = %d %s\n", what, (int)e, cudaGetErrorName(e));
  key = std::string(what) + ".after_launch";
  show_free(key.c_str(), f0);
  cudaDeviceGetLimit(&got, limit);
  printf("%s.get_after_launch = %zu\n", what, got);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "base";
  size_t arg = argc > 2 ? strtoull(argv[2], nullptr, 0) : 0;
  if (strcmp(mode, "base") == 0) {
    cuInit(0);
    CUdevice dev = 0;
    cuDeviceGet(&dev, 0);
    size_t total = 0;
    cuDeviceTotalMem(&total, dev);
    int v = 0;
    cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    printf("sm_count = %d\n", v);
    cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    printf("max_threads_per_sm = %d\n", v);
    cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, dev);
    printf("max_blocks_per_sm = %d\n", v);
    printf("total = %zu\n", total);
    marker("context");
    cudaFree(0);
    size_t f0 = free_now();
    printf("ctx.free = %zu\n", f0);
    printf("ctx.used = %zu\n", total - f0);
    const cudaLimit limits[] = {cudaLimitStackSize, cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize,
                                cudaLimitDevRuntimeSyncDepth, cudaLimitDevRuntimePendingLaunchCount,
                                cudaLimitMaxL2FetchGranularity, cudaLimitPersistingL2CacheSize};
    for (cudaLimit l : limits) {
      size_t val = 0;
      cudaError_t e = cudaDeviceGetLimit(&val, l);
      printf("limit.%s = %zu (%d)\n", limit_name(l), val, (int)e);
    }
    marker("empty launch");
    empty_kernel<<<1, 1>>>();
    cudaDeviceSynchronize();
    show_free("first_launch", f0);
    marker("printf launch");
    printf_kernel<<<1, 1>>>();
    cudaDeviceSynchronize();
    fflush(stdout);
    show_free("printf_launch", f0);
    marker("malloc launch");
    int* o = nullptr;
    cudaMalloc(&o, 4);
    size_t f1 = free_now();
    printf("cudamalloc4.used_delta = %lld\n", (long long)f0 - (long long)f1);
    malloc_kernel<<<1, 1>>>(o);
    cudaDeviceSynchronize();
    show_free("malloc_launch", f1);
    marker("end");
    return 0;
  }
  if (strcmp(mode, "stack") == 0) set_and_measure("stack", cudaLimitStackSize, arg);
  else if (strcmp(mode, "printf") == 0) set_and_measure("printf", cudaLimitPrintfFifoSize, arg);
  else if (strcmp(mode, "heap") == 0) set_and_measure("heap", cudaLimitMallocHeapSize, arg);
  else if (strcmp(mode, "pending") == 0) set_and_measure("pending", cudaLimitDevRuntimePendingLaunchCount, arg);
  else { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
  return 0;
}
