// The trace core: sequence numbers, the per-thread scope stack, the sink list, and the
// configuration read from the environment (MINICUDA_TRACE, MINICUDA_TRACE_FILE,
// MINICUDA_TRACE_FORMAT: text, json, chrome or html). Sinks are called under sinks_mutex, so a sink
// needs no lock of its own for state it only touches from begin/end/note.
#include "minicuda/trace.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "sinks.h"

namespace minicuda::trace {

namespace {

struct OpenScope {
  uint64_t seq;
  Layer layer;
  uint64_t root;
  Event event;  // kept so that end() can hand the whole event to the sinks
};

struct ThreadStack {
  uint32_t thread = 0;
  std::vector<OpenScope> open;
};

std::atomic<uint64_t> g_seq{0};
std::atomic<uint32_t> g_threads{0};

ThreadStack& this_thread() {
  thread_local ThreadStack stack;
  if (stack.thread == 0) stack.thread = g_threads.fetch_add(1) + 1;
  return stack;
}

std::mutex& sinks_mutex() {
  static auto* m = new std::mutex;  // never destroyed: other threads may trace during exit
  return *m;
}

// guarded by sinks_mutex()
std::vector<Sink*>& sinks() {
  static auto* list = new std::vector<Sink*>;  // never destroyed (see sinks_mutex)
  return *list;
}

// The sink made from the environment; guarded by sinks_mutex().
std::unique_ptr<Sink>& env_sink() {
  static auto* sink = new std::unique_ptr<Sink>;  // never destroyed; flushed at exit
  return *sink;
}

uint32_t parse_layers(const char* spec) {
  if (spec == nullptr || *spec == '\0') return 0;
  std::string_view s(spec);
  if (s == "0" || s == "off" || s == "none") return 0;
  // Every layer but the warp trace, which prints a line per warp-instruction: it is on only
  // when named (MINICUDA_TRACE=warp).
  if (s == "1" || s == "all" || s == "on") return kAllLayers & ~(1u << static_cast<unsigned>(Layer::Warp));
  uint32_t mask = 0;
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    for (unsigned i = 0; i < static_cast<unsigned>(Layer::Count); ++i) {
      if (item == layer_name(static_cast<Layer>(i))) mask |= 1u << i;
    }
    // Friendly aliases for the layers students know by their library names.
    if (item == "runtime") mask |= 1u << static_cast<unsigned>(Layer::Cudart);
    if (item == "driver") mask |= 1u << static_cast<unsigned>(Layer::Libcuda);
    if (item == "nvidia.ko" || item == "rm") mask |= 1u << static_cast<unsigned>(Layer::Nvidia);
    if (item == "device" || item == "gpu") mask |= 1u << static_cast<unsigned>(Layer::Gpu);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return mask;
}

// Builds the environment's sink; called with sinks_mutex() held.
void install_env_sink_locked(uint32_t mask) {
  auto& list = sinks();
  if (env_sink()) {
    list.erase(std::remove(list.begin(), list.end(), env_sink().get()), list.end());
    env_sink().reset();
  }
  if (mask == 0) return;
  const char* file = std::getenv("MINICUDA_TRACE_FILE");
  const char* format = std::getenv("MINICUDA_TRACE_FORMAT");
  std::string path = file ? file : "";
  if (format && std::strcmp(format, "json") == 0) {
    env_sink() = make_json_sink(path);
  } else if (format && std::strcmp(format, "chrome") == 0) {
    env_sink() = make_chrome_sink(path);
  } else if (format && std::strcmp(format, "html") == 0) {
    env_sink() = make_html_sink(path);
  } else {
    env_sink() = make_text_sink(path);
  }
  list.push_back(env_sink().get());
}

// Recorders force every layer on; remembered so that reconfigure() keeps them working.
std::atomic<int> g_recorders{0};

}  // namespace

std::string_view layer_name(Layer layer) {
  switch (layer) {
    case Layer::App: return "app";
    case Layer::Cudart: return "cudart";
    case Layer::Libc: return "libc";
    case Layer::Libcuda: return "libcuda";
    case Layer::Kernel: return "kernel";
    case Layer::Nvidia: return "nvidia";
    case Layer::Uvm: return "uvm";
    case Layer::Gpu: return "gpu";
    case Layer::Warp: return "warp";
    case Layer::Count: break;
  }
  return "?";
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::User: return "user";
    case Mode::Kernel: return "kernel";
    case Mode::Device: return "device";
  }
  return "?";
}

namespace detail {

uint32_t configure_from_environment() {
  std::lock_guard lock(sinks_mutex());
  uint32_t current = g_mask.load(std::memory_order_relaxed);
  if (!(current & kUnconfigured)) return current;  // another thread won the race
  uint32_t mask = parse_layers(std::getenv("MINICUDA_TRACE"));
  install_env_sink_locked(mask);
  static bool flush_registered = false;
  if (mask != 0 && !flush_registered) {
    flush_registered = true;
    // Prints what the text tree holds back (a pending fold) and closes the Chrome trace's
    // JSON where it could not be kept closed (standard error).
    std::atexit([] {
      std::lock_guard lock(sinks_mutex());
      if (env_sink()) flush_sink(env_sink().get(), /*at_exit=*/true);
    });
  }
  if (g_recorders.load() > 0) mask = kAllLayers;
  g_mask.store(mask, std::memory_order_relaxed);
  return mask;
}

}  // namespace detail

