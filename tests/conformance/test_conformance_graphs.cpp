// Conformance of CUDA graphs and stream capture with a real H200 under CUDA 13.
//
// tests/data/h200/graphs/probe_graphs.cu ran there and printed probe_graphs.txt: the codes of
// bad input and illegal calls in the graph API (NULL arguments, bad edges, a cycle, nodes of the
// wrong type for the cudaGraphExec*NodeSetParams calls, destroyed handles), the result info of
// cudaGraphExecUpdate for each kind of change, what each call a capture forbids does in each
// capture mode (its code, the capture's status after it, the end's code and graph),
// cudaStreamGetCaptureInfo's outputs, and cudaGraphDebugDotPrint's codes. The probe is built here
// against minicuda unchanged and every answer must equal the H200's, except the few named below
// with the reason.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

using Answers = std::map<std::string, std::string>;

Answers parse(std::istream& in) {
  Answers answers;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find(" = ");
    if (eq != std::string::npos && line[0] != '#') answers[line.substr(0, eq)] = line.substr(eq + 3);
  }
  return answers;
}

Answers recorded() {
  std::ifstream in(std::string(MINICUDA_H200_DATA) + "/graphs/probe_graphs.txt");
  EXPECT_TRUE(in.good());
  return parse(in);
}

Answers run_probe() {
  FILE* pipe = popen(MINICUDA_PROBE_GRAPHS_EXE, "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  while (pipe != nullptr && std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  if (pipe != nullptr) {
    EXPECT_EQ(pclose(pipe), 0) << out;
  }
  std::istringstream in(out);
  return parse(in);
}

// The DOT text itself: the real driver writes its own layout (octagons, records, handles and
// device pointers in verbose mode); minicuda writes the one docs/graphs.md describes. Only the
// codes of cudaGraphDebugDotPrint are compared.
bool is_dot_text(const std::string& key) {
  return key.rfind("dot.flags", 0) == 0 && (key.find(".line") != std::string::npos);
}

struct KnownDifference {
  const char* key;
  const char* minicuda;  // what minicuda answers instead (nullptr: no such key)
  const char* why;
};
constexpr KnownDifference kKnown[] = {
    {"graph.addMemset.elem2", "801 cudaErrorNotSupported",
     "memset nodes of 2-byte elements are not built (libcuda has no cuMemsetD2D16Async)"},
    {"graph.execMemsetSetParams.elem2", "801 cudaErrorNotSupported", "the same, through the exec's parameter call"},
    {"iso.execKernelSetParams_null_params.child", nullptr,
     "the real driver crashes (SIGSEGV) on a NULL pNodeParams; minicuda never crashes on bad input "
     "and answers cudaErrorInvalidValue (iso.execKernelSetParams.null_params)"},
};

TEST(ConformanceGraphs, EveryAnswerMatchesTheH200) {
  const Answers real = recorded();
  const Answers ours = run_probe();
  ASSERT_GT(real.size(), 800u);
  size_t compared = 0;
  for (const auto& [key, value] : real) {
    if (is_dot_text(key)) continue;
    const KnownDifference* known = nullptr;
    for (const auto& k : kKnown)
      if (key == k.key) known = &k;
    auto it = ours.find(key);
    if (known != nullptr) {
      if (known->minicuda == nullptr) EXPECT_EQ(it, ours.end()) << key;
      else EXPECT_EQ(it == ours.end() ? "(missing)" : it->second, known->minicuda) << key << ": " << known->why;
      continue;
    }
    ++compared;
    EXPECT_EQ(it == ours.end() ? "(missing)" : it->second, value) << key;
  }
  EXPECT_GT(compared, 500u);
  // The crash the real driver has, answered instead.
  EXPECT_EQ(ours.at("iso.execKernelSetParams.null_params"), "1 cudaErrorInvalidValue");
}

}  // namespace
