// Context configuration, PCI ids, profiler markers, occupancy helpers and pitched memory in
// libcuda (ctx_config.cpp, device.cpp, occupancy.cpp, copy2d.cpp), against the H200's answers
// (tests/data/h200/probe_api_families.txt, drv.* keys in comments).
#include <cstring>
#include <string>
#include <vector>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using CtxConfigTest = Ready;

TEST_F(CtxConfigTest, LimitsDefaultsRulesAndErrors) {
  size_t v = 0xdead;
  const size_t defaults[] = {1024, 8650752, 8388608, 0, 2048, 64, 11796480, 232448, 0};
  for (int l = 0; l <= 8; ++l) {
    if (l == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) {
      EXPECT_EQ(cuCtxGetLimit(&v, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH), CUDA_ERROR_UNSUPPORTED_LIMIT);
      continue;
    }
    ASSERT_EQ(cuCtxGetLimit(&v, static_cast<CUlimit>(l)), CUDA_SUCCESS) << l;
    EXPECT_EQ(v, defaults[l]) << l;
  }
  EXPECT_EQ(cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxGetLimit(&v, static_cast<CUlimit>(99)), CUDA_ERROR_INVALID_VALUE);  // drv.ctxGetLimit.99v
  EXPECT_EQ(cuCtxSetLimit(static_cast<CUlimit>(99), 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_SHMEM_SIZE, 0), CUDA_ERROR_NOT_PERMITTED);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 0), CUDA_ERROR_NOT_PERMITTED);
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2000), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 2000u);  // drv.ctxSetLimit.stack.2000.get
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 3932161), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 2u * 3932160);  // the next twelfth of 45 MiB
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 47185921), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 47185920), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, (512 << 10) + 1), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CtxConfigTest, CacheBankAndContextFlags) {
  CUfunc_cache c = static_cast<CUfunc_cache>(77);
  ASSERT_EQ(cuCtxGetCacheConfig(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, CU_FUNC_CACHE_PREFER_NONE);  // drv.ctxGetCacheConfig.value
  EXPECT_EQ(cuCtxSetCacheConfig(static_cast<CUfunc_cache>(5)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxGetCacheConfig(nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCacheConfig(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, CU_FUNC_CACHE_PREFER_L1);
  CUsharedconfig bank = static_cast<CUsharedconfig>(77);
  ASSERT_EQ(cuCtxGetSharedMemConfig(&bank), CUDA_SUCCESS);
  EXPECT_EQ(bank, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);  // drv.ctxGetSharedMemConfig.value
  unsigned flags = 0;
  ASSERT_EQ(cuCtxGetFlags(&flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, unsigned{CU_CTX_MAP_HOST});
  EXPECT_EQ(cuDevicePrimaryCtxSetFlags_v2(0, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDevicePrimaryCtxSetFlags_v2(0, 0x100), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDevicePrimaryCtxSetFlags_v2(1, 0), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_EQ(cuDevicePrimaryCtxSetFlags_v2(0, CU_CTX_SCHED_BLOCKING_SYNC), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetFlags(&flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, unsigned{CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST});
  int active = 0;
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(flags, unsigned{CU_CTX_SCHED_BLOCKING_SYNC});
}

TEST_F(CtxConfigTest, PciBusIdsAndProfilerMarkers) {
  char bus[64];
  ASSERT_EQ(cuDeviceGetPCIBusId(bus, sizeof bus, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::string(bus), "0000:00:06.0");  // drv.deviceGetPCIBusId.value
  EXPECT_EQ(cuDeviceGetPCIBusId(bus, 5, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetPCIBusId(bus, 64, 1), CUDA_ERROR_INVALID_DEVICE);
  CUdevice dev = -7;
  ASSERT_EQ(cuDeviceGetByPCIBusId(&dev, "0000:00:06.0"), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, "0000:ff:1f.0"), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, "junk"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuProfilerStart(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStop(), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(CtxConfigTest, AllocPitchTakesFourEightOrSixteenByteElements) {
  const unsigned bad[] = {1, 2, 3, 32};  // drv.memAllocPitch.eN
  for (unsigned e : bad) {
    CUdeviceptr p = 1;
    size_t pitch = 1;
    EXPECT_EQ(cuMemAllocPitch_v2(&p, &pitch, 100, 10, e), CUDA_ERROR_INVALID_VALUE) << e;
    EXPECT_EQ(pitch, 0u);
  }
  for (unsigned e : {4u, 8u, 16u}) {
    CUdeviceptr p = 0;
    size_t pitch = 0;
    ASSERT_EQ(cuMemAllocPitch_v2(&p, &pitch, 100, 10, e), CUDA_SUCCESS) << e;
    EXPECT_EQ(pitch, 512u);
    EXPECT_EQ(cuMemFree_v2(p), CUDA_SUCCESS);
  }
}

TEST_F(CtxConfigTest, Copy2DAnd3DDescriptorsAndMemsetD2D) {
  constexpr size_t W = 100, H = 8;
  CUdeviceptr d = 0;
  size_t pitch = 0;
  ASSERT_EQ(cuMemAllocPitch_v2(&d, &pitch, W, H, 4), CUDA_SUCCESS);
  std::vector<char> host(W * H), back(W * H);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<char>(i);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = host.data();
  c.srcPitch = W;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = d;
  c.dstPitch = pitch;
  c.WidthInBytes = W;
  c.Height = H;
  ASSERT_EQ(cuMemcpy2D_v2(&c), CUDA_SUCCESS);
  CUDA_MEMCPY2D r{};
  r.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  r.srcDevice = d;
  r.srcPitch = pitch;
  r.dstMemoryType = CU_MEMORYTYPE_HOST;
  r.dstHost = back.data();
  r.dstPitch = W;
  r.WidthInBytes = W;
  r.Height = H;
  ASSERT_EQ(cuMemcpy2DUnaligned_v2(&r), CUDA_SUCCESS);
  EXPECT_EQ(host, back);
  CUDA_MEMCPY2D bad = c;
  bad.dstPitch = 50;
  EXPECT_EQ(cuMemcpy2D_v2(&bad), CUDA_ERROR_INVALID_VALUE);  // drv.memcpy2D.dpitch_lt_width
  bad = c;
  bad.srcMemoryType = static_cast<CUmemorytype>(9);
  EXPECT_EQ(cuMemcpy2D_v2(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  EXPECT_EQ(cuMemcpy2D_v2(&bad), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy2D_v2(nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemcpy2DAsync_v2(&c, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);

  CUDA_MEMCPY3D c3{};
  c3.srcMemoryType = CU_MEMORYTYPE_HOST;
  c3.srcHost = host.data();
  c3.srcPitch = W / 2;
  c3.srcHeight = 4;
  c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.dstDevice = d;
  c3.dstPitch = pitch;
  c3.dstHeight = 4;
  c3.WidthInBytes = W / 2;
  c3.Height = 4;
  c3.Depth = 2;
  c3.reserved0 = reinterpret_cast<void*>(1);  // ignored (drv.memcpy3D.reserved0)
  ASSERT_EQ(cuMemcpy3D_v2(&c3), CUDA_SUCCESS);
  char at = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&at, d + 5 * pitch + 3, 1), CUDA_SUCCESS);  // slice 1, row 1
  EXPECT_EQ(at, host[5 * (W / 2) + 3]);
  CUDA_MEMCPY3D bad3 = c3;
  bad3.srcHeight = 2;
  EXPECT_EQ(cuMemcpy3D_v2(&bad3), CUDA_ERROR_INVALID_VALUE);  // drv.memcpy3D.srcHeight_lt
  ASSERT_EQ(cuMemcpy3DAsync_v2(&c3, nullptr), CUDA_SUCCESS);

  ASSERT_EQ(cuMemsetD2D32_v2(d, pitch, 0x01020304u, W / 4, H), CUDA_SUCCESS);
  unsigned word = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&word, d + 7 * pitch + 96, 4), CUDA_SUCCESS);
  EXPECT_EQ(word, 0x01020304u);
  EXPECT_EQ(cuMemsetD2D8_v2(d, 50, 1, W, H), CUDA_ERROR_INVALID_VALUE);  // drv.memsetD2D8.pitch_lt
  EXPECT_EQ(cuMemsetD2D16_v2(d + 1, pitch, 1, 2, 2), CUDA_ERROR_INVALID_VALUE);  // misaligned
  ASSERT_EQ(cuMemsetD2D8Async(d, pitch, 7, W, H, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(&at, d + 7 * pitch + W - 1, 1), CUDA_SUCCESS);
  EXPECT_EQ(at, 7);
}

}  // namespace
}  // namespace minicuda::testing
