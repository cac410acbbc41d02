// The CUDA 13 API names minicuda does not build (runtime/src/not_supported.cpp,
// abi/libcuda_not_supported.cpp), called through the shared libraries as a program built by nvcc
// calls them (call_not_supported.cpp): each answers the real "not supported" error (801), the
// runtime's stays in the last-error slot, and the trace names the call.
#include <gtest/gtest.h>

#include <string>

#include "abi_test_support.h"

namespace minicuda::abi_testing {
namespace {

const std::string kProgram = MINICUDA_ABI_CALL_NOT_SUPPORTED;

TEST(AbiNotSupported, CallsAnswer801) {
  CommandResult r = run_command("env -u MINICUDA_TRACE '" + kProgram + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);
  EXPECT_EQ(v["cudaMemPoolExportPointer"], "801");  // cudaErrorNotSupported
  EXPECT_EQ(v["lastError"], "801");
  EXPECT_EQ(v["lastErrorAgain"], "0");
  EXPECT_EQ(v["cuGraphCreate"], "801");  // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_EQ(v["pool"], "null");
  EXPECT_EQ(v["graph"], "null");
}

TEST(AbiNotSupported, TheTraceNamesTheCall) {
  CommandResult r = run_command("env MINICUDA_TRACE=cudart,libcuda '" + kProgram + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("cudaMemPoolExportPointer: not supported by minicuda"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cudaErrorNotSupported"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cuGraphCreate: not supported by minicuda"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CUDA_ERROR_NOT_SUPPORTED"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace minicuda::abi_testing
