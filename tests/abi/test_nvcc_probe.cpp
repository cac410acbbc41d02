// The H200 probe of the API families (tests/data/h200/probe_api_families.cu), built by NVIDIA's
// nvcc exactly as it was built for the recording, run on minicuda's lib/libcudart.so.13 and
// lib/libcuda.so.1: every line it prints must be the recorded one (probe_api_families.txt). Its
// kernels are nvcc's (PTX the driver JIT-compiles), so this covers the calls that take nvcc's
// kernel handles and variables: cudaFuncGetAttributes, cudaFuncSetCacheConfig, the occupancy
// calculator (cudaOccupancyMaxPotentialBlockSize is the real header's template), the symbol
// copies, cudaGetFuncBySymbol and the cuFunc*/cuOccupancy* calls on its answer. The one value that
// may differ is a kernel's register count, which is the JIT's allocation, not ptxas's. Skipped
// when nvcc is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "abi_test_support.h"

namespace minicuda::abi_testing {
namespace {

namespace fs = std::filesystem;

// "key = value" lines, without # comments.
std::map<std::string, std::string> probe_lines(const std::string& text) {
  std::map<std::string, std::string> m;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find(" = ");
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    m.emplace(line.substr(0, eq), line.substr(eq + 3));
  }
  return m;
}

TEST(NvccProbe, ApiFamiliesAnswerAsTheH200Did) {
  const std::string nvcc = find_nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed (/usr/local/cuda/bin/nvcc or PATH)";
  const std::string lib_dir = fs::path(MINICUDA_ABI_LIBCUDART).parent_path().string();
  const std::string source = std::string(MINICUDA_H200_DATA) + "/probe_api_families.cu";
  fs::create_directories(MINICUDA_ABI_WORK);
  const std::string exe = std::string(MINICUDA_ABI_WORK) + "/probe_api_families";
  CommandResult built = run_command("'" + nvcc + "' -cudart shared -arch=sm_90 -o '" + exe + "' '" + source + "' -L'" +
                                    lib_dir + "' -lcuda");
  ASSERT_EQ(built.status, 0) << built.output;
  CommandResult r = run_command("env -u MINICUDA_TRACE -u MINICUDA_TRACE_FILE LD_LIBRARY_PATH='" + lib_dir + "' '" +
                                exe + "'");
  ASSERT_EQ(r.status, 0) << r.output;

  const auto recorded = probe_lines(read_text(std::string(MINICUDA_H200_DATA) + "/probe_api_families.txt"));
  const auto seen = probe_lines(r.output);
  ASSERT_GE(recorded.size(), 400u);
  // numRegs=12 on the H200 (ptxas); the JIT allocates its own registers.
  const std::regex regs("numRegs=[0-9]+");
  for (const auto& [key, value] : recorded) {
    auto it = seen.find(key);
    ASSERT_NE(it, seen.end()) << key << " was not printed";
    EXPECT_EQ(std::regex_replace(it->second, regs, "numRegs=N"), std::regex_replace(value, regs, "numRegs=N")) << key;
  }
}

}  // namespace
}  // namespace minicuda::abi_testing
