// matmul_drv: a tiled matrix product (as samples/matmul_tiled.cu) run from PTX through the
// Driver API: a 2-D grid of 16x16 blocks whose threads stage tiles in shared memory and meet at
// bar.sync. Checks every element against a product computed on the host.
//
// Usage: matmul_drv [kernels.ptx] [n]   (default: samples/driver_api/ptx/kernels.ptx, n = 96)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>

#include "drv_check.h"

#ifndef MINICUDA_SAMPLES_PTX
#define MINICUDA_SAMPLES_PTX "kernels.ptx"
#endif

int main(int argc, char** argv) {
  const char* ptx_path = argc > 1 ? argv[1] : MINICUDA_SAMPLES_PTX;
  const int n = argc > 2 ? std::atoi(argv[2]) : 96;
  if (n <= 0 || n > 2048) {
    std::fprintf(stderr, "n must be in 1..2048\n");
    return 2;
  }
  std::vector<float> a(n * n), b(n * n), c(n * n), expect(n * n, 0.0f);
  for (int i = 0; i < n * n; ++i) a[i] = static_cast<float>(i % 7) - 3.0f, b[i] = static_cast<float>(i % 5) * 0.5f;
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < n; ++k)
      for (int col = 0; col < n; ++col) expect[r * n + col] += a[r * n + k] * b[k * n + col];

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  CHECK(cuModuleLoad(&module, ptx_path));
  CUfunction matmul;
  CHECK(cuModuleGetFunction(&matmul, module, "matmul_tiled"));

  const size_t bytes = sizeof(float) * n * n;
  CUdeviceptr d_a, d_b, d_c;
  CHECK(cuMemAlloc(&d_a, bytes));
  CHECK(cuMemAlloc(&d_b, bytes));
  CHECK(cuMemAlloc(&d_c, bytes));
  CHECK(cuMemcpyHtoD(d_a, a.data(), bytes));
  CHECK(cuMemcpyHtoD(d_b, b.data(), bytes));
  int size = n;
  void* args[] = {&d_a, &d_b, &d_c, &size};
  const unsigned tiles = (n + 15) / 16;
  CHECK(cuLaunchKernel(matmul, tiles, tiles, 1, 16, 16, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(c.data(), d_c, bytes));

  // The sums of small exact values are exact in float whatever the order: compare exactly.
  int wrong = 0;
  for (int i = 0; i < n * n; ++i) wrong += c[i] != expect[i];
  std::printf("matmul_tiled from %s: %dx%d, %ux%u blocks of 16x16, %d of %d elements wrong\n", ptx_path, n, n,
              tiles, tiles, wrong, n * n);
  CHECK(cuMemFree(d_a));
  CHECK(cuMemFree(d_b));
  CHECK(cuMemFree(d_c));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(context));
  return wrong == 0 ? 0 : 1;
}
