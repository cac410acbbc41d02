// Tests of the trace core: scopes nest by thread, the text tree has the documented shape, notes
// and filters work, disabled layers record nothing, and the environment switches the sinks.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <algorithm>
#include <thread>

#include "minicuda/trace.h"

namespace trace = minicuda::trace;
using trace::Layer;

namespace {
int leaf(int v) {
  trace::Scope s(Layer::Kernel, "ioctl(fd={}, NV_ESC_RM_ALLOC)", v);
  s.result("0");
  return v;
}
int middle() {
  trace::Scope s(Layer::Libcuda, "cuMemAlloc_v2(bytesize={})", 64);
  trace::note(Layer::Libcuda, "pool: grow by one 2 MiB chunk");
  leaf(3);
  s.result("CUDA_SUCCESS");
  return 0;
}
}  // namespace

TEST(Trace, NestedScopesFormTheDocumentedTree) {
  trace::Recorder rec;
  {
    trace::Scope top(Layer::Cudart, "cudaMalloc(devPtr={}, size={})", "&d", 64);
    middle();
    top.result("cudaSuccess");
  }
  std::string tree = rec.tree();
  std::vector<trace::Event> ev = rec.events();
  ASSERT_EQ(ev.size(), 4u);
  uint64_t root = ev[0].seq;
  std::string expected = fmt::format(
      "#{0:<4}cudart   cudaMalloc(devPtr=&d, size=64)\n"
      "#{0:<4}libcuda  ├─ cuMemAlloc_v2(bytesize=64)\n"
      "#{0:<4}libcuda  │  ├─ pool: grow by one 2 MiB chunk\n"
      "#{0:<4}kernel   │  ├─ ioctl(fd=3, NV_ESC_RM_ALLOC) = 0  [syscall]\n"
      "#{0:<4}libcuda  │  └─ = CUDA_SUCCESS\n"
      "#{0:<4}cudart   └─ = cudaSuccess\n",
      root);
  EXPECT_EQ(tree, expected);
}

TEST(Trace, EventsCarryParentDepthLayerModeAndResult) {
  trace::Recorder rec;
  middle();
  auto ev = rec.events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].layer, Layer::Libcuda);
  EXPECT_EQ(ev[0].mode, trace::Mode::User);
  EXPECT_EQ(ev[0].parent, 0u);
  EXPECT_EQ(ev[0].depth, 0u);
  EXPECT_EQ(ev[0].result, "CUDA_SUCCESS");
  EXPECT_EQ(ev[1].kind, trace::Kind::Note);
  EXPECT_EQ(ev[1].parent, ev[0].seq);
  EXPECT_EQ(ev[2].mode, trace::Mode::Kernel);
  EXPECT_EQ(ev[2].parent, ev[0].seq);
  EXPECT_EQ(ev[2].depth, 1u);
  EXPECT_EQ(ev[2].root, ev[0].seq);
  EXPECT_GT(ev[2].seq, ev[1].seq);
}

TEST(Trace, DisabledLayersAreNotRecordedAndDoNotNest) {
  trace::Recorder rec;
  uint32_t all = trace::set_mask(trace::kAllLayers & ~(1u << static_cast<unsigned>(Layer::Libcuda)));
  middle();
  trace::set_mask(all);
  auto ev = rec.events();
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].layer, Layer::Kernel);
  EXPECT_EQ(ev[0].depth, 0u);
}

TEST(Trace, ArgumentsAreNotFormattedWhenOff) {
  uint32_t old = trace::set_mask(0);
  struct Counter {
    int* n;
  };
  int formatted = 0;
  EXPECT_FALSE(trace::enabled(Layer::Cudart));
  {
    trace::Scope s(Layer::Cudart, "x={}", (++formatted, 1));
    EXPECT_FALSE(s.active());
  }
  trace::set_mask(old);
  EXPECT_EQ(formatted, 1);  // arguments are evaluated, but nothing is formatted or recorded
}

