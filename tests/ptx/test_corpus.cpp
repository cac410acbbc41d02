// The corpus: nvcc 13's PTX for the project's test kernels (tests/data/ptx/corpus, built from
// src/*.cu by regenerate.sh). Every fixture must compile with an empty error log, and the
// layouts the driver relies on (parameter offsets, shared and global sizes) must be ptxas's.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "minicuda/ptx/ptx.h"

namespace ptx = minicuda::ptx;

namespace {

std::string read(const std::filesystem::path& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ptx::CompileResult compile_corpus(const std::string& name) {
  return ptx::compile(read(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/" + name + ".ptx"), {});
}

TEST(PtxCorpus, EveryFixtureCompilesWithoutDiagnostics) {
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus")) {
    if (e.path().extension() != ".ptx") continue;
    ++count;
    ptx::CompileResult r = ptx::compile(read(e.path()), {});
    EXPECT_EQ(r.status, ptx::Status::Ok) << e.path() << "\n" << r.error_log;
    EXPECT_EQ(r.error_log, "") << e.path();
    EXPECT_FALSE(r.kernels.empty()) << e.path();
    EXPECT_EQ(r.ptx_version_major, 9);
    EXPECT_EQ(r.target_sm, 90);
  }
  EXPECT_GE(count, 8);
}

TEST(PtxCorpus, VectorAddParamsFollowTheCudaParamAbi) {
  ptx::CompileResult r = compile_corpus("vector_add");
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  ASSERT_EQ(r.kernels.size(), 1u);
  const ptx::CompiledKernel& k = r.kernels[0];
  EXPECT_EQ(k.name, "vector_add");
  EXPECT_EQ(k.param_offsets, (std::vector<uint32_t>{0, 8, 16, 24}));
  EXPECT_EQ(k.param_sizes, (std::vector<uint32_t>{8, 8, 8, 4}));
  EXPECT_EQ(k.param_bytes, 28u);
  EXPECT_EQ(k.static_shared_bytes, 0u);
}

TEST(PtxCorpus, SharedTilesAreCountedPerKernel) {
  // matmul: two 16x16 float tiles; transpose: one 32x33 float tile; histogram: 256 counters;
  // the reduction's buffer is extern (dynamic), so 0 static bytes.
  EXPECT_EQ(compile_corpus("matmul_tiled").kernels.at(0).static_shared_bytes, 2u * 16 * 16 * 4);
  EXPECT_EQ(compile_corpus("transpose").kernels.at(0).static_shared_bytes, 32u * 33 * 4);
  EXPECT_EQ(compile_corpus("histogram").kernels.at(0).static_shared_bytes, 256u * 4);
  EXPECT_EQ(compile_corpus("reduction").kernels.at(0).static_shared_bytes, 0u);
}

TEST(PtxCorpus, ConstantAndGlobalVariablesCarryTheirInitializers) {
  ptx::CompileResult r = compile_corpus("math_mix");
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const ptx::CompiledGlobal* coeffs = nullptr;
  const ptx::CompiledGlobal* counter = nullptr;
  for (const auto& g : r.globals) {
    if (g.name == "coeffs") coeffs = &g;
    if (g.name == "counter") counter = &g;
  }
  ASSERT_NE(coeffs, nullptr);
  ASSERT_NE(counter, nullptr);
  EXPECT_TRUE(coeffs->constant);
  EXPECT_EQ(coeffs->size, 16u);
  ASSERT_EQ(coeffs->initializer.size(), 16u);
  float values[4];
  std::memcpy(values, coeffs->initializer.data(), 16);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[3], 0.125f);
  EXPECT_FALSE(counter->constant);
  EXPECT_EQ(counter->size, 4u);
  ASSERT_EQ(counter->initializer.size(), 4u);
  EXPECT_EQ(counter->initializer[0], 7);
}

}  // namespace
