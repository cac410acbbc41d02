// The Chrome trace sink (MINICUDA_TRACE_FORMAT=chrome): the Trace Event Format that
// ui.perfetto.dev and chrome://tracing open. One JSON object, {"traceEvents":[...]}, with
//   - process 1, "host": a track per host thread; every finished call is a complete event
//     ("ph":"X") at its simulated host time (Event::host_ns, libcuda's host clock), so the
//     cudart call and the libcuda call inside it nest;
//   - process 2, "GPU": a track per engine (compute, ce0, ce1, ce2); every device span
//     (trace::device_span: a copy, a memset, a grid) is a complete event at its simulated GPU
//     time, whose args are its sequence number, channel, submitting call and note, then the
//     span's own args (DeviceSpan::args: a PTX grid's counters, as numbers);
//   - a flow ("ph":"s" on the API call, "ph":"f" with "bp":"e" on the device span) from the API
//     call that submitted the work (DeviceSpan::origin, carried by MINICUDA_SET_ORIGIN) to it.
//     Both ends sit 1 ns inside their slices: a viewer binds a flow event to the slice open on
//     its track at its time, and at the slice's very first ns that could be the one before it
//     (Perfetto processes events in time order, and a call's slice is written when it ends).
// Times are in microseconds with three decimals: the simulated nanoseconds, exactly.
//
// The file is valid JSON after every event, so a program that exits without a clean shutdown,
// or is killed, still leaves a trace that opens: each event is written over the closing
// bracket, which is written again after it, and the file is flushed. On standard error (no
// MINICUDA_TRACE_FILE) nothing can be rewritten: the bracket comes at exit (finish()).
#include <cstdio>
#include <map>
#include <set>

#include "sinks.h"

