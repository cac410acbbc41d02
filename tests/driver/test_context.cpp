// Primary contexts and the current context (driver/user/src/context.cpp), as measured:
// probe_extra.txt drv.noctx.*, drv.primary.*, drv.badctx.*.
#include <thread>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using ContextTest = Initialized;

void expect_state(unsigned want_flags, int want_active) {
  unsigned flags = 777;
  int active = -7;
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(flags, want_flags);
  EXPECT_EQ(active, want_active);
}

TEST_F(ContextTest, GetCurrentIsNullBeforeAnySet) {
  CUcontext c = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_SUCCESS);  // drv.noctx.ctxGetCurrent
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(cuCtxGetCurrent(nullptr), CUDA_ERROR_INVALID_VALUE);  // drv.noctx.ctxGetCurrent.nullArg
}

TEST_F(ContextTest, CallsWithoutAContext) {
  CUdevice d = -7;
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);  // drv.noctx.ctxGetDevice
  EXPECT_EQ(d, -7);
  EXPECT_EQ(cuCtxGetDevice_v2(&d, nullptr), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(d, -7);
  CUdeviceptr p = 0xdead;
  EXPECT_EQ(cuMemAlloc_v2(&p, 256), CUDA_ERROR_INVALID_CONTEXT);  // drv.noctx.memAlloc
  EXPECT_EQ(p, 0u);                                               // .p = 0x0
  size_t f = 0, t = 0;
  EXPECT_EQ(cuMemGetInfo_v2(&f, &t), CUDA_ERROR_INVALID_CONTEXT);  // drv.noctx.memGetInfo
  EXPECT_EQ(cuMemFree_v2(0), CUDA_SUCCESS);                        // drv.noctx.memFree0
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);       // drv.noctx.ctxSynchronize
  unsigned ver = 0;
  EXPECT_EQ(cuCtxGetApiVersion(nullptr, &ver), CUDA_ERROR_INVALID_CONTEXT);  // drv.noctx.ctxGetApiVersion
  EXPECT_EQ(ver, 0u);
  EXPECT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);  // drv.noctx.ctxSetCurrent_null
  CUcontext c = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, nullptr);  // drv.noctx.after_setnull.isNull
}

TEST_F(ContextTest, GetStateArguments) {
  expect_state(0, 0);  // drv.primary.getState_before
  unsigned flags = 0;
  int active = 0;
  EXPECT_EQ(cuDevicePrimaryCtxGetState(1, &flags, &active), CUDA_ERROR_INVALID_DEVICE);  // .getState.dev1
  EXPECT_EQ(cuDevicePrimaryCtxGetState(-1, &flags, &active), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDevicePrimaryCtxGetState(0, nullptr, &active), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDevicePrimaryCtxGetState(0, &flags, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ContextTest, RetainArguments) {
  CUcontext pc = nullptr;
  EXPECT_EQ(cuDevicePrimaryCtxRetain(nullptr, 0), CUDA_ERROR_INVALID_VALUE);  // drv.primary.retain.null
  EXPECT_EQ(cuDevicePrimaryCtxRetain(&pc, 1), CUDA_ERROR_INVALID_DEVICE);     // drv.primary.retain.dev1
  EXPECT_EQ(pc, nullptr);
  expect_state(0, 0);
}

TEST_F(ContextTest, RetainActivatesButDoesNotMakeCurrent) {
  CUcontext pc = nullptr;
  EXPECT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);  // drv.primary.retain
  EXPECT_NE(pc, nullptr);
  expect_state(0, 1);  // drv.primary.getState_after_retain
  CUcontext c = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, nullptr);  // drv.primary.retain_makes_current = 0
  CUdevice d = -7;
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);

  EXPECT_EQ(cuCtxSetCurrent(pc), CUDA_SUCCESS);  // drv.primary.setCurrent
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, pc);
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_SUCCESS);  // drv.primary.ctxGetDevice
  EXPECT_EQ(d, 0);
  d = -7;
  EXPECT_EQ(cuCtxGetDevice_v2(&d, pc), CUDA_SUCCESS);
  EXPECT_EQ(d, 0);
  EXPECT_EQ(cuCtxGetDevice(nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);

  CUcontext again = nullptr;
  EXPECT_EQ(cuDevicePrimaryCtxRetain(&again, 0), CUDA_SUCCESS);
  EXPECT_EQ(again, pc);  // one primary context per device
}

TEST_F(ContextTest, ApiVersion) {
  CUcontext pc = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(pc), CUDA_SUCCESS);
  unsigned ver = 0;
  EXPECT_EQ(cuCtxGetApiVersion(nullptr, &ver), CUDA_SUCCESS);  // drv.primary.ctxGetApiVersion_null
  EXPECT_EQ(ver, 3020u);
  ver = 0;
  EXPECT_EQ(cuCtxGetApiVersion(pc, &ver), CUDA_SUCCESS);  // drv.primary.ctxGetApiVersion_pc
  EXPECT_EQ(ver, 3020u);
  EXPECT_EQ(cuCtxGetApiVersion(pc, nullptr), CUDA_ERROR_INVALID_VALUE);  // .ctxGetApiVersion_nullout
}

