// Bad input never crashes the host: every prefix of the fixtures, and fixtures with bytes
// changed at pseudo-random places, compile to some Status without throwing or crashing, and a
// failed compile always explains itself in error_log. Also the pathological shapes a parser
// must survive: deep nesting, huge register ranges and arrays, numbers out of range.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "minicuda/ptx/ptx.h"

namespace ptx = minicuda::ptx;

namespace {

std::string read(const std::string& rel) {
  std::ifstream f(std::string(MINICUDA_PTX_DATA_DIR) + "/" + rel);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void expect_explained(const ptx::CompileResult& r, const std::string& what) {
  if (r.status == ptx::Status::Ok) {
    EXPECT_EQ(r.error_log, "") << what;
  } else {
    EXPECT_FALSE(r.error_log.empty()) << what << " " << ptx::status_name(r.status);
    EXPECT_TRUE(r.kernels.empty()) << what;
  }
}

TEST(PtxRobustness, EveryPrefixOfAFixtureCompilesOrFailsCleanly) {
  for (const char* name : {"handwritten/families.ptx", "corpus/divergence.ptx"}) {
    std::string text = read(name);
    for (size_t n = 0; n < text.size(); n += 29) expect_explained(ptx::compile(text.substr(0, n), {}), name);
  }
}

TEST(PtxRobustness, ChangedBytesCompileOrFailCleanly) {
  std::string text = read("handwritten/families.ptx");
  const char replacements[] = {'{', '}', '[', ']', ';', ',', '%', '.', '@', '!', '0', 'x', ' ', '\0', '|', '-'};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int round = 0; round < 400; ++round) {
    std::string mutated = text;
    for (int k = 0; k < 3; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (state >> 33) % mutated.size();
      mutated[at] = replacements[(state >> 17) % sizeof(replacements)];
    }
    expect_explained(ptx::compile(mutated, {}), "round " + std::to_string(round));
  }
}

const char* kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

TEST(PtxRobustness, DeepNestingIsASyntaxError) {
  std::string text = std::string(kHeader) + ".global .b32 g[1] = " + std::string(10000, '{') + "1" +
                     std::string(10000, '}') + ";\n";
  ptx::CompileResult r = ptx::compile(text, {});
  EXPECT_EQ(r.status, ptx::Status::ParseError);
  EXPECT_NE(r.error_log.find("syntax error"), std::string::npos);
  std::string nots = std::string(kHeader) + ".visible .entry k() {\n.reg .pred %p<2>;\nnot.pred %p0, " +
                     std::string(10000, '!') + "%p1;\nret;\n}\n";
  EXPECT_EQ(ptx::compile(nots, {}).status, ptx::Status::ParseError);
}

TEST(PtxRobustness, AHugeRegisterRangeCostsNothingUntilUsed) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k() {\n.reg .b32 %r<4000000000>;\nmov.u32 %r3999999999, 7;\nret;\n}\n";
  ptx::CompileResult r = ptx::compile(text, {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  EXPECT_EQ(r.kernels.at(0).num_regs, 1u);
  // One past the range, and a leading zero, are undeclared, as for ptxas.
  for (const char* reg : {"%r4000000000", "%r01"}) {
    std::string bad = std::string(kHeader) + ".visible .entry k() {\n.reg .b32 %r<4000000000>;\nmov.u32 " + reg +
                      ", 7;\nret;\n}\n";
    ptx::CompileResult b = ptx::compile(bad, {});
    EXPECT_EQ(b.status, ptx::Status::ParseError) << reg;
    EXPECT_NE(b.error_log.find(std::string("Unknown symbol '") + reg + "'"), std::string::npos) << b.error_log;
  }
}

TEST(PtxRobustness, AnOversizedVariableIsRefusedNotAllocated) {
  std::string text = std::string(kHeader) + ".global .b8 big[99999999999][99999999999] = {1};\n";
  ptx::CompileResult r = ptx::compile(text, {});
  EXPECT_EQ(r.status, ptx::Status::OutOfResources);
  EXPECT_NE(r.error_log.find("'big'"), std::string::npos);
}

TEST(PtxRobustness, AHugeVersionNumberIsUnsupportedNotAnException) {
  ptx::CompileResult r = ptx::compile(".version 99999999999999999999.0\n.target sm_90\n", {});
  EXPECT_EQ(r.status, ptx::Status::UnsupportedVersion);
}

}  // namespace
