// A Driver API program built by nvcc and linked with -lcuda that loads its kernel from a .ptx file
// (argv[1], nvcc -ptx of saxpy_kernel.cu) and launches it (tests/abi/test_nvcc_programs.cpp). It
// prints "key value" lines and exits 0 when every call succeeded.
#include <cstdio>
#include <vector>

#include <cuda.h>

#include "driver_check.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  check("cuInit", cuInit(0));
  CUdevice dev = 0;
  check("cuDeviceGet", cuDeviceGet(&dev, 0));
  CUcontext ctx = nullptr;
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  CUmodule module = nullptr;
  check("cuModuleLoad", cuModuleLoad(&module, argv[1]));
  CUfunction saxpy = nullptr;
  check("cuModuleGetFunction", cuModuleGetFunction(&saxpy, module, "saxpy"));
  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i), y[i] = 1.0f;
  CUdeviceptr dx = 0, dy = 0;
  check("cuMemAlloc", cuMemAlloc(&dx, n * sizeof(float)));
  check("cuMemAlloc", cuMemAlloc(&dy, n * sizeof(float)));
  check("cuMemcpyHtoD", cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  check("cuMemcpyHtoD", cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  float a = 2.0f;
  int count = n;
  void* args[] = {&a, &dx, &dy, &count};
  check("cuLaunchKernel", cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  check("cuCtxSynchronize", cuCtxSynchronize());
  check("cuMemcpyDtoH", cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  int regs = 0;
  check("cuFuncGetAttribute", cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, saxpy));
  double sum = 0;
  for (float v : y) sum += v;
  std::printf("y999 %g\nsum %.1f\nregsPositive %d\n", y[999], sum, regs > 0 ? 1 : 0);
  check("cuMemFree", cuMemFree(dx));
  check("cuMemFree", cuMemFree(dy));
  check("cuModuleUnload", cuModuleUnload(module));
  std::printf("failures %d\n", failures);
  return failures == 0 ? 0 : 1;
}
