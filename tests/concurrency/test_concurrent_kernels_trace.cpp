// Concurrent kernels in the Chrome trace (docs/timing.md, "Concurrent kernels"): the
// concurrent_kernels sample, run as its own process with MINICUDA_TRACE_FORMAT=chrome, puts two
// small grids of two streams on the compute track at the same time, and two grids that each
// fill all 132 SMs one after the other (and beside nothing). Run again, and with the engines off their threads
// (MINICUDA_ENGINE_THREADS=0), it draws the same spans at the same simulated times.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "minicuda/json_reader.h"

namespace {

using minicuda::json::Value;

struct Span {
  std::string name;
  uint64_t start, end;  // ns
  int channel;
};

uint64_t ns_of(const Value& micros) { return static_cast<uint64_t>(micros.number * 1000.0 + 0.5); }

struct TracedRun {
  bool parsed = false;
  std::vector<Span> grids;  // the compute track's spans (pid 2, tid 1), in start order
  std::string timing;       // every GPU span, sorted: what must not change between runs
};

TracedRun run_sample(const std::string& tag, const std::string& env = "") {
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir && *dir ? dir : "/tmp") + "/minicuda_concurrent_" + tag + "_" +
                           std::to_string(::getpid()) + ".json";
  const std::string command = env + " MINICUDA_TRACE=cudart,libcuda,gpu MINICUDA_TRACE_FORMAT=chrome MINICUDA_TRACE_FILE=" +
                              path + " " + MINICUDA_CONCURRENT_KERNELS + " > /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  TracedRun run;
  std::optional<Value> trace = minicuda::json::parse(text.str());
  if (!trace || !trace->has("traceEvents")) return run;
  run.parsed = true;
  std::vector<std::string> lines;
  for (const Value& e : (*trace)["traceEvents"].items) {
    if (e["ph"].text != "X" || e["pid"].number != 2) continue;
    const uint64_t start = ns_of(e["ts"]), end = start + ns_of(e["dur"]);
    lines.push_back(std::to_string(static_cast<int>(e["tid"].number)) + " " + std::to_string(start) + ".." +
                    std::to_string(end) + " " + e["name"].text + "\n");
    if (e["tid"].number == 1)
      run.grids.push_back(Span{e["name"].text, start, end,
                               e["args"].has("channel") ? static_cast<int>(e["args"]["channel"].number) : -1});
  }
  std::sort(lines.begin(), lines.end());
  for (const std::string& l : lines) run.timing += l;
  std::sort(run.grids.begin(), run.grids.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  return run;
}

std::vector<Span> named(const TracedRun& run, const std::string& name) {
  std::vector<Span> out;
  for (const Span& s : run.grids)
    if (s.name == name) out.push_back(s);
  return out;
}

bool overlap(const Span& a, const Span& b) { return a.start < b.end && b.start < a.end; }

// The sample runs each kernel alone, then once on each of two streams: three slices of each.
TEST(ConcurrentKernelsTrace, TwoSmallGridsOfTwoStreamsOverlapOnTheComputeTrack) {
  TracedRun run = run_sample("small");
  ASSERT_TRUE(run.parsed) << "the Chrome trace is not valid JSON";
  std::vector<Span> small = named(run, "small_grid");
  ASSERT_EQ(small.size(), 3u);
  for (const Span& s : small) EXPECT_EQ(s.end - s.start, 2000u);  // 1.2 us + one wave (docs/timing.md)
  EXPECT_FALSE(overlap(small[0], small[1]));  // the one alone ran first
  EXPECT_NE(small[1].channel, small[2].channel);  // the pair: two streams, two channels ...
  EXPECT_TRUE(overlap(small[1], small[2]));      // ... side by side on the compute track
  EXPECT_EQ(small[1].start, small[2].start);     // from the moment both became ready
}

TEST(ConcurrentKernelsTrace, GridsThatFillEverySmDoNotOverlap) {
  TracedRun run = run_sample("full");
  ASSERT_TRUE(run.parsed);
  std::vector<Span> full = named(run, "full_grid");
  ASSERT_EQ(full.size(), 3u);
  EXPECT_NE(full[1].channel, full[2].channel);
  EXPECT_EQ(full[2].start, full[1].end);  // the second waits for every SM the first holds
  // Nothing on the compute track runs beside a full grid.
  for (const Span& f : full)
    for (const Span& s : run.grids) {
      if (s.start != f.start || s.channel != f.channel) {
        EXPECT_FALSE(overlap(f, s)) << s.name << " beside full_grid";
      }
    }
}

TEST(ConcurrentKernelsTrace, TheSameSimulatedTimesOnEveryRunWithOrWithoutEngineThreads) {
  TracedRun first = run_sample("det1");
  TracedRun second = run_sample("det2");
  TracedRun inline_engines = run_sample("det3", "MINICUDA_ENGINE_THREADS=0");
  ASSERT_TRUE(first.parsed && second.parsed && inline_engines.parsed);
  EXPECT_FALSE(first.timing.empty());
  EXPECT_EQ(first.timing, second.timing);
  EXPECT_EQ(first.timing, inline_engines.timing);
}

}  // namespace
