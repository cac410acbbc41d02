// TextRenderer: the coursework view. Produces, for the first cudaMalloc,
//
//   #7   cudart   cudaMalloc(devPtr=0x7ffc5e1c, size=262144)
//   #7   libcuda  ├─ cuMemAlloc_v2(bytesize=262144)
//   #7   kernel   │  ├─ ioctl(fd=3, NV_ESC_RM_ALLOC, {...}) = 0  [syscall]
//   #7   libcuda  │  └─ = CUDA_SUCCESS, dptr=0x7e9000000000
//   #7   cudart   └─ = cudaSuccess
//
// The first column is the number of the outermost call (the API call the program made), then
// the layer, then the tree. A call's line is held back until it has a child or closes, so that
// a call without children reads as one line "call = result".
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
}  // namespace

TextRenderer::ThreadState& TextRenderer::state(uint32_t thread) {
  for (auto& ts : threads_) {
    if (ts.thread == thread) return ts;
  }
  threads_.push_back(ThreadState{thread, {}});
  return threads_.back();
}

void TextRenderer::line(const Event& e, std::string_view tree, std::string_view body) {
  std::string root = e.thread > 1 ? fmt::format("t{}#{}", e.thread, e.root) : fmt::format("#{}", e.root);
  std::string text = fmt::format("{:<5}{:<9}{}{}", root, layer_name(e.layer), tree, body);
  emit_(ctx_, text);
}

void TextRenderer::flush_open(ThreadState& ts) {
  for (auto& o : ts.open) {
    if (o.printed) continue;
    line(o.event, indent(o.event.depth, "├─ "), fmt::format("{}{}", o.event.text, crossing(o.event)));
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
    line(e, indent(e.depth, "├─ "), fmt::format("{} = {}{}", e.text, e.result, crossing(e)));
    return;
  }
  Open o = std::move(ts.open.back());
  ts.open.pop_back();
  if (!o.printed) {
    std::string body = e.result.empty() ? e.text : fmt::format("{} = {}", e.text, e.result);
    line(e, indent(e.depth, "├─ "), fmt::format("{}{}", body, crossing(e)));
    return;
  }
  if (e.result.empty()) return;
  line(e, indent(e.depth + 1, "└─ "), fmt::format("= {}", e.result));
}

void TextRenderer::note(const Event& e) {
  ThreadState& ts = state(e.thread);
  flush_open(ts);
  line(e, indent(e.depth, "├─ "), e.text);
}

}  // namespace minicuda::trace
