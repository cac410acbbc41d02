// Fault injection (MINICUDA_FAULT, minicuda/fault.h): every rule fails its layer the way the real
// layer fails, the error reaches the runtime translated as it would be, the trace names the
// rule, and nothing is left half-done: the next call works (or, for a GPU error, the context
// stays poisoned until cudaDeviceReset, as after a real one).
#include <gtest/gtest.h>

#include <string>

#include "cuda_runtime.h"
#include "minicuda/fault.h"
#include "minicuda/trace.h"
#include "runtime_fixtures.h"

namespace fault = minicuda::fault;
namespace trace = minicuda::trace;

namespace {

// A fresh process whose runtime is already initialised (so that lazy initialisation's own
// allocations and ioctls are not counted), with the plan cleared before and after.
class FaultInjection : public minicuda::testing::FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    ASSERT_TRUE(fault::set_plan(""));
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  }
  void TearDown() override {
    fault::set_plan("");
    FreshProcess::TearDown();
  }
  size_t free_memory() {
    size_t free = 0, total = 0;
    EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    return free;
  }
};

bool recorded(const trace::Recorder& recorder, const std::string& needle) {
  for (const trace::Event& e : recorder.events()) {
    if (e.text.find(needle) != std::string::npos || e.result.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(FaultPlan, RulesThatParse) {
  for (const char* spec : {"", "alloc", "alloc@3", "alloc@2+", "ioctl:NV_ESC_RM_ALLOC=ENOMEM",
                           "ioctl:NV_ESC_RM_CONTROL@4=NV_ERR_INVALID_ARGUMENT", "gpu=ecc", "gpu@7=illegal_address",
                           " alloc@1 , gpu@2=ecc "}) {
    std::string error;
    EXPECT_TRUE(fault::set_plan(spec, &error)) << spec << ": " << error;
  }
  ASSERT_TRUE(fault::set_plan("alloc@3,gpu@2=ecc"));
  EXPECT_EQ(fault::describe_plan(), "alloc@3 (matched 0 so far)\ngpu@2=ecc (matched 0 so far)");
  fault::set_plan("");
}

TEST(FaultPlan, RulesThatDoNotParseSayWhy) {
  struct Case {
    const char* spec;
    const char* reason;
  };
  for (const Case& c : {Case{"alloc@0", "the count after '@' must be a number >= 1"},
                        Case{"alloc@x", "the count after '@' must be a number"},
                        Case{"alloc=ENOMEM", "alloc takes no '='"},
                        Case{"gpu=melted", "gpu=ecc or gpu=illegal_address"},
                        Case{"ioctl:NV_ESC_RM_ALLOC=EWHAT", "an errno name (ENOMEM) or an RM status"},
                        Case{"ioctl:NV_ESC_RM_ALLOC", "an errno name"},
                        Case{"malloc@1", "a rule is alloc[@N]"}}) {
    std::string error;
    EXPECT_FALSE(fault::set_plan(c.spec, &error)) << c.spec;
    EXPECT_NE(error.find(c.reason), std::string::npos) << c.spec << ": " << error;
    EXPECT_EQ(fault::describe_plan(), "") << "a bad plan leaves no rule behind";
  }
}

TEST_F(FaultInjection, TheNthCuMemAllocRunsOutOfMemory) {
  ASSERT_TRUE(fault::set_plan("alloc@2"));
  trace::Recorder recorder;
  void *a = nullptr, *b = reinterpret_cast<void*>(0x1), *c = nullptr;
  EXPECT_EQ(cudaMalloc(&a, 256), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&b, 256), cudaErrorMemoryAllocation);
  EXPECT_EQ(b, nullptr);  // a failed allocation leaves NULL behind, as a real one does
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaMalloc(&c, 256), cudaSuccess);  // only the 2nd
  EXPECT_TRUE(recorded(recorder, "fault injection (alloc@2): out of memory"));
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(c), cudaSuccess);
}

TEST_F(FaultInjection, EveryAllocationFromTheNthOn) {
  ASSERT_TRUE(fault::set_plan("alloc@2+"));
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(cudaMalloc(&p, 64), cudaErrorMemoryAllocation);
}

