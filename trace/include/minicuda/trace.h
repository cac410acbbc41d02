// minicuda trace: the one public header of the trace layer.
//
// Every boundary crossing in minicuda (runtime -> libcuda -> syscall -> nvidia.ko -> GPU, and
// libc -> syscall -> kernel mm) opens a trace::Scope. A scope is an event with a sequence number,
// a parent (the enclosing scope on the same host thread), a layer, a mode (user / kernel /
// device), the call in call syntax and, when it closes, its result by name. Sinks turn events
// into the indented text tree students read (through spdlog), JSON lines, or an in-memory
// recording that tests assert on.
//
// Switched by environment, read once at the first trace point:
//   MINICUDA_TRACE         off (default) | 1 | all | a comma list of layers ("cudart,libcuda,kernel")
//   MINICUDA_TRACE_FILE    path of the output (default: standard error)
//   MINICUDA_TRACE_FORMAT  text (default) | json | chrome (Trace Event Format for ui.perfetto.dev)
//
// When tracing is off a trace point costs one relaxed atomic load and a predictable branch: the
// call text is only formatted when its layer is enabled (bench/bench_memory.cpp measures it).
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::trace {

// The layers of the stack, top to bottom. Each has a fixed mode (mode_of).
enum class Layer : uint8_t {
  App,      // the user's program (samples)
  Cudart,   // runtime/: cuda* functions (libcudart)
  Libc,     // runtime/libc: malloc/free
  Libcuda,  // driver/: cu* functions (the user-mode driver)
  Kernel,   // driver/kernel/os: syscall entry, fd table, mm
  Nvidia,   // driver/kernel/nvidia_ko: nvidia.ko, the resource manager (RM)
  Uvm,      // driver/kernel/nvidia_ko: nvidia-uvm.ko
  Gpu,      // device_sim/: the simulated GPU
  Warp,     // device_sim/: the SIMT executor's per-warp instruction trace (only when named)
  Count
};

enum class Mode : uint8_t { User, Kernel, Device };

enum class Kind : uint8_t { Call, Note };

constexpr Mode mode_of(Layer layer) {
  switch (layer) {
    case Layer::Kernel:
    case Layer::Nvidia:
    case Layer::Uvm:
      return Mode::Kernel;
    case Layer::Gpu:
    case Layer::Warp:
      return Mode::Device;
    default:
      return Mode::User;
  }
}

std::string_view layer_name(Layer layer);
std::string_view mode_name(Mode mode);

// Where and when a piece of device work ran, in the GPU's simulated time (docs/timing.md):
// what a device_span() note carries, and what the Chrome trace draws on the engine's track.
struct DeviceSpan {
  std::string unit;   // the engine: "compute", "ce0", "ce1", "ce2" (timeline_unit_name)
  std::string name;   // short: the kernel's name, "copy 4194304 B", "memset 1024 B"
  uint32_t chid = 0;  // the channel whose work it was
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t origin = 0;  // seq of the API call that submitted it (MINICUDA_SET_ORIGIN), 0: unknown
  // Named figures of the work (a PTX grid's counters, docs/timing.md): args of the span in the
  // Chrome trace, details of the span in the HTML viewer. A `number` arg's value is a finite
  // decimal number ("270336", "99.5"), written as a JSON number; any other value is a string.
  struct Arg {
    std::string key, value;
    bool number = true;
  };
  std::vector<Arg> args;
};

// One trace event. Calls are reported twice to sinks: at begin (result empty) and at end.
struct Event {
  uint64_t seq = 0;     // process-wide, 1-based, in begin order
  uint64_t parent = 0;  // seq of the enclosing visible scope on this thread; 0 for a root
  uint64_t root = 0;    // seq of the outermost scope (the API call the program made)
  uint32_t depth = 0;   // number of visible enclosing scopes
  uint32_t thread = 0;  // small per-process host-thread number, 1 = first thread that traced
  Layer layer = Layer::App;
  Mode mode = Mode::User;
  Mode parent_mode = Mode::User;  // mode of the parent, to mark crossings ([syscall], [device])
  Kind kind = Kind::Call;
  std::string text;    // the call in call syntax, or the note
  std::string result;  // the result by name (calls only; set at end)
  // The thread's simulated host time (set_host_clock) at begin, and for calls at end; 0 when no
  // host clock is registered.
  uint64_t host_ns = 0, host_end_ns = 0;
  std::optional<DeviceSpan> span;  // notes made by device_span()
};

// A consumer of events. Calls arrive as begin() then end() on the same thread, properly nested.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void begin(const Event& event) = 0;
  virtual void end(const Event& event) = 0;
  virtual void note(const Event& event) = 0;
};

// Renders events as the indented text tree of docs/architecture.md, one line at a time.
// A call without children is printed on one line ("call = result"); a call with children
// prints its line first, its children indented under "├─", and its result under "└─ =".
// Consecutive one-line calls of the same function with the same status fold into one line and
// a "… N more" line; sinks that keep every event (JSON, Recorder::events) are not affected.
class TextRenderer {
 public:
  using LineFn = void (*)(void* ctx, std::string_view line);
  TextRenderer(LineFn emit, void* ctx) : emit_(emit), ctx_(ctx) {}
  void begin(const Event& event);
  void end(const Event& event);
  void note(const Event& event);
  // Prints what is held back (a pending "… N more" line); call at the end of output.
  void finish();

