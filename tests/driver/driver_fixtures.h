// Shared by the libcuda tests: fixtures that run each test in a fresh simulated process (so
// libcuda starts uninitialised, with an empty pool), a syscall counter, and the H200 probe data.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "cuda.h"
#include "minicuda/kernel.h"
#include "minicuda/trace.h"
#include "probe_extra.h"

namespace minicuda::testing {

// A new simulated process: libcuda's per-process state starts from nothing.
class FreshProcess : public ::testing::Test {
 protected:
  std::unique_ptr<kernel::Process> process_ = kernel::spawn_process();
  kernel::ProcessScope scope_{*process_};
};

// cuInit(0) done.
class Initialized : public FreshProcess {
 protected:
  void SetUp() override { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
};

// cuInit(0), device 0's primary context retained and current (what the probe's mode 1 does).
class Ready : public FreshProcess {
 protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary_, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(primary_), CUDA_SUCCESS);
  }
  size_t free_memory() {
    size_t free = 0, total = 0;
    EXPECT_EQ(cuMemGetInfo_v2(&free, &total), CUDA_SUCCESS);
    return free;
  }
  CUcontext primary_ = nullptr;
};

// System calls (Layer::Kernel scopes) a recording saw.
inline size_t syscalls(const trace::Recorder& recorder) {
  size_t n = 0;
  for (const trace::Event& e : recorder.events()) {
    if (e.layer == trace::Layer::Kernel && e.kind == trace::Kind::Call) ++n;
  }
  return n;
}

}  // namespace minicuda::testing
