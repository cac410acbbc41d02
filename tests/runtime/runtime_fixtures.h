// Shared by the libcudart tests: a fixture that runs each test in a fresh simulated process (so
// the runtime and libcuda start uninitialised) with a clear last-error slot, and the H200 probe.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "cuda.h"
#include "cuda_runtime.h"
#include "minicuda/kernel.h"
#include "minicuda/trace.h"
#include "probe_extra.h"

namespace minicuda::testing {

class FreshProcess : public ::testing::Test {
 protected:
  void SetUp() override { (void)cudaGetLastError(); }  // the slot is per host thread
  void TearDown() override { (void)cudaGetLastError(); }
  std::unique_ptr<kernel::Process> process_ = kernel::spawn_process();
  kernel::ProcessScope scope_{*process_};
};

// The primary context state of device 0 as "flags=F active=A" (the probe's format).
inline std::string primary_state() {
  unsigned flags = 777;
  int active = -7;
  CUresult r = cuDevicePrimaryCtxGetState(0, &flags, &active);
  if (r != CUDA_SUCCESS) return "error " + std::to_string(r);
  return "flags=" + std::to_string(flags) + " active=" + std::to_string(active);
}

}  // namespace minicuda::testing
