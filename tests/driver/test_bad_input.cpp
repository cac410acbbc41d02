// Bad input at the driver calls that neither the H200 probes (tests/conformance) nor the other
// unit files already cover: each gets the error its contract in cuda.h names, and changes
// nothing.
#include <cstring>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using BadInput = Ready;

TEST_F(BadInput, ExportTable) {
  const void* table = nullptr;
  EXPECT_EQ(cuGetExportTable(nullptr, &CU_ETID_MinicudaRuntime), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetExportTable(&table, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUuuid unknown{};
  std::memset(unknown.bytes, 0x5a, sizeof unknown.bytes);
  EXPECT_EQ(cuGetExportTable(&table, &unknown), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(table, nullptr);
  ASSERT_EQ(cuGetExportTable(&table, &CU_ETID_MinicudaRuntime), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<const CUetblMinicudaRuntime*>(table)->size, sizeof(CUetblMinicudaRuntime));
}

TEST_F(BadInput, StreamPriorityAndFlags) {
  CUstream s = nullptr;
  ASSERT_EQ(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -3), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamCreateWithPriority(nullptr, 0, 0), CUDA_ERROR_INVALID_VALUE);
  int priority = 7;
  EXPECT_EQ(cuStreamGetPriority(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamGetPriority(reinterpret_cast<CUstream>(0x1234), &priority), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(priority, 7);
  ASSERT_EQ(cuStreamGetPriority(s, &priority), CUDA_SUCCESS);
  EXPECT_EQ(priority, -3);
  unsigned flags = 9;
  EXPECT_EQ(cuStreamGetFlags(reinterpret_cast<CUstream>(0x1234), &flags), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamGetPriority(s, &priority), CUDA_ERROR_INVALID_HANDLE);  // destroyed
}

TEST_F(BadInput, KernelGetFunction) {
  CUfunction f = nullptr;
  EXPECT_EQ(cuKernelGetFunction(nullptr, reinterpret_cast<CUkernel>(0x1234)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuKernelGetFunction(&f, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuKernelGetFunction(&f, reinterpret_cast<CUkernel>(0x1234)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(f, nullptr);
}

TEST_F(BadInput, AsyncCallsOnAMadeUpStream) {
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc_v2(&d, 256), CUDA_SUCCESS);
  const CUstream bogus = reinterpret_cast<CUstream>(0x1234);
  EXPECT_EQ(cuMemcpyAsync(d, d + 128, 64, bogus), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuMemsetD8Async(d, 1, 64, bogus), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchHostFunc(bogus, [](void*) {}, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamAddCallback(bogus, [](CUstream, CUresult, void*) {}, nullptr, 0), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamSynchronize(bogus), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);  // nothing was queued
  EXPECT_EQ(cuMemFree_v2(d), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::testing
