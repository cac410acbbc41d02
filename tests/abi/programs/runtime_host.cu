// A host-only runtime program built by nvcc with -cudart shared (tests/abi/test_nvcc_programs.cpp):
// it prints what the runtime answers, one "key value" per line, and exits 0 when every call
// succeeded.
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

static int failures = 0;
static void check(const char* what, cudaError_t e) {
  if (e != cudaSuccess) {
    std::printf("error %s %d %s\n", what, static_cast<int>(e), cudaGetErrorName(e));
    ++failures;
  }
}

int main() {
  int count = 0;
  check("cudaGetDeviceCount", cudaGetDeviceCount(&count));
  std::printf("deviceCount %d\n", count);
  int runtime = 0, driver = 0;
  check("cudaRuntimeGetVersion", cudaRuntimeGetVersion(&runtime));
  check("cudaDriverGetVersion", cudaDriverGetVersion(&driver));
  std::printf("runtimeVersion %d\ndriverVersion %d\n", runtime, driver);
  cudaDeviceProp prop;
  std::memset(&prop, 0, sizeof prop);
  check("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
  std::printf("name %s\n", prop.name);
  std::printf("major %d\nminor %d\n", prop.major, prop.minor);
  std::printf("multiProcessorCount %d\n", prop.multiProcessorCount);
  std::printf("totalGlobalMem %zu\n", prop.totalGlobalMem);
  std::printf("sharedMemPerBlock %zu\n", prop.sharedMemPerBlock);
  std::printf("warpSize %d\n", prop.warpSize);
  std::printf("maxThreadsPerBlock %d\n", prop.maxThreadsPerBlock);
  std::printf("l2CacheSize %d\n", prop.l2CacheSize);
  int sms = 0;
  check("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("attrMultiProcessorCount %d\n", sms);

  const int n = 1024;
  int host[n], back[n];
  for (int i = 0; i < n; ++i) host[i] = i * 3 + 1;
  int* dev = nullptr;
  check("cudaMalloc", cudaMalloc(&dev, sizeof host));
  check("cudaMemcpyHtoD", cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
  check("cudaMemset", cudaMemset(dev, 0, 16));
  check("cudaMemcpyDtoH", cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += back[i];
  std::printf("sum %lld\n", sum);
  check("cudaFree", cudaFree(dev));
  // Bad input gets the real error: a copy from a null device pointer.
  cudaError_t bad = cudaMemcpy(back, nullptr, 4, cudaMemcpyDeviceToHost);
  std::printf("nullCopy %d\n", static_cast<int>(bad));
  std::printf("lastError %d\n", static_cast<int>(cudaGetLastError()));
  std::printf("failures %d\n", failures);
  return failures == 0 ? 0 : 1;
}