namespace minicuda::trace {

namespace {

constexpr int kHostPid = 1;
constexpr int kGpuPid = 2;
constexpr const char* kUnits[] = {"compute", "ce0", "ce1", "ce2"};  // their tids are 1..4
constexpr const char* kTrailer = "\n],\"displayTimeUnit\":\"ns\"}\n";

// Simulated ns as the format's microseconds, exactly: 1234567 -> "1234.567".
std::string micros(uint64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

// The function's name of a call's text: "cudaMemcpyAsync(dst=...)" -> "cudaMemcpyAsync".
std::string_view function_name(std::string_view call) { return call.substr(0, call.find('(')); }

class ChromeSink : public Sink {
 public:
  explicit ChromeSink(const std::string& path)
      : file_(path.empty() ? stderr : std::fopen(path.c_str(), "w")), seekable_(!path.empty()) {
    if (file_ == nullptr) {
      std::fprintf(stderr, "minicuda: cannot write the Chrome trace to %s: no trace\n", path.c_str());
      return;
    }
    std::fputs("{\"traceEvents\":[\n", file_);
    // Metadata first: the two processes and the engines' tracks, named and in order.
    write(metadata(kHostPid, 0, "process_name", "host (simulated time)"));
    write(metadata(kHostPid, 0, "process_sort_index", 1));
    write(metadata(kGpuPid, 0, "process_name", "GPU (simulated time)"));
    write(metadata(kGpuPid, 0, "process_sort_index", 2));
    for (int i = 0; i < 4; ++i) {
      write(metadata(kGpuPid, i + 1, "thread_name", kUnits[i]));
      write(metadata(kGpuPid, i + 1, "thread_sort_index", i + 1));
    }
  }
  ~ChromeSink() override {
    finish();
    if (file_ != nullptr && file_ != stderr) std::fclose(file_);
  }

  void begin(const Event& e) override {
    if (e.parent == 0) roots_[e.seq] = Root{e.thread, e.host_ns};
  }

  void end(const Event& e) override {
    if (e.layer == Layer::Gpu) return;  // only host-side calls have a host time
    name_thread(e.thread);
    write(fmt::format(
        "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},"
        "\"args\":{{\"seq\":{},\"call\":\"{}\",\"result\":\"{}\"}}}}",
        json_escape(function_name(e.text)), layer_name(e.layer), kHostPid, e.thread, micros(e.host_ns),
        micros(e.host_end_ns - e.host_ns), e.seq, json_escape(e.text), json_escape(e.result)));
  }

  void note(const Event& e) override {
    if (!e.span) return;  // other notes are the text tree's and the JSON lines'
    const DeviceSpan& span = *e.span;
    const int tid = unit_tid(span.unit);
    write(fmt::format(
        "{{\"name\":\"{}\",\"cat\":\"gpu\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},"
        "\"args\":{{\"seq\":{},\"channel\":{},\"origin\":{},\"note\":\"{}\"{}}}}}",
        json_escape(span.name), kGpuPid, tid, micros(span.start_ns), micros(span.end_ns - span.start_ns), e.seq,
        span.chid, span.origin, json_escape(e.text), json_args(span.args)));
    // The arrow from the call that submitted the work, if that call was traced: both ends or none.
    auto root = roots_.find(span.origin);
    if (span.origin == 0 || root == roots_.end()) return;
    const uint64_t id = ++flows_;
    // The call costs the host time (it submitted work), so its slice is longer than 1 ns; a span
    // may take no time (a 1-byte memset), and then its end is at its start.
    const uint64_t from = root->second.host_ns + 1;
    const uint64_t to = span.start_ns + (span.end_ns > span.start_ns ? 1 : 0);
    write(fmt::format(
        "{{\"name\":\"submit\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":{},\"pid\":{},\"tid\":{},\"ts\":{}}}", id,
        kHostPid, root->second.thread, micros(from)));
    write(fmt::format(
        "{{\"name\":\"submit\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{},\"pid\":{},\"tid\":{},\"ts\":{}}}",
        id, kGpuPid, tid, micros(to)));
  }

  void flush() {
    if (file_ != nullptr) std::fflush(file_);
  }

  // The end of the output: on a stream that cannot be rewritten, the closing bracket now, and
  // nothing after it.
  void finish() {
    if (file_ == nullptr || seekable_ || finished_) return flush();
    std::fputs(kTrailer, file_);
    std::fflush(file_);
    finished_ = true;
  }

 private:
  struct Root {
    uint32_t thread;
    uint64_t host_ns;
  };

  template <typename Value>
  static std::string metadata(int pid, int tid, const char* name, Value value) {
    if constexpr (std::is_integral_v<Value>) {
      return fmt::format("{{\"name\":\"{}\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}", name,
                         pid, tid, value);
    } else {
      return fmt::format("{{\"name\":\"{}\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"{}\"}}}}", name,
                         pid, tid, json_escape(value));
    }
  }

  // A host thread's track is named the first time it has a call to show.
  void name_thread(uint32_t thread) {
    if (!named_.insert(thread).second) return;
    write(metadata(kHostPid, static_cast<int>(thread), "thread_name", fmt::format("host thread {}", thread)));
    write(metadata(kHostPid, static_cast<int>(thread), "thread_sort_index", static_cast<int>(thread)));
  }

  // The track of an engine; a unit this file does not know gets one of its own after them.
  int unit_tid(const std::string& unit) {
    for (int i = 0; i < 4; ++i)
      if (unit == kUnits[i]) return i + 1;
    auto [it, fresh] = other_units_.try_emplace(unit, 5 + static_cast<int>(other_units_.size()));
    if (fresh) write(metadata(kGpuPid, it->second, "thread_name", unit));
    return it->second;
  }

  // Appends one event and keeps the file valid JSON (see the top of the file).
  void write(const std::string& event) {
    if (file_ == nullptr || finished_) return;
    if (events_++ > 0) std::fputs(",\n", file_);
    std::fputs(event.c_str(), file_);
    if (!seekable_) return;
    std::fputs(kTrailer, file_);
    std::fflush(file_);
    std::fseek(file_, -static_cast<long>(std::char_traits<char>::length(kTrailer)), SEEK_CUR);
  }

  std::FILE* file_;
  bool seekable_;
  bool finished_ = false;
  uint64_t events_ = 0;
  uint64_t flows_ = 0;
  std::map<uint64_t, Root> roots_;  // root calls by seq: where their flows start
  std::set<uint32_t> named_;
  std::map<std::string, int> other_units_;
};

}  // namespace

std::unique_ptr<Sink> make_chrome_sink(const std::string& path) { return std::make_unique<ChromeSink>(path); }

bool flush_chrome_sink(Sink* sink, bool at_exit) {
  auto* chrome = dynamic_cast<ChromeSink*>(sink);
  if (chrome == nullptr) return false;
  if (at_exit) {
    chrome->finish();
  } else {
    chrome->flush();
  }
  return true;
}

}  // namespace minicuda::trace