// The kernel refuses the ioctl (-ENOMEM) before nvidia.ko sees it; libcuda reads ENOMEM as RM's
// out-of-memory, so a cudaMalloc that needed a new 2 MiB chunk fails, and takes nothing.
TEST_F(FaultInjection, AnIoctlFailsWithAnErrno) {
  const size_t before = free_memory();
  ASSERT_TRUE(fault::set_plan("ioctl:NV_ESC_RM_ALLOC=ENOMEM"));
  trace::Recorder recorder;
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaErrorMemoryAllocation);
  EXPECT_TRUE(recorded(recorder, "-1 ENOMEM"));
  EXPECT_EQ(free_memory(), before);
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaSuccess);  // the rule fired once; the next one works
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(free_memory(), before);
}

// Any other errno is an operating-system error to libcuda (CUDA_ERROR_OPERATING_SYSTEM, 304);
// an interrupted call (EINTR) is made again, as NVIDIA's user-mode RM wrapper does.
TEST_F(FaultInjection, OtherErrnosAreOperatingSystemErrorsAndEintrIsRetried) {
  void* p = nullptr;
  ASSERT_TRUE(fault::set_plan("ioctl:NV_ESC_RM_ALLOC=EIO"));
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaErrorOperatingSystem);
  ASSERT_TRUE(fault::set_plan("ioctl:NV_ESC_RM_ALLOC=EINTR"));
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  ASSERT_TRUE(fault::set_plan("ioctl:NV_ESC_RM_ALLOC@1+=EINTR"));  // every time: bounded, not a hang
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaErrorOperatingSystem);
}

// nvidia.ko runs the escape but RM answers with a status: NV_ERR_NO_MEMORY becomes
// CUDA_ERROR_OUT_OF_MEMORY; a UVM mapping refused with NV_ERR_INVALID_ADDRESS becomes
// CUDA_ERROR_INVALID_VALUE, and libcuda frees the memory it had allocated for the chunk.
TEST_F(FaultInjection, AnIoctlAnswersWithAnRmStatus) {
  const size_t before = free_memory();
  void* p = nullptr;
  ASSERT_TRUE(fault::set_plan("ioctl:NV_ESC_RM_ALLOC=NV_ERR_NO_MEMORY"));
  trace::Recorder recorder;
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaErrorMemoryAllocation);
  EXPECT_TRUE(recorded(recorder, "NV_ESC_RM_ALLOC answers NV_ERR_NO_MEMORY"));
  ASSERT_TRUE(fault::set_plan("ioctl:UVM_MAP_EXTERNAL_ALLOCATION=NV_ERR_INVALID_ADDRESS"));
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaErrorInvalidValue);
  EXPECT_EQ(free_memory(), before) << "the chunk's vidmem went back to RM";
  EXPECT_EQ(cudaMalloc(&p, 4 << 20), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

// The GPU raises an uncorrectable ECC error while it runs the work; the host learns of it at the
// next synchronisation (214), and every later call returns it until the device is reset.
TEST_F(FaultInjection, AnEccErrorArrivesAtTheNextSynchronisationAndIsSticky) {
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  ASSERT_TRUE(fault::set_plan("gpu=ecc"));
  EXPECT_EQ(cudaMemset(d, 0, 4096), cudaSuccess);  // queued: the error comes later
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorECCUncorrectable);
  EXPECT_EQ(cudaGetLastError(), cudaErrorECCUncorrectable);
  void* e = nullptr;
  EXPECT_EQ(cudaMalloc(&e, 16), cudaErrorECCUncorrectable);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorECCUncorrectable);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&e, 16), cudaSuccess);
  EXPECT_EQ(cudaMemset(e, 0, 16), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(FaultInjection, AnIllegalAddressOnTheNthSegment) {
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  ASSERT_TRUE(fault::set_plan("gpu@2=illegal_address"));
  trace::Recorder recorder;
  EXPECT_EQ(cudaMemset(d, 0, 4096), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the 1st segment runs
  EXPECT_EQ(cudaMemset(d, 0, 4096), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_TRUE(recorded(recorder, "injected by gpu@2=illegal_address"));
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

}  // namespace
