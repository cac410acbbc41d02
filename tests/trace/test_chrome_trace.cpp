// The Chrome trace (MINICUDA_TRACE_FORMAT=chrome, trace/src/chrome_sink.cpp): first the sink
// alone, with a host clock of the test's own, then the stream_overlap sample with two streams of
// copy in, kernel, copy out, run as its own process twice. Each file is parsed as JSON and
// checked: the engines' and the host thread's named tracks, calls at their simulated host
// times, device spans at their simulated GPU times, every flow with both ends, the two streams'
// work overlapping, and the same times on the second run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "minicuda/json_reader.h"
#include "minicuda/trace.h"

namespace minicuda::trace {
namespace {

using minicuda::json::Value;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path(const char* name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/minicuda_" + name + "_" + std::to_string(::getpid()) + ".json";
}

// The events of a parsed trace, or a failure if the file is not what the format says.
const std::vector<Value>& events_of(const Value& trace) {
  EXPECT_TRUE(trace.has("traceEvents"));
  EXPECT_EQ(trace["traceEvents"].type, Value::Type::Array);
  return trace["traceEvents"].items;
}

uint64_t g_clock = 0;
uint64_t test_clock() { return g_clock; }

// The sink alone: a call that costs 2300 ns of host time and submits a copy, which the device
// runs later; the file is valid JSON while the sink is still open, and after it closes.
TEST(ChromeSink, CallsSpansAndTheFlowBetweenThem) {
  const std::string path = temp_path("sink");
  setenv("MINICUDA_TRACE", "cudart,gpu", 1);
  setenv("MINICUDA_TRACE_FORMAT", "chrome", 1);
  setenv("MINICUDA_TRACE_FILE", path.c_str(), 1);
  reconfigure();
  set_host_clock(&test_clock);
  g_clock = 1000;
  uint64_t origin = 0;
  {
    Scope call(Layer::Cudart, "cudaMemcpyAsync(count={})", 4096);
    origin = current_root();
    g_clock += 2300;
    call.result("cudaSuccess");
  }
  device_span(DeviceSpan{"ce0", "copy 4096 B", 3, 3400, 8174, origin, {}}, "ce0: copy 4096 B, t={} ns", 8174);
  note(Layer::Gpu, "a note that is not a span: not in the Chrome trace");
  flush();
  // Valid while the program runs: a trace of a program that never exits cleanly still opens.
  std::optional<Value> open = json::parse(read_file(path));
  ASSERT_TRUE(open.has_value());
  unsetenv("MINICUDA_TRACE");
  reconfigure();  // closes the sink
  set_host_clock(nullptr);
  std::optional<Value> trace = json::parse(read_file(path));
  ASSERT_TRUE(trace.has_value());
  EXPECT_EQ((*trace)["displayTimeUnit"].text, "ns");
  std::map<std::string, const Value*> by_phase_name;
  std::vector<const Value*> flows;
  for (const Value& e : events_of(*trace)) {
    const std::string ph = e["ph"].text;
    if (ph == "X") by_phase_name[e["name"].text] = &e;
    if (ph == "s" || ph == "f") flows.push_back(&e);
  }
  ASSERT_TRUE(by_phase_name.count("cudaMemcpyAsync"));
  const Value& call = *by_phase_name["cudaMemcpyAsync"];
  EXPECT_EQ(call["pid"].number, 1);
  EXPECT_EQ(call["ts"].text, "1.000");    // µs: 1000 ns
  EXPECT_EQ(call["dur"].text, "2.300");
  EXPECT_EQ(call["args"]["result"].text, "cudaSuccess");
  ASSERT_TRUE(by_phase_name.count("copy 4096 B"));
  const Value& copy = *by_phase_name["copy 4096 B"];
  EXPECT_EQ(copy["pid"].number, 2);
  EXPECT_EQ(copy["tid"].number, 2);  // ce0's track
  EXPECT_EQ(copy["ts"].text, "3.400");
  EXPECT_EQ(copy["dur"].text, "4.774");
  EXPECT_EQ(copy["args"]["origin"].number, static_cast<double>(origin));
  // One flow, its ends 1 ns inside the call (host thread 1) and the copy (ce0).
  ASSERT_EQ(flows.size(), 2u);
  const Value& from = *flows[0];
  const Value& to = *flows[1];
  EXPECT_EQ(from["ph"].text, "s");
  EXPECT_EQ(from["pid"].number, 1);
  EXPECT_EQ(from["tid"].number, call["tid"].number);
  EXPECT_EQ(from["ts"].text, "1.001");
  EXPECT_EQ(to["ph"].text, "f");
  EXPECT_EQ(to["bp"].text, "e");
  EXPECT_EQ(to["pid"].number, 2);
  EXPECT_EQ(to["tid"].number, 2);
  EXPECT_EQ(to["ts"].text, "3.401");
  EXPECT_EQ(from["id"].number, to["id"].number);
  std::remove(path.c_str());
}

// A span's own args (a PTX grid's counters) are members of its args: numbers as JSON numbers,
// text as strings; a "number" that is not one is written as a string, so the file stays JSON.
TEST(ChromeSink, SpanArgsAreStructured) {
  const std::string path = temp_path("args");
  setenv("MINICUDA_TRACE", "gpu", 1);
  setenv("MINICUDA_TRACE_FORMAT", "chrome", 1);
  setenv("MINICUDA_TRACE_FILE", path.c_str(), 1);
  reconfigure();
  DeviceSpan span{"compute", "transpose", 2, 1000, 3000, 0, {}};
  span.args = {{"inst_executed", "270336"}, {"l2_hit_pct", "49.5"}, {"limiter", "l2", false},
               {"odd", "1e", true}, {"quote", "a\"b", false}};
  device_span(span, "compute: ch 2 transpose ran t=1000..3000 ns");
  unsetenv("MINICUDA_TRACE");
  reconfigure();
  std::optional<Value> trace = json::parse(read_file(path));
  std::remove(path.c_str());
  ASSERT_TRUE(trace.has_value());
  const Value* kernel = nullptr;
  for (const Value& e : events_of(*trace))
    if (e.string_at("name") == "transpose") kernel = &e;
  ASSERT_NE(kernel, nullptr);
  const Value& args = (*kernel)["args"];
  EXPECT_EQ(args["inst_executed"].type, Value::Type::Number);
  EXPECT_EQ(args["inst_executed"].number, 270336);
  EXPECT_EQ(args["l2_hit_pct"].number, 49.5);
  EXPECT_EQ(args.string_at("limiter"), "l2");
  EXPECT_EQ(args.string_at("odd"), "1e");
  EXPECT_EQ(args.string_at("quote"), "a\"b");
  EXPECT_EQ(args["channel"].number, 2);  // the span's own fields are still there
  EXPECT_EQ(args.string_at("note"), "compute: ch 2 transpose ran t=1000..3000 ns");
}

// --- the stream_overlap sample, traced --------------------------------------------------------

struct Span {
  int pid, tid;
  std::string cat, name;
  uint64_t start, end;  // ns
  int channel;          // device spans: the channel (so the stream) whose work it was; else -1
};

uint64_t ns_of(const Value& micros) { return static_cast<uint64_t>(micros.number * 1000.0 + 0.5); }

struct SampleRun {
  std::optional<Value> trace;
  std::vector<Span> spans;  // every "X" event, in file order
  std::string timing;       // name, track and times of every span, sorted: what must not change between runs
};

SampleRun run_sample(const char* name) {
  const std::string path = temp_path(name);
  const std::string command = std::string("MINICUDA_TRACE=cudart,libcuda,gpu MINICUDA_TRACE_FORMAT=chrome ") +
                              "MINICUDA_TRACE_FILE=" + path + " " + MINICUDA_STREAM_OVERLAP + " 2 > /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  SampleRun run;
  run.trace = json::parse(read_file(path));
  std::remove(path.c_str());
  if (!run.trace) return run;
  for (const Value& e : events_of(*run.trace)) {
    if (e["ph"].text != "X") continue;
    Span s{static_cast<int>(e["pid"].number), static_cast<int>(e["tid"].number), e["cat"].text, e["name"].text,
           ns_of(e["ts"]), ns_of(e["ts"]) + ns_of(e["dur"]),
           e["args"].has("channel") ? static_cast<int>(e["args"]["channel"].number) : -1};
    run.spans.push_back(s);
  }
  // Sorted: where the GPU thread's spans fall between the host's calls in the file depends on
  // the host's real speed; their simulated times do not.
  std::vector<std::string> lines;
  for (const Span& s : run.spans) lines.push_back(fmt::format("{}/{} {}..{} {}\n", s.pid, s.tid, s.start, s.end, s.name));
  std::sort(lines.begin(), lines.end());
  for (const std::string& line : lines) run.timing += line;
  return run;
}

TEST(ChromeTrace, StreamOverlapSampleWithTwoStreams) {
  SampleRun first = run_sample("overlap1");
  ASSERT_TRUE(first.trace.has_value()) << "the Chrome trace is not valid JSON";
  const std::vector<Value>& events = events_of(*first.trace);

  // Named tracks: one per engine, one for the host thread.
  std::map<std::pair<int, int>, std::string> tracks;
  for (const Value& e : events) {
    if (e["ph"].text == "M" && e["name"].text == "thread_name")
      tracks[{static_cast<int>(e["pid"].number), static_cast<int>(e["tid"].number)}] = e["args"]["name"].text;
  }
  EXPECT_EQ(tracks[std::make_pair(2, 1)], "compute");
  EXPECT_EQ(tracks[std::make_pair(2, 2)], "ce0");
  EXPECT_EQ(tracks[std::make_pair(2, 3)], "ce1");
  EXPECT_EQ(tracks[std::make_pair(2, 4)], "ce2");
  EXPECT_EQ(tracks[std::make_pair(1, 1)], "host thread 1");

  // Every flow has both ends: one start on a host-thread track, one end ("bp":"e") on an engine.
  std::map<int, const Value*> starts, ends;
  for (const Value& e : events) {
    const std::string ph = e["ph"].text;
    if (ph == "s") {
      EXPECT_TRUE(starts.emplace(static_cast<int>(e["id"].number), &e).second);
    }
    if (ph == "f") {
      EXPECT_EQ(e["bp"].text, "e");
      EXPECT_TRUE(ends.emplace(static_cast<int>(e["id"].number), &e).second);
    }
  }
  ASSERT_FALSE(starts.empty());
  EXPECT_EQ(starts.size(), ends.size());
  // Each flow starts inside an API call on the host and ends inside the device span it caused
  // (1 ns in: see chrome_sink.cpp): a cudaMemcpyAsync's at a copy on ce0 or ce1, a
  // cudaLaunchKernel's at the grid on compute.
  auto inside = [&](int pid, int tid, const std::string& cat, uint64_t ts) {
    for (const Span& s : first.spans)
      if (s.pid == pid && s.tid == tid && s.cat == cat && s.start < ts && ts <= s.end) return s.name;
    return std::string("(no slice)");
  };
  int to_copies = 0, to_kernels = 0;
  for (const auto& [id, start] : starts) {
    ASSERT_TRUE(ends.count(id)) << "flow " << id << " has no end";
    const Value& end = *ends[id];
    EXPECT_EQ((*start)["pid"].number, 1);
    EXPECT_EQ(end["pid"].number, 2);
    const std::string call = inside(1, static_cast<int>((*start)["tid"].number), "cudart", ns_of((*start)["ts"]));
    const int engine = static_cast<int>(end["tid"].number);
    const std::string work = inside(2, engine, "gpu", ns_of(end["ts"]));
    if (engine == 1) {
      EXPECT_EQ(call, "cudaLaunchKernel");
      EXPECT_EQ(work, "scale");
      ++to_kernels;
    } else {
      EXPECT_EQ(call, "cudaMemcpyAsync");
      EXPECT_EQ(work, "copy 4194304 B");
      ++to_copies;
    }
  }
  EXPECT_EQ(to_kernels, 4);  // 2 chunks, run twice: on one stream, then on two
  EXPECT_EQ(to_copies, 8);

  // The second run's two streams overlap: one's copy on ce0 while the other's kernel runs on
  // compute. (The first run, on one stream, has no such pair: its channel runs in order.)
  int overlaps = 0;
  for (const Span& copy : first.spans)
    for (const Span& kernel : first.spans)
      if (copy.pid == 2 && copy.tid == 2 && kernel.pid == 2 && kernel.tid == 1 && copy.channel != kernel.channel &&
          copy.start < kernel.end && kernel.start < copy.end)
        ++overlaps;
  EXPECT_EQ(overlaps, 1);  // chunk 1's upload under chunk 0's kernel
  // A launch costs the host 4.3 us (docs/timing.md), at the time it was made.
  for (const Span& s : first.spans) {
    if (s.pid == 1 && s.name == "cuLaunchKernel") {
      EXPECT_EQ(s.end - s.start, 4300u);
    }
  }

  // The same program, the same simulated times: host and device, to the nanosecond.
  SampleRun second = run_sample("overlap2");
  ASSERT_TRUE(second.trace.has_value());
  EXPECT_EQ(first.timing, second.timing);
}

#ifdef MINICUDA_VECTOR_ADD_DRV
// A PTX grid (vector_add_drv: 65536 ints through libcuda's JIT and the SIMT executor) carries its
// counters as args of its compute span, as numbers - what Perfetto shows in the slice's details
// and `minicuda profile` reads; the note still has them as text.
TEST(ChromeTrace, PtxGridSpanCarriesItsCountersAsArgs) {
  const std::string path = temp_path("ptx_counters");
  const std::string command = std::string("MINICUDA_TRACE=gpu MINICUDA_TRACE_FORMAT=chrome MINICUDA_COST_MODEL= ") +
                              "CUDA_CACHE_DISABLE=1 MINICUDA_TRACE_FILE=" + path + " " + MINICUDA_VECTOR_ADD_DRV +
                              " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::optional<Value> trace = json::parse(read_file(path));
  std::remove(path.c_str());
  ASSERT_TRUE(trace.has_value());
  const Value* kernel = nullptr;
  for (const Value& e : events_of(*trace))
    if (e.string_at("ph") == "X" && e.string_at("name") == "vector_add") kernel = &e;
  ASSERT_NE(kernel, nullptr);
  const Value& args = (*kernel)["args"];
  // 65536 ints in 256 blocks of 256: two loads and a store per thread, each warp's request 4 sectors.
  EXPECT_EQ(args.integer_at("global_requests"), 3u * 65536 / 32);
  EXPECT_EQ(args.number_at("sectors_per_request"), 4.0);
  EXPECT_EQ(args.number_at("warp_efficiency_pct"), 100.0);
  EXPECT_EQ(args.integer_at("dram_read_bytes"), 2u * 65536 * 4);
  EXPECT_EQ(args.integer_at("dram_write_bytes"), 65536u * 4);
  EXPECT_EQ(args.integer_at("shared_bank_conflicts"), 0u);
  EXPECT_GT(args.integer_at("inst_executed").value_or(0), 0u);
  EXPECT_TRUE(args.number_at("achieved_occupancy_pct").has_value());
  EXPECT_TRUE(args.number_at("l2_hit_pct").has_value());
  EXPECT_TRUE(args.integer_at("waves_model_ns").has_value());
  ASSERT_TRUE(args.string_at("limiter").has_value());
  EXPECT_NE(args.string_at("note")->find(" inst_executed=" + (*kernel)["args"]["inst_executed"].text + " "),
            std::string::npos);
  EXPECT_NE(args.string_at("note")->find(" limiter=" + *args.string_at("limiter")), std::string::npos);
}
#endif

}  // namespace
}  // namespace minicuda::trace
