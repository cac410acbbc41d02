// minicuda devices: deviceQuery's figures, one block per GPU, through the runtime API.
#include <cuda_runtime.h>

#include <cstdio>

#include "commands.h"

namespace minicuda::cli {
namespace {

const char* yes_no(int value) { return value ? "Yes" : "No"; }

bool failed(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return false;
  std::fprintf(stderr, "minicuda devices: %s failed: %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
  return true;
}

}  // namespace

int devices() {
  int count = 0;
  if (failed(cudaGetDeviceCount(&count), "cudaGetDeviceCount")) return 1;
  int driver = 0, runtime = 0;
  if (failed(cudaDriverGetVersion(&driver), "cudaDriverGetVersion")) return 1;
  if (failed(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion")) return 1;
  std::printf("%d simulated CUDA device(s); driver %d.%d, runtime %d.%d\n", count, driver / 1000,
              (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp p{};
    if (failed(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties")) return 1;
    // CUDA 13 dropped the clock rates from cudaDeviceProp: they are attributes.
    int clock_khz = 0, mem_clock_khz = 0;
    if (failed(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev), "cudaDeviceGetAttribute")) return 1;
    if (failed(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev), "cudaDeviceGetAttribute")) {
      return 1;
    }
    std::printf("\nDevice %d: \"%s\"\n", dev, p.name);
    std::printf("  Compute capability:               %d.%d\n", p.major, p.minor);
    std::printf("  Multiprocessors (SMs):            %d\n", p.multiProcessorCount);
    std::printf("  Global memory:                    %zu MiB (%zu bytes)\n", p.totalGlobalMem >> 20, p.totalGlobalMem);
    std::printf("  Shared memory per block:          %zu bytes\n", p.sharedMemPerBlock);
    std::printf("  Shared memory per block (opt-in): %zu bytes\n", p.sharedMemPerBlockOptin);
    std::printf("  Shared memory per SM:             %zu bytes\n", p.sharedMemPerMultiprocessor);
    std::printf("  Constant memory:                  %zu bytes\n", p.totalConstMem);
    std::printf("  Registers per block:              %d\n", p.regsPerBlock);
    std::printf("  Registers per SM:                 %d\n", p.regsPerMultiprocessor);
    std::printf("  Warp size:                        %d\n", p.warpSize);
    std::printf("  Max threads per block:            %d\n", p.maxThreadsPerBlock);
    std::printf("  Max threads per SM:               %d\n", p.maxThreadsPerMultiProcessor);
    std::printf("  Max blocks per SM:                %d\n", p.maxBlocksPerMultiProcessor);
    std::printf("  Max block dimensions:             (%d, %d, %d)\n", p.maxThreadsDim[0], p.maxThreadsDim[1],
                p.maxThreadsDim[2]);
    std::printf("  Max grid dimensions:              (%d, %d, %d)\n", p.maxGridSize[0], p.maxGridSize[1],
                p.maxGridSize[2]);
    std::printf("  GPU clock:                        %d MHz\n", clock_khz / 1000);
    std::printf("  Memory clock:                     %d MHz\n", mem_clock_khz / 1000);
    std::printf("  Memory bus width:                 %d-bit\n", p.memoryBusWidth);
    std::printf("  L2 cache:                         %d bytes\n", p.l2CacheSize);
    std::printf("  Copy engines (async):             %d\n", p.asyncEngineCount);
    std::printf("  Concurrent kernels:               %s\n", yes_no(p.concurrentKernels));
    std::printf("  Unified addressing (UVA):         %s\n", yes_no(p.unifiedAddressing));
    std::printf("  Managed memory:                   %s\n", yes_no(p.managedMemory));
    std::printf("  Map host memory:                  %s\n", yes_no(p.canMapHostMemory));
    std::printf("  Cooperative launch:               %s\n", yes_no(p.cooperativeLaunch));
    std::printf("  ECC:                              %s\n", p.ECCEnabled ? "Enabled" : "Disabled");
    std::printf("  PCI domain / bus / device:        %d / %d / %d\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  }
  return 0;
}

}  // namespace minicuda::cli
