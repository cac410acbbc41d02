// Device configuration through the runtime (runtime/src/device_config.cpp): flags, limits, cache
// and bank preferences, cudaChooseDevice, PCI bus ids, profiler markers and the occupancy helpers.
// Every expected value is the H200's (tests/data/h200/probe_api_families.txt, key in comments).
#include <string>

#include "cuda_profiler_api.h"
#include "nvtx3/nvToolsExt.h"
#include "runtime_fixtures.h"

__global__ void config_kernel(int* out) { out[threadIdx.x] = static_cast<int>(threadIdx.x); }

namespace minicuda::testing {
namespace {

using DeviceConfigTest = FreshProcess;

TEST_F(DeviceConfigTest, DeviceFlagsAlwaysReportMapHostAndValidateTheSchedule) {
  unsigned flags = 0xdead;
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);  // rt.getDeviceFlags.preinit = 0x8
  EXPECT_EQ(flags, 0x8u);
  EXPECT_EQ(primary_state(), "flags=0 active=0");  // no context was made for it
  EXPECT_EQ(cudaGetDeviceFlags(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleMask), cudaErrorInvalidValue);
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceLmemResizeToMax), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags, 0x18u);  // rt.getDeviceFlags.after_lmem
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags, 0xcu);  // rt.getDeviceFlags.after_blocking
  ASSERT_EQ(cudaSetDeviceFlags(0), cudaSuccess);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the context is made now
  ASSERT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin), cudaSuccess);  // allowed while active
  ASSERT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
  EXPECT_EQ(flags, 0x9u);  // rt.getDeviceFlags.ctx_after_spin
  ASSERT_EQ(cudaSetDeviceFlags(0), cudaSuccess);
  unsigned ctx_flags = 0;
  ASSERT_EQ(cuCtxGetFlags(&ctx_flags), CUDA_SUCCESS);
  EXPECT_EQ(ctx_flags, 0x8u);  // drv.ctxGetFlags.value
  EXPECT_EQ(primary_state(), "flags=0 active=1");  // drv.primaryCtxGetState.value
}

TEST_F(DeviceConfigTest, LimitsHaveTheH200DefaultsAndRounding) {
  const size_t defaults[] = {1024, 8650752, 8388608, 0, 2048, 64, 11796480};  // rt.getLimit.N.value
  for (int l = 0; l <= 6; ++l) {
    size_t v = 0xdead;
    if (l == cudaLimitDevRuntimeSyncDepth) {
      EXPECT_EQ(cudaDeviceGetLimit(&v, cudaLimitDevRuntimeSyncDepth), cudaErrorUnsupportedLimit);
      continue;
    }
    ASSERT_EQ(cudaDeviceGetLimit(&v, static_cast<cudaLimit>(l)), cudaSuccess) << l;
    EXPECT_EQ(v, defaults[l]) << l;
  }
  EXPECT_EQ(cudaDeviceGetLimit(nullptr, cudaLimitStackSize), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetLimit(nullptr, static_cast<cudaLimit>(99)), cudaErrorInvalidValue);
  struct Case {
    cudaLimit limit;
    size_t value;
    cudaError_t result;
    size_t after;
  };
  const Case cases[] = {
      {cudaLimitStackSize, 0, cudaSuccess, 0},          {cudaLimitStackSize, 1, cudaSuccess, 16},
      {cudaLimitStackSize, 1000, cudaSuccess, 1008},    {cudaLimitStackSize, 1 << 20, cudaErrorInvalidValue, 1008},
      {cudaLimitPrintfFifoSize, 1000, cudaSuccess, 524288}, {cudaLimitPrintfFifoSize, 2 << 20, cudaSuccess, 2 << 20},
      {cudaLimitMallocHeapSize, 1, cudaSuccess, 4194304}, {cudaLimitMallocHeapSize, 16 << 20, cudaSuccess, 16 << 20},
      {cudaLimitDevRuntimePendingLaunchCount, 100, cudaSuccess, 100},
      {cudaLimitMaxL2FetchGranularity, 100, cudaSuccess, 100},
      {cudaLimitMaxL2FetchGranularity, 256, cudaErrorInvalidValue, 100},
      {cudaLimitPersistingL2CacheSize, 1 << 20, cudaSuccess, 3932160},
      {cudaLimitPersistingL2CacheSize, size_t{1} << 40, cudaErrorInvalidValue, 3932160},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(cudaDeviceSetLimit(c.limit, c.value), c.result) << c.limit << " " << c.value;
    size_t v = 0;
    ASSERT_EQ(cudaDeviceGetLimit(&v, c.limit), cudaSuccess);
    EXPECT_EQ(v, c.after) << c.limit << " " << c.value;
  }
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
  EXPECT_EQ(cudaDeviceSetLimit(static_cast<cudaLimit>(7), 0), cudaErrorNotPermitted);  // rt.setLimit.7.0
  EXPECT_EQ(cudaDeviceSetLimit(static_cast<cudaLimit>(99), 0), cudaErrorInvalidValue);
  size_t shmem = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&shmem, static_cast<cudaLimit>(7)), cudaSuccess);
  EXPECT_EQ(shmem, 232448u);  // rt.getLimit.7.value
}