TEST(Trace, ThreadsHaveTheirOwnStacks) {
  trace::Recorder rec;
  std::thread t([] { middle(); });
  t.join();
  middle();
  auto ev = rec.events();
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_NE(ev[0].thread, ev[3].thread);
  EXPECT_EQ(ev[3].parent, 0u);
  std::string tree = rec.tree();
  EXPECT_NE(tree.find(fmt::format("t{}#", std::max(ev[0].thread, ev[3].thread))), std::string::npos) << tree;
}

TEST(Trace, EnvironmentSelectsLayersFileAndJson) {
  std::string path = ::testing::TempDir() + "/minicuda_trace.jsonl";
  setenv("MINICUDA_TRACE", "libcuda,kernel", 1);
  setenv("MINICUDA_TRACE_FILE", path.c_str(), 1);
  setenv("MINICUDA_TRACE_FORMAT", "json", 1);
  trace::reconfigure();
  EXPECT_TRUE(trace::enabled(Layer::Libcuda));
  EXPECT_TRUE(trace::enabled(Layer::Kernel));
  EXPECT_FALSE(trace::enabled(Layer::Cudart));
  {
    trace::Scope s(Layer::Cudart, "cudaMalloc()");
    middle();
  }
  trace::flush();
  unsetenv("MINICUDA_TRACE");
  unsetenv("MINICUDA_TRACE_FILE");
  unsetenv("MINICUDA_TRACE_FORMAT");
  trace::reconfigure();
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("\"kind\":\"note\",\"text\":\"pool: grow by one 2 MiB chunk\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"layer\":\"kernel\",\"mode\":\"kernel\",\"kind\":\"call\",\"call\":\"ioctl(fd=3, NV_ESC_RM_ALLOC)\",\"result\":\"0\""),
            std::string::npos)
      << lines[1];
  EXPECT_NE(lines[2].find("\"call\":\"cuMemAlloc_v2(bytesize=64)\",\"result\":\"CUDA_SUCCESS\""), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("\"depth\":0"), std::string::npos);
}

TEST(Trace, TextSinkWritesTheTreeToAFile) {
  std::string path = ::testing::TempDir() + "/minicuda_trace.txt";
  setenv("MINICUDA_TRACE", "all", 1);
  setenv("MINICUDA_TRACE_FILE", path.c_str(), 1);
  trace::reconfigure();
  middle();
  trace::flush();
  unsetenv("MINICUDA_TRACE");
  unsetenv("MINICUDA_TRACE_FILE");
  trace::reconfigure();
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("libcuda  cuMemAlloc_v2(bytesize=64)\n"), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("kernel   ├─ ioctl(fd=3, NV_ESC_RM_ALLOC) = 0  [syscall]\n"), std::string::npos) << ss.str();
}

TEST(Trace, RunsOfTheSameLeafCallFoldIntoTwoLines) {
  trace::Recorder rec;
  {
    trace::Scope top(Layer::Cudart, "lazy()");
    for (int i = 1; i <= 5; ++i) {
      trace::Scope s(Layer::Libcuda, "cuDeviceGetAttribute(attrib={})", i);
      s.result("CUDA_SUCCESS, *pi={}", i * 10);
    }
    trace::Scope other(Layer::Libcuda, "cuDeviceGetUuid_v2()");
    other.result("CUDA_SUCCESS");
  }
  std::string tree = rec.tree();
  EXPECT_NE(tree.find("├─ cuDeviceGetAttribute(attrib=1) = CUDA_SUCCESS, *pi=10\n"), std::string::npos) << tree;
  EXPECT_NE(tree.find("├─ … 4 more cuDeviceGetAttribute calls = CUDA_SUCCESS\n"), std::string::npos) << tree;
  EXPECT_EQ(tree.find("attrib=2"), std::string::npos) << tree;
  EXPECT_NE(tree.find("├─ cuDeviceGetUuid_v2() = CUDA_SUCCESS\n"), std::string::npos) << tree;
  EXPECT_EQ(rec.events().size(), 7u);  // the recording itself keeps every call
}
