// Loads addOne_kernel64.fatbin from the working directory, launches addOne once with kernelParams
// and once with an `extra` parameter buffer, and checks both. Prints "Test passed" or exits 1.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "helper.h"

#define CHECK(call)                                                          \
  do {                                                                       \
    CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) {                                                \
      std::printf("CUDA error %d at line %d: %s\n", (int)r_, __LINE__, #call); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main() {
  std::ifstream file("addOne_kernel64.fatbin", std::ios::binary);
  if (!file) {
    std::printf("error: addOne_kernel64.fatbin not found\n");
    return 1;
  }
  std::stringstream image;
  image << file.rdbuf();
  const std::string bytes = image.str();
  CUdevice dev;
  CUcontext ctx;
  CUmodule module;
  CUfunction add;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CHECK(cuModuleLoadData(&module, bytes.data()));
  CHECK(cuModuleGetFunction(&add, module, "addOne"));
  const int n = 1000;
  std::vector<int> host(n, 5);
  CUdeviceptr data;
  CHECK(cuMemAlloc(&data, n * sizeof(int)));
  CHECK(cuMemcpyHtoD(data, host.data(), n * sizeof(int)));
  int step = 2, count = n;
  void* params[] = {&data, &step, &count};
  CHECK(cuLaunchKernel(add, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  alignas(8) unsigned char buffer[16];
  step = 3;
  std::memcpy(buffer, &data, 8);
  std::memcpy(buffer + 8, &step, 4);
  std::memcpy(buffer + 12, &count, 4);
  size_t size = sizeof buffer;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(add, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  CHECK(cuMemcpyDtoH(host.data(), data, n * sizeof(int)));
  int wrong = 0;
  for (int v : host) wrong += v != 10;
  std::printf("%d of %d values wrong\n", wrong, n);
  CHECK(cuMemFree(data));
  CHECK(cuModuleUnload(module));
  std::printf(wrong == 0 ? "Test passed\n" : "Test failed\n");
  return wrong == 0 ? 0 : 1;
}
