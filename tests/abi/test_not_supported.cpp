// The CUDA 13 API names minicuda does not build: every name of abi/cuda13_*_api.txt has a weak
// definition in the shared libraries (abi/not_supported.cpp.in) that the library's own strong
// definition replaces. Called through the shared libraries as a program built by nvcc calls them
// (call_not_supported.cpp), each unbuilt one answers the real "not supported" error (801), the
// runtime's stays in the last-error slot, and the trace names the call.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "abi_test_support.h"

namespace minicuda::abi_testing {
namespace {

const std::string kProgram = MINICUDA_ABI_CALL_NOT_SUPPORTED;

TEST(AbiNotSupported, CallsAnswer801) {
  CommandResult r = run_command("env -u MINICUDA_TRACE '" + kProgram + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);
  EXPECT_EQ(v["cudaGraphicsMapResources"], "801");  // cudaErrorNotSupported
  EXPECT_EQ(v["lastError"], "801");
  EXPECT_EQ(v["lastErrorAgain"], "0");
  EXPECT_EQ(v["cuGraphicsMapResources"], "801");  // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_EQ(v["runtimeResource"], "0");
  EXPECT_EQ(v["driverResource"], "0");
}

TEST(AbiNotSupported, TheTraceNamesTheCall) {
  CommandResult r = run_command("env MINICUDA_TRACE=cudart,libcuda '" + kProgram + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cudaGraphicsMapResources: not supported by minicuda"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cudaErrorNotSupported"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cuGraphicsMapResources: not supported by minicuda"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CUDA_ERROR_NOT_SUPPORTED"), std::string::npos) << r.output;
}

// The binding of each dynamic symbol a library defines ("GLOBAL" or "WEAK"), by name without
// its version, as readelf --dyn-syms prints it.
std::map<std::string, std::string> bindings(const std::string& library) {
  CommandResult r = run_command("readelf -W --dyn-syms '" + library + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  std::map<std::string, std::string> m;
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(fields >> num >> value >> size >> type >> bind >> vis >> ndx >> name) || ndx == "UND") continue;
    m[name.substr(0, name.find('@'))] = bind;
  }
  return m;
}

// What minicuda builds is the library's strong definition; only the rest is the weak one.
TEST(AbiNotSupported, BuiltCallsAreStrongAndTheRestWeak) {
  auto rt = bindings(MINICUDA_ABI_LIBCUDART);
  EXPECT_EQ(rt["cudaMalloc"], "GLOBAL");
  EXPECT_EQ(rt["cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"], "GLOBAL");
  EXPECT_EQ(rt["cudaGetFuncBySymbol"], "GLOBAL");
  EXPECT_EQ(rt["cudaGraphicsMapResources"], "WEAK");
  auto drv = bindings(MINICUDA_ABI_LIBCUDA);
  EXPECT_EQ(drv["cuMemAlloc_v2"], "GLOBAL");
  EXPECT_EQ(drv["cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"], "GLOBAL");
  EXPECT_EQ(drv["cuGraphicsMapResources"], "WEAK");
}

}  // namespace
}  // namespace minicuda::abi_testing