 private:
  struct Open {
    Event event;
    bool printed = false;
  };
  // A run of one-line sibling calls of the same function with the same status, printed as its
  // first line plus "… N more" (the runtime's ~100 cuDeviceGetAttribute calls read as two lines).
  struct Fold {
    bool active = false;
    uint32_t depth = 0;
    std::string key;  // function name + status
    Event first;
    uint32_t more = 0;
  };
  struct ThreadState {
    uint32_t thread = 0;
    std::vector<Open> open;
    Fold fold;
  };
  ThreadState& state(uint32_t thread);
  void flush_open(ThreadState& ts);
  void flush_fold(ThreadState& ts);
  void leaf(ThreadState& ts, const Event& event);
  void line(ThreadState& ts, const Event& event, std::string_view tree, std::string_view body);

  LineFn emit_;
  void* ctx_;
  std::vector<ThreadState> threads_;  // guarded by the caller (Sink lock)
};

// Records every event in memory. While a Recorder is alive, every layer is traced to it (in
// addition to the sinks chosen by the environment). Tests use events() and tree().
class Recorder : public Sink {
 public:
  Recorder();
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void begin(const Event& event) override;
  void end(const Event& event) override;
  void note(const Event& event) override;

  // Calls (with their results) and notes in begin order.
  std::vector<Event> events() const;
  // The text tree of everything recorded, exactly as the text sink prints it.
  std::string tree() const;
  // The texts of recorded events of one layer, in order (e.g. every syscall).
  std::vector<std::string> texts(Layer layer) const;
  void clear();

 private:
  struct Entry {
    enum class Op : uint8_t { Begin, End, Note } op;
    Event event;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> log_;     // guarded by mutex_
  uint32_t previous_mask_ = 0;
};

// --- the fast path -----------------------------------------------------------------------

namespace detail {
inline constexpr uint32_t kUnconfigured = 0x8000'0000u;
inline std::atomic<uint32_t> g_mask{kUnconfigured};
uint32_t configure_from_environment();
uint64_t open_scope(Layer layer, std::string text);
void close_scope(uint64_t seq, std::string result);
void emit_note(Layer layer, std::string text);
void emit_span(DeviceSpan span, std::string text);
}  // namespace detail

// Is this layer traced? One relaxed load when configured.
inline bool enabled(Layer layer) {
  uint32_t mask = detail::g_mask.load(std::memory_order_relaxed);
  if (mask & detail::kUnconfigured) [[unlikely]]
    mask = detail::configure_from_environment();
  return (mask >> static_cast<unsigned>(layer)) & 1u;
}

// A traced call. Construct it at the top of the function that crosses a boundary; set the
// result before returning. Nothing is formatted when the layer is off.
class Scope {
 public:
  template <typename... Args>
  Scope(Layer layer, fmt::format_string<Args...> format, Args&&... args) {
    if (!enabled(layer)) return;
    seq_ = detail::open_scope(layer, fmt::format(format, std::forward<Args>(args)...));
  }
  ~Scope() {
    if (seq_) detail::close_scope(seq_, std::move(result_));
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // Sets the result printed when the scope closes ("CUDA_SUCCESS, dptr=0x...").
  template <typename... Args>
  void result(fmt::format_string<Args...> format, Args&&... args) {
    if (seq_) result_ = fmt::format(format, std::forward<Args>(args)...);
  }
  bool active() const { return seq_ != 0; }

 private:
  uint64_t seq_ = 0;
  std::string result_;
};

// A line inside the current scope that is not a call ("pool: grow by one 2 MiB chunk").
template <typename... Args>
void note(Layer layer, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(layer)) return;
  detail::emit_note(layer, fmt::format(format, std::forward<Args>(args)...));
}

// A GPU note that is also a span of device work (span.start_ns..end_ns on span.unit): text and
// JSON-lines sinks print it as the note it is; the Chrome trace places the span on the engine's
// track, with an arrow from the API call span.origin.
template <typename... Args>
void device_span(DeviceSpan span, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(Layer::Gpu)) return;
  detail::emit_span(std::move(span), fmt::format(format, std::forward<Args>(args)...));
}

// The seq of this thread's outermost open scope (the API call the program made), 0 if none.
uint64_t current_root();
// The host timeline's clock (libcuda's host_clock::now: this thread's simulated ns). Once set,
// every event carries it (Event::host_ns). The layer that owns the clock sets it at start-up.
void set_host_clock(uint64_t (*now)());

// Re-reads the environment (tests that set MINICUDA_TRACE call this) and reopens the sinks.
void reconfigure();
// Flushes the sinks chosen by the environment.
void flush();
// Adds or removes a sink (the Recorder does this itself).
void add_sink(Sink* sink);
void remove_sink(Sink* sink);
// Sets the enabled-layer mask directly; returns the previous mask. Bit n = Layer n.
uint32_t set_mask(uint32_t mask);
inline constexpr uint32_t kAllLayers = (1u << static_cast<unsigned>(Layer::Count)) - 1;

}  // namespace minicuda::trace
