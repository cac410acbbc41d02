// cu2cxx and `__cluster_dims__` (tools/cu2cxx/cluster_dims.cpp; docs/clusters.md): the attribute
// leaves the source (lines kept) and becomes the kernel's registered cluster shape; where it
// cannot (a template kernel) the translation fails naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "translate.h"

namespace {

using minicuda::cu2cxx::Translation;
using minicuda::cu2cxx::translate;

TEST(Cu2cxxClusterDims, BecomesTheRegisteredShape) {
  const std::string source =
      "__global__ void __cluster_dims__(2, 1,\n 1) pairs(int* p) { p[0] = 1; }\n"
      "__global__ void plain(int* p) { p[0] = 2; }\n";
  const Translation t = translate(source, "/src/c.cu");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.text.find("__cluster_dims__("), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("__global__ void /* __cluster_dims__ */\n pairs(int* p)"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("::minicuda::detail::with_cluster_dims(MINICUDA_KERNEL(::pairs), 2, 1,  1), "
                        "MINICUDA_KERNEL(::plain)"),
            std::string::npos)
      << t.text;
}

TEST(Cu2cxxClusterDims, OnATemplateKernelIsAnError) {
  const std::string source = "template <int N>\n__global__ void __cluster_dims__(N) k(int* p) { p[0] = N; }\n";
  const Translation t = translate(source, "/src/c.cu");
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_EQ(t.errors[0].line, 2);
  EXPECT_NE(t.errors[0].message.find("__cluster_dims__ is supported on the definition of a non-template kernel only"),
            std::string::npos);
}

}  // namespace
