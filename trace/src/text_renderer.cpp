// TextRenderer: the coursework view. Produces, for the first cudaMalloc,
//
//   #7   cudart   cudaMalloc(devPtr=0x7ffc5e1c, size=262144)
//   #7   libcuda  ├─ cuMemAlloc_v2(bytesize=262144)
//   #7   kernel   │  ├─ ioctl(3</dev/nvidiactl>, NV_ESC_RM_ALLOC, 0x7ffc...)  [syscall]
//   #7   libcuda  │  └─ = CUDA_SUCCESS, *dptr=0x580000000000
//   #7   cudart   └─ = cudaSuccess
//
// The first column is the number of the outermost call (the API call the program made), then
// the layer, then the tree. A call's line is held back until it has a child or closes, so that
// a call without children reads as one line "call = result". Runs of one-line calls of the same
// function with the same status are folded ("… 86 more cuDeviceGetAttribute calls").
#include "minicuda/trace.h"

namespace minicuda::trace {

namespace {
std::string_view crossing(const Event& e) {
  if (e.mode == e.parent_mode || e.depth == 0) return "";
  if (e.mode == Mode::Kernel && e.parent_mode == Mode::User) return "  [syscall]";
  if (e.mode == Mode::Device) return "  [device]";
  return "";
}

std::string indent(uint32_t depth, std::string_view last) {
  std::string s;
  for (uint32_t i = 1; i < depth; ++i) s += "│  ";
  if (depth > 0) s += last;
  return s;
}

std::string_view function_name(const std::string& text) { return std::string_view(text).substr(0, text.find('(')); }
std::string_view status_of(const std::string& result) { return std::string_view(result).substr(0, result.find(',')); }
}  // namespace

TextRenderer::ThreadState& TextRenderer::state(uint32_t thread) {
  for (auto& ts : threads_) {
    if (ts.thread == thread) return ts;
  }
  threads_.push_back(ThreadState{thread, {}, {}});
  return threads_.back();
}

void TextRenderer::line(ThreadState& ts, const Event& e, std::string_view tree, std::string_view body) {
  flush_fold(ts);
  std::string root = e.thread > 1 ? fmt::format("t{}#{}", e.thread, e.root) : fmt::format("#{}", e.root);
  std::string text = fmt::format("{:<5}{}{:<9}{}{}", root, root.size() >= 5 ? " " : "", layer_name(e.layer), tree, body);
  emit_(ctx_, text);
}

void TextRenderer::flush_fold(ThreadState& ts) {
  Fold& f = ts.fold;
  if (!f.active) return;
  f.active = false;
  if (f.more == 0) return;
  const Event& e = f.first;
  std::string root = e.thread > 1 ? fmt::format("t{}#{}", e.thread, e.root) : fmt::format("#{}", e.root);
  std::string text = fmt::format("{:<5}{}{:<9}{}… {} more {} call{} = {}", root, root.size() >= 5 ? " " : "",
                                 layer_name(e.layer), indent(e.depth, "├─ "),
                                 f.more, function_name(e.text), f.more == 1 ? "" : "s", status_of(e.result));
  emit_(ctx_, text);
}

void TextRenderer::leaf(ThreadState& ts, const Event& e) {
  std::string key = fmt::format("{}|{}|{}", layer_name(e.layer), function_name(e.text), status_of(e.result));
  Fold& f = ts.fold;
  if (f.active && f.depth == e.depth && f.key == key) {
    ++f.more;
    return;
  }
  std::string body = e.result.empty() ? e.text : fmt::format("{} = {}", e.text, e.result);
  line(ts, e, indent(e.depth, "├─ "), fmt::format("{}{}", body, crossing(e)));
  f = Fold{true, e.depth, std::move(key), e, 0};
}

void TextRenderer::flush_open(ThreadState& ts) {
  for (auto& o : ts.open) {
    if (o.printed) continue;
    line(ts, o.event, indent(o.event.depth, "├─ "), fmt::format("{}{}", o.event.text, crossing(o.event)));
    o.printed = true;
  }
}

void TextRenderer::begin(const Event& e) {
  ThreadState& ts = state(e.thread);
  flush_open(ts);
  ts.open.push_back(Open{e, false});
}

void TextRenderer::end(const Event& e) {
  ThreadState& ts = state(e.thread);
  if (ts.open.empty() || ts.open.back().event.seq != e.seq) {
    // Begin was not seen (the sink was added mid-call): print the call alone.
    line(ts, e, indent(e.depth, "├─ "), fmt::format("{} = {}{}", e.text, e.result, crossing(e)));
    return;
  }
  Open o = std::move(ts.open.back());
  ts.open.pop_back();
  if (!o.printed) {
    leaf(ts, e);
    return;
  }
  if (e.result.empty()) {
    flush_fold(ts);
    return;
  }
  line(ts, e, indent(e.depth + 1, "└─ "), fmt::format("= {}", e.result));
}

void TextRenderer::finish() {
  for (auto& ts : threads_) flush_fold(ts);
}

void TextRenderer::note(const Event& e) {
  ThreadState& ts = state(e.thread);
  flush_open(ts);
  line(ts, e, indent(e.depth, "├─ "), e.text);
}

}  // namespace minicuda::trace
