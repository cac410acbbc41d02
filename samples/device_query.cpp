// device_query: what the CUDA samples' deviceQuery prints, for minicuda's simulated GPU.
//
// Every number comes from the runtime: cudaGetDeviceProperties fills a cudaDeviceProp (which the
// runtime builds from ~100 cuDeviceGetAttribute calls; MINICUDA_TRACE=1 shows them folded into
// two lines), and the clock rates, which CUDA 13 dropped from cudaDeviceProp, come from
// cudaDeviceGetAttribute. MINICUDA_DEVICE=teaching selects the small Teaching GPU instead of the
// H200.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

// Stops the program with the error's name if a CUDA call failed.
void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s (%s)\nResult = FAIL\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
  std::exit(EXIT_FAILURE);
}

int attribute(cudaDeviceAttr attr, int device, const char* what) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, device), what);
  return value;
}

// FP32 cores per SM by compute capability (not a device attribute: the samples keep a table too).
int cores_per_sm(int major, int minor) {
  struct Entry {
    int major, minor, cores;
  };
  static const Entry table[] = {{7, 0, 64},  {7, 5, 64},  {8, 0, 64},  {8, 6, 128}, {8, 7, 128},
                                {8, 9, 128}, {9, 0, 128}, {10, 0, 128}, {12, 0, 128}};
  for (const Entry& e : table) {
    if (e.major == major && e.minor == minor) return e.cores;
  }
  return 128;
}

const char* yes_no(int value) { return value ? "Yes" : "No"; }

// "13.0" from 13000.
void print_version(int version) { std::printf("%d.%d", version / 1000, (version % 1000) / 10); }

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep stdout in order with the trace on stderr
  std::printf("device_query Starting...\n\n CUDA Device Query (Runtime API), minicuda simulation\n\n");

  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) {
    std::printf("There are no available device(s) that support CUDA\nResult = FAIL\n");
    return EXIT_FAILURE;
  }
  std::printf("Detected %d CUDA Capable device(s)\n", count);

  int driver_version = 0, runtime_version = 0;
  check(cudaDriverGetVersion(&driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime_version), "cudaRuntimeGetVersion");

  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
    int clock_khz = attribute(cudaDevAttrClockRate, dev, "cudaDeviceGetAttribute(ClockRate)");
    int mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, dev, "cudaDeviceGetAttribute(MemoryClockRate)");
    int exec_timeout = attribute(cudaDevAttrKernelExecTimeout, dev, "cudaDeviceGetAttribute(KernelExecTimeout)");
    int cores = cores_per_sm(p.major, p.minor);

    std::printf("\nDevice %d: \"%s\"\n", dev, p.name);
    std::printf("  CUDA Driver Version / Runtime Version          ");
    print_version(driver_version);
    std::printf(" / ");
    print_version(runtime_version);
    std::printf("\n");
    std::printf("  CUDA Capability Major/Minor version number:    %d.%d\n", p.major, p.minor);
    std::printf("  Total amount of global memory:                 %.0f MBytes (%zu bytes)\n",
                (double)p.totalGlobalMem / 1048576.0, p.totalGlobalMem);
    std::printf("  (%3d) Multiprocessors, (%3d) CUDA Cores/MP:    %d CUDA Cores\n", p.multiProcessorCount, cores,
                cores * p.multiProcessorCount);
    std::printf("  GPU Max Clock rate:                            %.0f MHz (%0.2f GHz)\n", clock_khz * 1e-3,
                clock_khz * 1e-6);
    std::printf("  Memory Clock rate:                             %.0f MHz\n", mem_clock_khz * 1e-3);
    std::printf("  Memory Bus Width:                              %d-bit\n", p.memoryBusWidth);
    std::printf("  L2 Cache Size:                                 %d bytes\n", p.l2CacheSize);
    std::printf("  Total amount of constant memory:               %zu bytes\n", p.totalConstMem);
    std::printf("  Total amount of shared memory per block:       %zu bytes\n", p.sharedMemPerBlock);
    std::printf("  Total shared memory per multiprocessor:        %zu bytes\n", p.sharedMemPerMultiprocessor);
    std::printf("  Total number of registers available per block: %d\n", p.regsPerBlock);
    std::printf("  Warp size:                                     %d\n", p.warpSize);
    std::printf("  Maximum number of threads per multiprocessor:  %d\n", p.maxThreadsPerMultiProcessor);
    std::printf("  Maximum number of threads per block:           %d\n", p.maxThreadsPerBlock);
    std::printf("  Max dimension size of a thread block (x,y,z): (%d, %d, %d)\n", p.maxThreadsDim[0],
                p.maxThreadsDim[1], p.maxThreadsDim[2]);
    std::printf("  Max dimension size of a grid size    (x,y,z): (%d, %d, %d)\n", p.maxGridSize[0],
                p.maxGridSize[1], p.maxGridSize[2]);
    std::printf("  Maximum memory pitch:                          %zu bytes\n", p.memPitch);
    std::printf("  Texture alignment:                             %zu bytes\n", p.textureAlignment);
    std::printf("  Concurrent copy and kernel execution:          %s with %d copy engine(s)\n",
                yes_no(p.asyncEngineCount > 0), p.asyncEngineCount);
    std::printf("  Run time limit on kernels:                     %s\n", yes_no(exec_timeout));
    std::printf("  Integrated GPU sharing Host Memory:            %s\n", yes_no(p.integrated));
    std::printf("  Support host page-locked memory mapping:       %s\n", yes_no(p.canMapHostMemory));
    std::printf("  Device has ECC support:                        %s\n", p.ECCEnabled ? "Enabled" : "Disabled");
    std::printf("  Device supports Unified Addressing (UVA):      %s\n", yes_no(p.unifiedAddressing));
    std::printf("  Device supports Managed Memory:                %s\n", yes_no(p.managedMemory));
    std::printf("  Device supports Compute Preemption:            %s\n", yes_no(p.computePreemptionSupported));
    std::printf("  Supports Cooperative Kernel Launch:            %s\n", yes_no(p.cooperativeLaunch));
    std::printf("  Device PCI Domain ID / Bus ID / location ID:   %d / %d / %d\n", p.pciDomainID, p.pciBusID,
                p.pciDeviceID);
  }

  std::printf("\ndevice_query, CUDA Driver = CUDART, CUDA Driver Version = ");
  print_version(driver_version);
  std::printf(", CUDA Runtime Version = ");
  print_version(runtime_version);
  std::printf(", NumDevs = %d\nResult = PASS\n", count);
  return EXIT_SUCCESS;
}