TEST_F(DeviceConfigTest, LimitsAreTheDriversAndResetWithThePrimaryContext) {
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1048576), cudaSuccess);
  size_t v = 0;
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1048576u);  // drv.ctxGetLimit.1.value after the runtime set it
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2000), CUDA_SUCCESS);
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
  EXPECT_EQ(v, 2000u);  // drv.ctxSetLimit.stack.2000.get
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
  EXPECT_EQ(v, 1024u);
}

TEST_F(DeviceConfigTest, CacheAndBankConfiguration) {
  cudaFuncCache cache = static_cast<cudaFuncCache>(77);
  ASSERT_EQ(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
  EXPECT_EQ(cache, cudaFuncCachePreferNone);
  EXPECT_EQ(cudaDeviceGetCacheConfig(nullptr), cudaErrorInvalidValue);
  for (int c = 0; c <= 3; ++c) {
    ASSERT_EQ(cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(c)), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
    EXPECT_EQ(cache, c);  // rt.setCacheConfig.N.get
  }
  EXPECT_EQ(cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(4)), cudaErrorInvalidValue);
  ASSERT_EQ(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
  EXPECT_EQ(cache, cudaFuncCachePreferEqual);
  cudaSharedMemConfig bank = static_cast<cudaSharedMemConfig>(77);
  ASSERT_EQ(cudaDeviceGetSharedMemConfig(&bank), cudaSuccess);
  EXPECT_EQ(bank, cudaSharedMemBankSizeFourByte);
  ASSERT_EQ(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetSharedMemConfig(&bank), cudaSuccess);
  EXPECT_EQ(bank, cudaSharedMemBankSizeFourByte);  // rt.setSharedMemConfig.2.get = 1
  EXPECT_EQ(cudaDeviceSetSharedMemConfig(static_cast<cudaSharedMemConfig>(3)), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetSharedMemConfig(nullptr), cudaErrorInvalidValue);
}

TEST_F(DeviceConfigTest, FuncSetCacheConfigChecksTheKernelThenTheValue) {
  minicuda::detail::ensure_registered<config_kernel>();
  static int host_var[4];
  EXPECT_EQ(cudaFuncSetCacheConfig(config_kernel, cudaFuncCachePreferShared), cudaSuccess);
  EXPECT_EQ(cudaFuncSetCacheConfig(config_kernel, static_cast<cudaFuncCache>(5)), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetCacheConfig(static_cast<const void*>(nullptr), cudaFuncCachePreferShared),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaFuncSetCacheConfig(static_cast<const void*>(host_var), cudaFuncCachePreferShared),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaFuncSetSharedMemConfig(reinterpret_cast<const void*>(config_kernel), cudaSharedMemBankSizeFourByte),
            cudaSuccess);
}

TEST_F(DeviceConfigTest, ChooseDeviceAndPciBusIds) {
  cudaDeviceProp prop{};
  int device = -7;
  ASSERT_EQ(cudaChooseDevice(&device, &prop), cudaSuccess);
  EXPECT_EQ(device, 0);
  prop.major = 12;
  device = -7;
  ASSERT_EQ(cudaChooseDevice(&device, &prop), cudaSuccess);
  EXPECT_EQ(device, 0);  // rt.chooseDevice.12.value
  EXPECT_EQ(cudaChooseDevice(nullptr, &prop), cudaErrorInvalidValue);
  EXPECT_EQ(cudaChooseDevice(&device, nullptr), cudaErrorInvalidValue);

  char bus[64];
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), cudaSuccess);
  EXPECT_EQ(std::string(bus), "0000:00:06.0");  // rt.getPCIBusId.value
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus, 13, 0), cudaSuccess);
  EXPECT_EQ(std::string(bus), "0000:00:06.0");
  EXPECT_EQ(cudaDeviceGetPCIBusId(bus, 5, 0), cudaErrorInvalidValue);
  EXPECT_EQ(std::string(bus), "0000");  // rt.getPCIBusId.len5.value
  EXPECT_EQ(cudaDeviceGetPCIBusId(bus, 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetPCIBusId(nullptr, 64, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetPCIBusId(bus, 64, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetPCIBusId(bus, 64, -1), cudaErrorInvalidDevice);

  device = -7;
  ASSERT_EQ(cudaDeviceGetByPCIBusId(&device, "0000:00:06.0"), cudaSuccess);
  EXPECT_EQ(device, 0);
  device = -7;
  ASSERT_EQ(cudaDeviceGetByPCIBusId(&device, "00:06.0"), cudaSuccess);  // rt.getByPCIBusId.short
  EXPECT_EQ(device, 0);
  device = -7;
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&device, "0000:ff:1f.0"), cudaErrorInvalidDevice);
  EXPECT_EQ(device, -7);  // rt.getByPCIBusId.absent.value
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&device, "junk"), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&device, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetByPCIBusId(nullptr, "0000:00:06.0"), cudaErrorInvalidValue);
}

