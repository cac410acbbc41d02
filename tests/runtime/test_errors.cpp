// The last-error slot and error names/strings (runtime/src/errors.cpp): probe.txt errorString.*,
// probe_extra.txt rt.errorName.*, rt.errorString.*, rt.oom.*.
#include <thread>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using LastErrorTest = FreshProcess;

TEST_F(LastErrorTest, GetResetsPeekDoesNot) {
  EXPECT_EQ(cudaSetDevice(99), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
}

TEST_F(LastErrorTest, SuccessDoesNotClearTheSlotAndLaterErrorsReplaceIt) {
  int n = 0;
  EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(LastErrorTest, OutOfMemoryIsRecordedThenCleared) {
  void* big = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(cudaMalloc(&big, 1ull << 50), cudaErrorMemoryAllocation);  // rt.oom.malloc
  EXPECT_EQ(big, nullptr);                                             // rt.oom.malloc.p = null
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorMemoryAllocation);         // rt.oom.peek
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);            // rt.oom.getlast
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);                       // rt.oom.peek_after_getlast
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 256), cudaSuccess);  // not sticky
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(LastErrorTest, SlotIsPerThread) {
  EXPECT_EQ(cudaSetDevice(99), cudaErrorInvalidDevice);
  cudaError_t seen = cudaErrorUnknown, own = cudaErrorUnknown, after = cudaErrorUnknown;
  std::thread other([&] {
    kernel::ProcessScope same_process(*process_);
    seen = cudaGetLastError();
    own = cudaSetDevice(-1);
    after = cudaPeekAtLastError();
  });
  other.join();
  EXPECT_EQ(seen, cudaSuccess);
  EXPECT_EQ(own, cudaErrorInvalidDevice);
  EXPECT_EQ(after, cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);  // this thread's own error, still there
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

struct Row {
  int code;
  const char* name;
  const char* message;
};

TEST(ErrorNamesTest, MeasuredNamesAndStrings) {
  const Row rows[] = {
      {0, "cudaSuccess", "no error"},                                                        // rt.error*.0
      {1, "cudaErrorInvalidValue", "invalid argument"},                                      // errorString.1
      {2, "cudaErrorMemoryAllocation", "out of memory"},                                     // errorString.2
      {46, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"},  // rt.error*.46
      {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},          // errorString.700
      {10000, "cudaErrorApiFailureBase", "api failure base"},                                // rt.error*.10000
      {9999, "unrecognized error code", "unrecognized error code"},                          // error*.9999
      {-1, "unrecognized error code", "unrecognized error code"},                            // rt.error*.neg1
  };
  for (const Row& row : rows) {
    auto e = static_cast<cudaError_t>(row.code);
    EXPECT_STREQ(cudaGetErrorName(e), row.name) << row.code;
    EXPECT_STREQ(cudaGetErrorString(e), row.message) << row.code;
  }
}

TEST(ErrorNamesTest, NamesOfCodesTheProbesPrint) {
  const Row rows[] = {
      {21, "cudaErrorInvalidMemcpyDirection", nullptr}, {46, "cudaErrorDevicesUnavailable", nullptr},
      {101, "cudaErrorInvalidDevice", nullptr},         {400, "cudaErrorInvalidResourceHandle", nullptr},
      {600, "cudaErrorNotReady", nullptr},              {700, "cudaErrorIllegalAddress", nullptr},
  };
  for (const Row& row : rows) EXPECT_STREQ(cudaGetErrorName(static_cast<cudaError_t>(row.code)), row.name);
}

}  // namespace
}  // namespace minicuda::testing
