// What the stub runtime (cuda_runtime.h here) records, shared with test_cu2cxx_generated.cpp,
// which defines modules().
#pragma once

#include <string>
#include <vector>

namespace cu2cxx_stub {
// One MINICUDA_REGISTER_MODULE: the module's file name and its kernels' names as written.
struct Module {
  std::string file;
  std::vector<std::string> kernels;
};
std::vector<Module>& modules();
}  // namespace cu2cxx_stub
