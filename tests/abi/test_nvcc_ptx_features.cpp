// PTX features of NVIDIA's samples in a program nvcc built (tests/abi/programs/ptx_features.cu),
// run on minicuda's libraries, so its kernels go through the JIT and the SIMT executor:
// cp.async with a pipeline, a cuda::barrier (mbarrier), recursion bounded by cudaLimitStackSize,
// an 8000-byte struct parameter, a cooperative grid's sync and half-precision fma. Skipped when
// nvcc is absent.
#include <gtest/gtest.h>

#include <filesystem>

#include "abi_test_support.h"

namespace minicuda::abi_testing {
namespace {

namespace fs = std::filesystem;

TEST(NvccPtxFeatures, SampleConstructsRunWithTheRightResults) {
  const std::string nvcc = find_nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed (/usr/local/cuda/bin/nvcc or PATH)";
  const std::string work = MINICUDA_ABI_WORK;
  fs::create_directories(work);
  const std::string exe = work + "/ptx_features";
  CommandResult built = run_command("'" + nvcc + "' -arch=sm_90 -cudart shared -o '" + exe + "' '" +
                                    MINICUDA_ABI_PROGRAMS + "/ptx_features.cu'");
  ASSERT_EQ(built.status, 0) << built.output;
  const std::string lib = fs::path(MINICUDA_ABI_LIBCUDART).parent_path().string();
  CommandResult r = run_command("env -u MINICUDA_TRACE CUDA_CACHE_DISABLE=1 LD_LIBRARY_PATH='" + lib + "' '" + exe + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);
  EXPECT_EQ(v["asyncLaunch"], "0") << r.output;
  EXPECT_EQ(v["asyncSync"], "0");
  EXPECT_EQ(v["asyncCopy"], "1");
  EXPECT_EQ(v["barrierSync"], "0");
  EXPECT_EQ(v["barrier"], "1");
  EXPECT_EQ(v["deep20"], "0");
  EXPECT_EQ(v["deep20Value"], "1");
  EXPECT_EQ(v["setStack"], "0");
  EXPECT_EQ(v["deep400"], "0");
  EXPECT_EQ(v["bigSync"], "0");
  EXPECT_EQ(v["bigParam"], "1");
  EXPECT_EQ(v["coopLaunch"], "0");
  EXPECT_EQ(v["coopSync"], "0");
  EXPECT_EQ(v["gridSync"], "1");
  EXPECT_EQ(v["halfSync"], "0");
  EXPECT_EQ(v["halfDot"], "150");
  EXPECT_EQ(v["deepOverflow"], "700");  // cudaErrorIllegalAddress: the stack runs into unmapped memory
}

}  // namespace
}  // namespace minicuda::abi_testing