TEST_F(DeviceConfigTest, ProfilerMarkersReachLibcuda) {
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  trace::Recorder recorder;
  EXPECT_EQ(cudaProfilerStart(), cudaSuccess);
  EXPECT_EQ(cudaProfilerStart(), cudaSuccess);  // rt.profilerStart.again
  EXPECT_EQ(cudaProfilerStop(), cudaSuccess);
  std::vector<std::string> libcuda = recorder.texts(trace::Layer::Libcuda);
  ASSERT_EQ(libcuda.size(), 6u);
  EXPECT_EQ(libcuda[0], "cuProfilerStart()");
  EXPECT_EQ(libcuda[1], "profiler: collection on");
  EXPECT_EQ(libcuda[4], "cuProfilerStop()");
  EXPECT_EQ(libcuda[5], "profiler: collection off");
}

// NVTX with no tool attached (minicuda attaches none): every call does nothing and answers the
// "no tool" values, as NVTX 3 does on a machine without Nsight (recorded on the H200,
// tests/data/h200/nvtx/).
TEST_F(DeviceConfigTest, NvtxWithoutAToolAnswersTheNoToolValues) {
  trace::Recorder recorder;
  EXPECT_EQ(nvtxRangePushA("outer"), NVTX_NO_PUSH_POP_TRACKING);
  EXPECT_EQ(nvtxRangePushA("inner"), -2);
  EXPECT_EQ(nvtxRangePop(), -2);
  EXPECT_EQ(nvtxRangePop(), -2);
  EXPECT_EQ(nvtxRangePop(), -2);  // one pop too many: the same answer
  EXPECT_EQ(nvtxRangeStartA("span"), 0u);
  nvtxRangeEnd(0);
  nvtxMarkA("here");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "ex";
  EXPECT_EQ(nvtxRangePushEx(&attributes), -2);
  EXPECT_EQ(nvtxDomainCreateA("lib"), nullptr);
  EXPECT_EQ(attributes.size, 48u);
  EXPECT_TRUE(recorder.events().empty());  // nothing reaches the runtime or below
}

TEST_F(DeviceConfigTest, VersionsAre13000) {
  int runtime = 0, driver = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&runtime), cudaSuccess);
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  EXPECT_EQ(runtime, 13000);
  EXPECT_EQ(driver, 13000);
}

// The occupancy helpers over the simulator's own numbers for a kernel: what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers for each size decides the search.
TEST_F(DeviceConfigTest, MaxPotentialBlockSizeSearchesAsCudaOccupancyDoes) {
  minicuda::detail::ensure_registered<config_kernel>();
  int min_grid = -7, block = -7;
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, config_kernel), cudaSuccess);
  int at_block = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&at_block, config_kernel, block, 0), cudaSuccess);
  EXPECT_EQ(block * at_block, 2048);  // full occupancy, as the H200 reaches for a small kernel
  EXPECT_EQ(block, 1024);             // rt.occMaxPotential.k_simple.value = minGrid=264 block=1024
  EXPECT_EQ(min_grid, 264);
  // A limit of 100 threads. The simulator charges every thread 32 registers, so blocks of up to
  // four warps are held 16 to an SM: 100 threads (1600 resident) beats 96 (1536) and 64 (1024).
  // (The H200's compiled kernel used fewer registers: 32 blocks of 64 filled its SM, and it
  // answered block 64, rt.occMaxPotential.limit100.value.)
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, config_kernel, 0, 100), cudaSuccess);
  EXPECT_EQ(block, 100);
  EXPECT_EQ(min_grid, 16 * 132);
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, config_kernel,
                                                           [](int b) { return static_cast<size_t>(b) * 8; }),
            cudaSuccess);
  EXPECT_EQ(block, 1024);  // rt.occMaxPotentialVar.value
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(static_cast<int*>(nullptr), &block, config_kernel),
            cudaErrorInvalidValue);
}

TEST_F(DeviceConfigTest, AvailableDynamicSharedMemoryPerBlock) {
  minicuda::detail::ensure_registered<config_kernel>();
  size_t avail = 0xdead;
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 1, 128), cudaSuccess);
  EXPECT_EQ(avail, 49152u);  // rt.occAvailDynSmem.1.128.value: the kernel's 48 KiB limit
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 4, 256), cudaSuccess);
  EXPECT_EQ(avail, 49152u);
  // The SM's 233472 bytes split 16 ways, the most blocks of 128 threads it holds at 32 registers a
  // thread (the H200, with fewer registers: 32 blocks of 64 -> 233472 / 32 = 7296, and 33 refused).
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 16, 128), cudaSuccess);
  EXPECT_EQ(avail, 14592u);
  avail = 0xdead;
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 17, 128), cudaErrorInvalidValue);
  EXPECT_EQ(avail, 0xdeadu);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 0, 128), cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 1, 2048), cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, config_kernel, 1, 0), cudaErrorInvalidValue);
  // The H200 crashes here; minicuda refuses.
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(static_cast<size_t*>(nullptr), config_kernel, 1, 128),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace minicuda::testing
