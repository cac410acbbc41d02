// End-to-end check of cu2cxx's output: data/sample.cu, translated at build time by
// minicuda_cu2cxx_sources() (cmake/MinicudaCuda.cmake) and compiled against the stub runtime in
// data/stub/, is linked into this test. It checks that the launches ran with their
// configurations, that the module registered exactly its non-template, non-overloaded kernels,
// that __LINE__ / __FILE__ inside the translation still name the .cu, and that the translation
// is compiled with MINICUDA_CU_SOURCE defined.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

// From the translated sample.cu.
void run_sample(int* ints, float* floats, int n);
int line_marker();
bool compiled_as_cu_source();

#include "cu2cxx_stub.h"

// The stub runtime's record of registered modules (data/stub/cu2cxx_stub.h).
std::vector<cu2cxx_stub::Module>& cu2cxx_stub::modules() {
  static std::vector<Module> all;
  return all;
}

namespace {

// The 1-based line of the first line of `path` containing `marker`, or 0.
int line_containing(const std::string& path, const std::string& marker) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find(marker) != std::string::npos) return number;
  }
  return 0;
}

TEST(Cu2cxxGenerated, LaunchesRunTheKernels) {
  int ints[4] = {0, 0, 2, 0};
  float floats[3] = {1.5f, 0.0f, 0.0f};
  run_sample(ints, floats, 1);
  EXPECT_EQ(ints[0], 10);  // fill: twice(5), from the .cuh next to the .cu
  EXPECT_EQ(ints[1], 7);   // with_shared: through extern __shared__ in the kernel, and casts
  EXPECT_EQ(ints[2], 6);   // scale<int, 3>
  EXPECT_EQ(ints[3], 1);   // is_null: launched with a literal 0
  EXPECT_EQ(floats[1], 3.0f);
  EXPECT_EQ(floats[2], 2.5f);  // through_file_scope: extern __shared__ at namespace scope
}

TEST(Cu2cxxGenerated, CompiledWithTheCuSourceDefinition) { EXPECT_TRUE(compiled_as_cu_source()); }

TEST(Cu2cxxGenerated, RegistersTheModulesKernels) {
  const auto& modules = cu2cxx_stub::modules();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].file, "sample.cu");
  EXPECT_EQ(modules[0].kernels,
            (std::vector<std::string>{"::sample::fill", "::sample::with_shared",
                                      "::sample::through_file_scope", "::is_null", "::vector_add"}));
}

TEST(Cu2cxxGenerated, LineNumbersAreTheCuFiles) {
  const int expected = line_containing(MINICUDA_SAMPLE_CU, "LINE_MARKER");
  ASSERT_GT(expected, 0);
  EXPECT_EQ(line_marker(), expected);
}

}  // namespace