TEST_F(ContextTest, RetainReleaseCounts) {
  CUcontext pc = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  expect_state(0, 1);  // one user left
  ASSERT_EQ(cuCtxSetCurrent(pc), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);  // drv.primary.setCurrent_null
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);  // drv.primary.release1
  expect_state(0, 0);                                        // .getState_after_release1
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);  // .release2_extra
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);  // .release3_extra
  expect_state(0, 0);                                                      // .getState_end
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(1), CUDA_ERROR_INVALID_DEVICE);   // .release.dev1
  CUcontext c = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, nullptr);  // drv.primary.end_current_isNull
}

TEST_F(ContextTest, ReleaseWithoutRetainIsInvalidContext) {
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
  expect_state(0, 0);
}

TEST_F(ContextTest, LastReleaseGivesTheResourcesBack) {
  CUcontext pc = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(pc), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(cuMemAlloc_v2(&p, 1 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  size_t open_before = process_->open_files();
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(process_->open_files(), open_before - 2);  // both /dev/nvidia-uvm descriptors
  unsigned type = 777;
  EXPECT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ContextTest, SetCurrentBogusHandleIsInvalidContext) {
  // The real driver crashes here (drv.badctx.child = crashed signal=11); minicuda refuses it.
  EXPECT_EQ(cuCtxSetCurrent(reinterpret_cast<CUcontext>(0x1234)), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext c = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_SUCCESS);
  EXPECT_EQ(c, nullptr);
  CUdevice d = -7;
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);
  CUdeviceptr p = 0xdead;
  EXPECT_EQ(cuMemAlloc_v2(&p, 256), CUDA_ERROR_INVALID_CONTEXT);
  unsigned ver = 0;
  EXPECT_EQ(cuCtxGetApiVersion(reinterpret_cast<CUcontext>(0x1234), &ver), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(ContextTest, ResetTearsDownAndTheNextRetainRebuilds) {
  CUcontext pc = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(pc), CUDA_SUCCESS);
  CUdeviceptr first = 0;
  ASSERT_EQ(cuMemAlloc_v2(&first, 1024), CUDA_SUCCESS);

  EXPECT_EQ(cuDevicePrimaryCtxReset_v2(1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  expect_state(0, 0);
  unsigned type = 777;
  EXPECT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, first), CUDA_ERROR_INVALID_VALUE);

  CUcontext rebuilt = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&rebuilt, 0), CUDA_SUCCESS);
  EXPECT_EQ(rebuilt, pc);
  expect_state(0, 1);
  ASSERT_EQ(cuCtxSetCurrent(rebuilt), CUDA_SUCCESS);
  CUdeviceptr second = 0;
  ASSERT_EQ(cuMemAlloc_v2(&second, 1024), CUDA_SUCCESS);
  EXPECT_EQ(second, first);  // an empty pool again (rt.deviceReset.malloc_after.same_addr_as_first_prereset)
  EXPECT_EQ(cuMemFree_v2(second), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(second), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ContextTest, CurrentContextIsPerThread) {
  CUcontext pc = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&pc, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(pc), CUDA_SUCCESS);
  CUcontext seen = reinterpret_cast<CUcontext>(0x1);
  CUresult r = CUDA_ERROR_UNKNOWN;
  std::thread other([&] {
    kernel::ProcessScope same_process(*process_);
    r = cuCtxGetCurrent(&seen);
  });
  other.join();
  EXPECT_EQ(r, CUDA_SUCCESS);
  EXPECT_EQ(seen, nullptr);
  CUcontext mine = nullptr;
  EXPECT_EQ(cuCtxGetCurrent(&mine), CUDA_SUCCESS);
  EXPECT_EQ(mine, pc);
}

}  // namespace
}  // namespace minicuda::testing

namespace minicuda::testing {
namespace {

// cuCtxCreate: a context of its own, beside the primary one, on the thread's context stack.
TEST_F(ContextTest, CreatedContextsStackAndOwnTheirMemory) {
  CUcontext primary = nullptr, created = nullptr, popped = nullptr, current = nullptr;
  EXPECT_EQ(cuCtxCreate(nullptr, nullptr, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxCreate(&created, nullptr, 0, 7), CUDA_ERROR_INVALID_DEVICE);
  CUctxCreateParams affinity{nullptr, 1, nullptr};
  EXPECT_EQ(cuCtxCreate(&created, &affinity, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate(&created, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, created);
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc(&d, 4096), CUDA_SUCCESS);
  int in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_EQ(cuMemcpyHtoD(d, in, sizeof in), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(out, d, sizeof out), CUDA_SUCCESS);
  EXPECT_EQ(out[3], 4);
  ASSERT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, created);
  ASSERT_EQ(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, primary);
  ASSERT_EQ(cuCtxPushCurrent(created), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy(primary), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxDestroy(created), CUDA_SUCCESS);  // current: popped, the primary is current again
  ASSERT_EQ(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, primary);
  EXPECT_EQ(cuCtxDestroy(created), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxPushCurrent(created), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxPopCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxPopCurrent(nullptr), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::testing
