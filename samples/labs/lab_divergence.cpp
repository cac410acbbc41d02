// lab_divergence: the program of the warp-divergence lab (docs/labs/warp-divergence.md). It
// loads ptx/divergence.ptx through the Driver API and launches one of its kernels:
//   lab_divergence parity   parity_branch on one warp of 32 threads: an if/else on the lane's
//                           parity, then a loop whose trip count is lane % 4 (the default)
//   lab_divergence warp     warp_branch on two warps: the same if/else on the warp's parity
// Run it with MINICUDA_TRACE=warp to see each warp-instruction with its active mask, where the
// warp diverges and where it reconverges. It prints what each lane wrote, to check the paths.
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda.h>

#include "../driver_api/drv_check.h"

#ifndef MINICUDA_LAB_PTX
#define MINICUDA_LAB_PTX "divergence.ptx"
#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "parity";
  bool parity = std::strcmp(mode, "parity") == 0;
  if (!parity && std::strcmp(mode, "warp") != 0) {
    std::fprintf(stderr, "usage: lab_divergence [parity|warp]\n");
    return 2;
  }
  const unsigned threads = parity ? 32 : 64;
  const size_t bytes = threads * sizeof(int);

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  CHECK(cuModuleLoad(&module, MINICUDA_LAB_PTX));
  CUfunction kernel;
  CHECK(cuModuleGetFunction(&kernel, module, parity ? "parity_branch" : "warp_branch"));

  CUdeviceptr d_even, d_odd, d_steps;
  CHECK(cuMemAlloc(&d_even, bytes));
  CHECK(cuMemAlloc(&d_odd, bytes));
  CHECK(cuMemAlloc(&d_steps, bytes));
  CHECK(cuMemsetD32(d_even, 0xffffffffu, threads));
  CHECK(cuMemsetD32(d_odd, 0xffffffffu, threads));
  CHECK(cuMemsetD32(d_steps, 0xffffffffu, threads));
  void* parity_args[] = {&d_even, &d_odd, &d_steps};
  void* warp_args[] = {&d_even, &d_odd};
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, threads, 1, 1, 0, nullptr, parity ? parity_args : warp_args, nullptr));
  CHECK(cuCtxSynchronize());

  std::vector<int> even(threads), odd(threads), steps(threads);
  CHECK(cuMemcpyDtoH(even.data(), d_even, bytes));
  CHECK(cuMemcpyDtoH(odd.data(), d_odd, bytes));
  CHECK(cuMemcpyDtoH(steps.data(), d_steps, bytes));
  if (parity) {
    // Even lane l wrote even[l/2] = 10*l, odd lane l wrote odd[l/2] = l+1000, every lane
    // steps[l] = 1+2+...+(l%4).
    std::printf("even lanes wrote:");
    for (unsigned i = 0; i < 16; ++i) std::printf(" %d", even[i]);
    std::printf("\nodd lanes wrote: ");
    for (unsigned i = 0; i < 16; ++i) std::printf(" %d", odd[i]);
    std::printf("\nloop sums (lane %% 4 iterations):");
    for (unsigned i = 0; i < 8; ++i) std::printf(" %d", steps[i]);
    std::printf(" ...\n");
  } else {
    std::printf("warp 0 wrote even[0..31] = %d..%d, warp 1 wrote odd[32..63] = %d..%d\n", even[0], even[31],
                odd[32], odd[63]);
  }
  CHECK(cuMemFree(d_even));
  CHECK(cuMemFree(d_odd));
  CHECK(cuMemFree(d_steps));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(context));
  return 0;
}
