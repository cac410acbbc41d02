// cuInit and cuDriverGetVersion (driver/user/src/init.cpp), and CUDA_ERROR_NOT_INITIALIZED from every
// entry point that needs cuInit (probe_extra.txt: drv.preinit.*, drv.init.*).
#include <cstdlib>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using InitTest = FreshProcess;

TEST_F(InitTest, DriverGetVersionNeedsNoInit) {
  int v = -7;
  EXPECT_EQ(cuDriverGetVersion(&v), CUDA_SUCCESS);  // drv.preinit.driverGetVersion
  EXPECT_EQ(v, 13000);
  EXPECT_EQ(cuDriverGetVersion(nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(InitTest, ModuleLoadingModeIsLazyUnlessCudaModuleLoadingSaysEager) {
  CUmoduleLoadingMode mode = static_cast<CUmoduleLoadingMode>(0);
  EXPECT_EQ(cuModuleGetLoadingMode(&mode), CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetLoadingMode(nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, CU_MODULE_LAZY_LOADING);  // the default since CUDA 12.2
  // The variable is read at cuInit: another process started with it set sees EAGER.
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  auto other = kernel::spawn_process();
  {
    kernel::ProcessScope in_other(*other);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
    EXPECT_EQ(mode, CU_MODULE_EAGER_LOADING);
  }
  unsetenv("CUDA_MODULE_LOADING");
}

TEST_F(InitTest, DriverGetVersionAfterInit) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  int v = -7;
  EXPECT_EQ(cuDriverGetVersion(nullptr), CUDA_ERROR_INVALID_VALUE);  // drv.driverGetVersion.null
  EXPECT_EQ(cuDriverGetVersion(&v), CUDA_SUCCESS);
  EXPECT_EQ(v, 13000);
}

TEST_F(InitTest, DeviceQueriesBeforeInitAreNotInitializedAndWriteNothing) {
  int n = -7;
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);  // drv.preinit.deviceGetCount
  EXPECT_EQ(n, -7);
  CUdevice d = -7;
  EXPECT_EQ(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);  // drv.preinit.deviceGet0
  EXPECT_EQ(d, -7);
  char name[64] = "untouched";
  EXPECT_EQ(cuDeviceGetName(name, sizeof name, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_STREQ(name, "untouched");
  size_t bytes = 7;
  EXPECT_EQ(cuDeviceTotalMem_v2(&bytes, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(bytes, 7u);
  int v = -7;
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(v, -7);
  CUuuid uuid{};
  EXPECT_EQ(cuDeviceGetUuid_v2(&uuid, 0), CUDA_ERROR_NOT_INITIALIZED);
}

TEST_F(InitTest, ContextCallsBeforeInitAreNotInitialized) {
  CUcontext c = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);  // drv.preinit.ctxGetCurrent
  EXPECT_EQ(c, reinterpret_cast<CUcontext>(0x1));              // .ctx = untouched
  EXPECT_EQ(cuCtxSetCurrent(nullptr), CUDA_ERROR_NOT_INITIALIZED);
  CUdevice d = -7;
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuCtxGetDevice_v2(&d, nullptr), CUDA_ERROR_NOT_INITIALIZED);
  unsigned ver = 0;
  EXPECT_EQ(cuCtxGetApiVersion(nullptr, &ver), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuCtxSynchronize_v2(nullptr), CUDA_ERROR_NOT_INITIALIZED);
  CUcontext pctx = nullptr;
  EXPECT_EQ(cuDevicePrimaryCtxRetain(&pctx, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(pctx, nullptr);
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_ERROR_NOT_INITIALIZED);
  unsigned flags = 777;
  int active = -7;
  EXPECT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(flags, 777u);
  EXPECT_EQ(active, -7);
}

TEST_F(InitTest, MemoryCallsBeforeInitAreNotInitialized) {
  CUdeviceptr p = 0xdead;
  EXPECT_EQ(cuMemAlloc_v2(&p, 256), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(p, 0u);  // a failed allocation leaves 0 behind
  EXPECT_EQ(cuMemFree_v2(0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuMemFree_v2(0x1234), CUDA_ERROR_NOT_INITIALIZED);
  size_t f = 0, t = 0;
  EXPECT_EQ(cuMemGetInfo_v2(&f, &t), CUDA_ERROR_NOT_INITIALIZED);
  void* h = nullptr;
  EXPECT_EQ(cuMemHostAlloc(&h, 4096, 0), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuMemAllocHost_v2(&h, 4096), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(cuMemFreeHost(nullptr), CUDA_ERROR_NOT_INITIALIZED);
  unsigned type = 777;
  EXPECT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0x1234), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(type, 777u);
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE};
  void* data[] = {&type};
  EXPECT_EQ(cuPointerGetAttributes(1, which, data, 0x1234), CUDA_ERROR_NOT_INITIALIZED);
}

TEST_F(InitTest, NonZeroFlagsAreInvalidAndDoNotInitialize) {
  EXPECT_EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE);  // drv.init.flags1
  int n = -7;
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);              // drv.init.0
  EXPECT_EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE);  // drv.init.flags1_after
  EXPECT_EQ(cuInit(0x80000000u), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);              // drv.init.0_again
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
  EXPECT_EQ(n, 1);
}

TEST_F(InitTest, FirstInitTalksToTheKernelLaterOnesDoNot) {
  trace::Recorder first;
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  std::vector<std::string> calls = first.texts(trace::Layer::Kernel);
  ASSERT_FALSE(calls.empty());
  EXPECT_NE(calls.front().find("/dev/nvidiactl"), std::string::npos) << calls.front();

  trace::Recorder again;
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(syscalls(again), 0u);
}

TEST_F(InitTest, EachProcessInitialisesItsOwnDriver) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  auto other = kernel::spawn_process();
  kernel::ProcessScope in_other(*other);
  int n = -7;
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
  EXPECT_EQ(n, 1);
}

}  // namespace
}  // namespace minicuda::testing
