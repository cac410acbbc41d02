// A fresh simulated process on a machine of two simulated H200s (MINICUDA_DEVICES=2, which CMake
// also sets for these executables; set here too, so that a direct run behaves the same), with
// every GPU visible.
#pragma once

#include <cstdlib>
#include <memory>

#include "runtime_fixtures.h"

namespace minicuda::testing {

class TwoGpuProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("MINICUDA_DEVICES", "2", 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
    process_ = kernel::spawn_process();
    scope_ = std::make_unique<kernel::ProcessScope>(*process_);
  }
  std::unique_ptr<kernel::Process> process_;
  std::unique_ptr<kernel::ProcessScope> scope_;
};

}  // namespace minicuda::testing
