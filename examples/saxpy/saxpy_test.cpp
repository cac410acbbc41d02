// saxpy_test.cpp: GoogleTest tests of the saxpy kernel, run on minicuda's simulated GPU.
//
// Each test starts from a fresh device: the fixture resets it after every test, so an error
// that one test provokes on purpose (a sticky 700) never leaks into the next.
// Two tests need an environment the CTest entries set (CMakeLists.txt):
//   MINICUDA_FAULT=alloc@2   the second cudaMalloc of the process fails (an error path)
//   MINICUDA_MEMCHECK=1      every allocation ends at an unmapped guard (an overrun faults)
// and are skipped without it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "saxpy.h"

namespace {

class Saxpy : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(cudaDeviceReset(), cudaSuccess); }
};

bool env_is(const char* name, const char* value) {
  const char* set = std::getenv(name);
  return set != nullptr && std::string(set) == value;
}

TEST_F(Saxpy, ComputesAXPlusY) {
  const int n = 1000;  // not a multiple of the block size: the last block is partly idle
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
  ASSERT_EQ(saxpy(n, 2.0f, x.data(), y.data()), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(y[i], 2.0f * float(i) + 1.0f) << "at " << i;
}

TEST_F(Saxpy, ZeroElementsChangeNothing) {
  float y = 5.0f;
  EXPECT_EQ(saxpy(0, 2.0f, nullptr, &y), cudaSuccess);
  EXPECT_EQ(y, 5.0f);
}

TEST_F(Saxpy, MoreThreadsPerBlockThanTheGpuHasIsALaunchError) {
  float *d_x = nullptr, *d_y = nullptr;
  ASSERT_EQ(cudaMalloc(&d_x, 4096 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_y, 4096 * sizeof(float)), cudaSuccess);
  // 2048 threads in a block: more than the 1024 every GPU allows. CUDA 13 reports it at launch
  // as cudaErrorInvalidValue (older toolkits said cudaErrorInvalidConfiguration); not sticky.
  EXPECT_EQ(saxpy_on_device(4096, 1.0f, d_x, d_y, 2048), cudaErrorInvalidValue);
  EXPECT_EQ(saxpy_on_device(4096, 1.0f, d_x, d_y, 256), cudaSuccess);
  EXPECT_EQ(cudaFree(d_x), cudaSuccess);
  EXPECT_EQ(cudaFree(d_y), cudaSuccess);
}

TEST_F(Saxpy, NullOutputIsAnIllegalAddressUntilReset) {
  float* d_x = nullptr;
  ASSERT_EQ(cudaMalloc(&d_x, 256 * sizeof(float)), cudaSuccess);
  EXPECT_EQ(saxpy_on_device(256, 1.0f, d_x, nullptr, 256), cudaErrorIllegalAddress);
  // The context is poisoned: every later call fails the same way ...
  float* d_y = nullptr;
  EXPECT_EQ(cudaMalloc(&d_y, 16), cudaErrorIllegalAddress);
  // ... until the device is reset, which the fixture does too.
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&d_y, 16), cudaSuccess);
  EXPECT_EQ(cudaFree(d_y), cudaSuccess);
}

// ctest -R saxpy_fault: MINICUDA_FAULT=alloc@2, so saxpy's second cudaMalloc (d_y) fails.
TEST_F(Saxpy, FaultInjectedOutOfMemoryIsReturnedAndYIsUntouched) {
  if (!env_is("MINICUDA_FAULT", "alloc@2")) GTEST_SKIP() << "needs MINICUDA_FAULT=alloc@2";
  std::vector<float> x(64, 1.0f), y(64, 3.0f);
  EXPECT_EQ(saxpy(64, 2.0f, x.data(), y.data()), cudaErrorMemoryAllocation);
  for (float value : y) EXPECT_EQ(value, 3.0f);
  // As on a real GPU, the failed cudaMalloc also left its error in the last-error slot: had
  // nobody read it, the next launch's cudaGetLastError() would return it.
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  // The injected failure is not sticky: the next attempt (the third allocation on) works.
  EXPECT_EQ(saxpy(64, 2.0f, x.data(), y.data()), cudaSuccess);
  EXPECT_EQ(y[0], 5.0f);
}

// ctest -R saxpy_memcheck: MINICUDA_MEMCHECK=1, so the first float past d_y is unmapped.
TEST_F(Saxpy, MemcheckFindsTheMissingBoundsCheck) {
  if (!env_is("MINICUDA_MEMCHECK", "1")) GTEST_SKIP() << "needs MINICUDA_MEMCHECK=1";
  const int n = 1000;
  float *d_x = nullptr, *d_y = nullptr;
  ASSERT_EQ(cudaMalloc(&d_x, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_y, n * sizeof(float)), cudaSuccess);
  // 4 blocks of 256 = 1024 threads for 1000 elements: threads 1000..1023 overrun both arrays.
  EXPECT_EQ(saxpy_on_device_unchecked(n, 1.0f, d_x, d_y, 256), cudaErrorIllegalAddress);
}

}  // namespace