namespace {
std::atomic<uint64_t (*)()> g_host_clock{nullptr};

uint64_t host_now() {
  uint64_t (*now)() = g_host_clock.load(std::memory_order_relaxed);
  return now != nullptr ? now() : 0;
}

// A new event on this thread, placed under the innermost open scope (or as a root).
Event make_event(ThreadStack& ts, Layer layer, Kind kind, std::string text) {
  Event e;
  e.host_ns = host_now();
  e.seq = g_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  e.thread = ts.thread;
  e.layer = layer;
  e.mode = mode_of(layer);
  e.kind = kind;
  e.text = std::move(text);
  e.depth = static_cast<uint32_t>(ts.open.size());
  if (ts.open.empty()) {
    e.parent = 0;
    e.root = e.seq;
    e.parent_mode = e.mode;
  } else {
    const OpenScope& top = ts.open.back();
    e.parent = top.seq;
    e.root = top.root;
    e.parent_mode = mode_of(top.layer);
  }
  return e;
}
}  // namespace

namespace detail {

uint64_t open_scope(Layer layer, std::string text) {
  ThreadStack& ts = this_thread();
  Event e = make_event(ts, layer, Kind::Call, std::move(text));
  {
    std::lock_guard lock(sinks_mutex());
    for (Sink* s : sinks()) s->begin(e);
  }
  uint64_t seq = e.seq;
  ts.open.push_back(OpenScope{seq, layer, e.root, std::move(e)});
  return seq;
}

void close_scope(uint64_t seq, std::string result) {
  ThreadStack& ts = this_thread();
  // Scopes are RAII objects, so the one closing is the innermost open one.
  if (ts.open.empty() || ts.open.back().seq != seq) return;
  OpenScope top = std::move(ts.open.back());
  ts.open.pop_back();
  top.event.result = std::move(result);
  top.event.host_end_ns = host_now();
  std::lock_guard lock(sinks_mutex());
  for (Sink* s : sinks()) s->end(top.event);
}

void emit_note(Layer layer, std::string text) {
  ThreadStack& ts = this_thread();
  Event e = make_event(ts, layer, Kind::Note, std::move(text));
  std::lock_guard lock(sinks_mutex());
  for (Sink* s : sinks()) s->note(e);
}

void emit_span(DeviceSpan span, std::string text) {
  ThreadStack& ts = this_thread();
  Event e = make_event(ts, Layer::Gpu, Kind::Note, std::move(text));
  e.span = std::move(span);
  std::lock_guard lock(sinks_mutex());
  for (Sink* s : sinks()) s->note(e);
}

}  // namespace detail

uint64_t current_root() {
  // Nothing traced, no scope open: and a thread that never traces keeps no thread number.
  if (detail::g_mask.load(std::memory_order_relaxed) == 0) return 0;
  const ThreadStack& ts = this_thread();
  return ts.open.empty() ? 0 : ts.open.front().seq;
}

void set_host_clock(uint64_t (*now)()) { g_host_clock.store(now, std::memory_order_relaxed); }

void reconfigure() {
  detail::g_mask.store(detail::kUnconfigured, std::memory_order_relaxed);
  detail::configure_from_environment();
}

void flush() {
  std::lock_guard lock(sinks_mutex());
  if (env_sink()) flush_sink(env_sink().get());
}

void add_sink(Sink* sink) {
  std::lock_guard lock(sinks_mutex());
  sinks().push_back(sink);
}

void remove_sink(Sink* sink) {
  std::lock_guard lock(sinks_mutex());
  auto& list = sinks();
  list.erase(std::remove(list.begin(), list.end(), sink), list.end());
}

uint32_t set_mask(uint32_t mask) {
  enabled(Layer::App);  // make sure the environment has been read first
  return detail::g_mask.exchange(mask, std::memory_order_relaxed);
}

Recorder::Recorder() {
  enabled(Layer::App);
  add_sink(this);
  g_recorders.fetch_add(1);
  previous_mask_ = set_mask(kAllLayers);
}

Recorder::~Recorder() {
  remove_sink(this);
  g_recorders.fetch_sub(1);
  set_mask(previous_mask_);
}

}  // namespace minicuda::trace

// --- for gdb (tools/gdb/minicuda_gdb.py, mc-stack) ----------------------------------------------
// The calling thread's open trace scopes, outermost first, one per line ("#12  libcuda  cuMemAlloc_v2(...)"):
// the call chain by layer, as the trace would print it. Called by the debugger in a stopped
// program, never by minicuda; only scopes of traced layers are open (MINICUDA_TRACE). The buffer
// is the thread's own and stays valid until its next call.
extern "C" [[gnu::used]] const char* minicuda_gdb_stack() {
  using namespace minicuda::trace;
  thread_local std::string text;
  text.clear();
  const auto& open = this_thread().open;
  for (size_t depth = 0; depth < open.size(); ++depth) {
    const Event& e = open[depth].event;
    text += fmt::format("#{:<4}{:<9}{}{}\n", e.root, layer_name(e.layer), std::string(2 * depth, ' '), e.text);
  }
  if (open.empty()) text = "no open trace scope on this thread (is MINICUDA_TRACE set?)\n";
  return text.c_str();
}

#if defined(MINICUDA_GDB_SCRIPT)
// gdb auto-loads the project's gdb helpers into every program that links the trace (all of them):
// a .debug_gdb_scripts entry naming the Python file (gdb loads it when its directory is in
// "auto-load safe-path"; docs/debugging.md says how).
asm(".pushsection \".debug_gdb_scripts\", \"MS\",@progbits,1\n"
    ".byte 1\n"
    ".asciz \"" MINICUDA_GDB_SCRIPT "\"\n"
    ".popsection\n");
#endif
