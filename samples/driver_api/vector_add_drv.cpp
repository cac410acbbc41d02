// vector_add_drv: vector_add (samples/vector_add.cu) through the Driver API, the way the seed
// article's comparison of the two APIs describes it: the program itself initialises the driver,
// makes a context, loads a module from a PTX file and launches the kernel by name with an array
// of argument pointers. Everything the runtime did behind cudaMalloc and <<<>>> is spelled out.
// Run both with MINICUDA_TRACE=1 to compare the chains: here there is no libcudart layer, and
// cuModuleLoad JIT-compiles the PTX (or loads it from the JIT cache).
//
// Usage: vector_add_drv [kernels.ptx]   (default: the PTX beside the sources, samples/driver_api/ptx)
#include <cstdio>
#include <vector>

#include <cuda.h>

#include "drv_check.h"

#ifndef MINICUDA_SAMPLES_PTX
#define MINICUDA_SAMPLES_PTX "kernels.ptx"
#endif

int main(int argc, char** argv) {
  const char* ptx_path = argc > 1 ? argv[1] : MINICUDA_SAMPLES_PTX;
  const int n = 1 << 16;
  std::vector<int> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 2 * i;

  // What cudaSetDevice / the first runtime call do implicitly.
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuCtxCreate(&context, nullptr, 0, device));

  // What the runtime does with the fatbinary nvcc embedded: here the program loads the PTX.
  CUmodule module;
  CHECK(cuModuleLoad(&module, ptx_path));
  CUfunction vector_add;
  CHECK(cuModuleGetFunction(&vector_add, module, "vector_add"));

  CUdeviceptr d_a, d_b, d_c;
  const size_t bytes = n * sizeof(int);
  CHECK(cuMemAlloc(&d_a, bytes));
  CHECK(cuMemAlloc(&d_b, bytes));
  CHECK(cuMemAlloc(&d_c, bytes));
  CHECK(cuMemcpyHtoD(d_a, a.data(), bytes));
  CHECK(cuMemcpyHtoD(d_b, b.data(), bytes));

  // vector_add<<<n / 256, 256>>>(d_a, d_b, d_c, n), by hand: the grid, the block, and one
  // pointer per parameter.
  int count = n;
  void* args[] = {&d_a, &d_b, &d_c, &count};
  CHECK(cuLaunchKernel(vector_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(c.data(), d_c, bytes));

  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != 3 * i;
  std::printf("vector_add from %s: %d blocks of 256 threads, %d of %d sums wrong\n", ptx_path, (n + 255) / 256,
              wrong, n);
  CHECK(cuMemFree(d_a));
  CHECK(cuMemFree(d_b));
  CHECK(cuMemFree(d_c));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(context));
  return wrong == 0 ? 0 : 1;
}
