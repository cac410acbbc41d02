// ptx_module.h: the PTX files of tests/data compiled by libcuda's JIT compiler (minicuda::ptx),
// for the tests that run their SASS on the SIMT executor directly (sass_builder.h).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "minicuda/ptx/ptx.h"

namespace minicuda::gpu::testing {

// The whole text of the file at `path` ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The file at `path` compiled with the default options.
inline minicuda::ptx::CompileResult compile_ptx_file(const std::string& path) {
  return minicuda::ptx::compile(read_text(path), {});
}

}  // namespace minicuda::gpu::testing
