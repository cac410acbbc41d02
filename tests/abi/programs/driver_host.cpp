// A host-only Driver API program built by nvcc and linked with -lcuda
// (tests/abi/test_nvcc_programs.cpp): it prints what the driver answers, one "key value" per
// line, and exits 0 when every call that must succeed did.
#include <cstdio>

#include <cuda.h>

#include "driver_check.h"

int main() {
  check("cuInit", cuInit(0));
  int version = 0;
  check("cuDriverGetVersion", cuDriverGetVersion(&version));
  std::printf("driverVersion %d\n", version);
  int count = 0;
  check("cuDeviceGetCount", cuDeviceGetCount(&count));
  std::printf("deviceCount %d\n", count);
  CUdevice dev = 0;
  check("cuDeviceGet", cuDeviceGet(&dev, 0));
  char name[256] = {};
  check("cuDeviceGetName", cuDeviceGetName(name, sizeof name, dev));
  std::printf("name %s\n", name);
  size_t total = 0;
  check("cuDeviceTotalMem", cuDeviceTotalMem(&total, dev));
  std::printf("totalMem %zu\n", total);
  int major = 0, minor = 0, sms = 0;
  check("cuDeviceGetAttribute", cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  check("cuDeviceGetAttribute", cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  check("cuDeviceGetAttribute", cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  std::printf("major %d\nminor %d\nmultiProcessorCount %d\n", major, minor, sms);

  CUcontext ctx = nullptr;
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  const int n = 1024;
  int host[n], back[n];
  for (int i = 0; i < n; ++i) host[i] = i * 5 + 2;
  CUdeviceptr dptr = 0;
  check("cuMemAlloc", cuMemAlloc(&dptr, sizeof host));
  check("cuMemcpyHtoD", cuMemcpyHtoD(dptr, host, sizeof host));
  check("cuMemsetD32", cuMemsetD32(dptr, 7, 4));
  check("cuMemcpyDtoH", cuMemcpyDtoH(back, dptr, sizeof back));
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += back[i];
  std::printf("sum %lld\n", sum);
  size_t free_bytes = 0, total_bytes = 0;
  check("cuMemGetInfo", cuMemGetInfo(&free_bytes, &total_bytes));
  std::printf("memInfoTotal %zu\n", total_bytes);
  check("cuMemFree", cuMemFree(dptr));
  // Bad input gets the real error: a device ordinal past the last device.
  CUdevice missing = 0;
  std::printf("badOrdinal %d\n", static_cast<int>(cuDeviceGet(&missing, count)));
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("failures %d\n", failures);
  return failures == 0 ? 0 : 1;
}
