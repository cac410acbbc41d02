// Shared by the .cu tests of region fission: how the compute engine ran a split kernel (the trace
// note its launch leaves) and how a split kernel runs in this process (MINICUDA_FISSION).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "minicuda/trace.h"

namespace minicuda::kernels_test {

// How the compute engine ran `kernel` (its trace note): "regions", "fibers" (a block function
// ignored under MINICUDA_FISSION=0), "both" (MINICUDA_FISSION=check), or "" (no block function:
// loop mode and fibers).
inline std::string mode_in(const trace::Recorder& recorder, const std::string& kernel) {
  const std::string key = kernel + " runs as ";
  for (const std::string& text : recorder.texts(trace::Layer::Gpu)) {
    const std::size_t at = text.find(key);
    if (at != std::string::npos) return text.substr(at + key.size(), text.find(' ', at + key.size()) - at - key.size());
  }
  return "";
}

// Runs `launch`, waits for the device, and returns how `kernel` ran.
template <class Launch>
std::string mode_of(const std::string& kernel, Launch launch) {
  trace::Recorder recorder;
  launch();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return mode_in(recorder, kernel);
}

// The mode a split kernel runs in, in this process.
inline std::string split_mode() {
  const char* env = std::getenv("MINICUDA_FISSION");
  if (env != nullptr && std::string(env) == "0") return "fibers";
  if (env != nullptr && std::string(env) == "check") return "both";
  return "regions";
}

}  // namespace minicuda::kernels_test
