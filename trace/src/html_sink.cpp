// The HTML sink (MINICUDA_TRACE_FORMAT=html): one self-contained file that a browser opens with
// no network. It holds the trace as data (every call with its layer, result and simulated host
// times, every note, every device span with its channel and the call that submitted it) and the
// viewer's code and style inline (html_viewer.h), which draws
//   - the call tree, one row per call or note, whose layers can be folded away;
//   - the timeline: a track per host thread with the program's calls, a track per engine with
//     the copies and grids, and an arrow from each call to the work it submitted.
// The events are kept in memory and the file is written at exit (flush at_exit), since the page
// is one document; a program that is killed leaves no file.
#include <cstdio>
#include <string>
#include <vector>

#include "html_viewer.h"
#include "sinks.h"

namespace minicuda::trace {

namespace {

class HtmlSink : public Sink {
 public:
  explicit HtmlSink(const std::string& path) : path_(path) {}
  ~HtmlSink() override { finish(); }

  void begin(const Event&) override {}

  void end(const Event& e) override {
    records_.push_back(fmt::format(
        "{{\"k\":\"c\",\"seq\":{},\"parent\":{},\"root\":{},\"th\":{},\"l\":\"{}\",\"t\":\"{}\",\"r\":\"{}\","
        "\"h0\":{},\"h1\":{}}}",
        e.seq, e.parent, e.root, e.thread, layer_name(e.layer), json_escape(e.text), json_escape(e.result), e.host_ns,
        e.host_end_ns));
  }

  void note(const Event& e) override {
    records_.push_back(fmt::format("{{\"k\":\"n\",\"seq\":{},\"parent\":{},\"root\":{},\"th\":{},\"l\":\"{}\",\"t\":\"{}\"}}",
                                   e.seq, e.parent, e.root, e.thread, layer_name(e.layer), json_escape(e.text)));
    if (!e.span) return;
    const DeviceSpan& s = *e.span;
    records_.push_back(fmt::format(
        "{{\"k\":\"s\",\"seq\":{},\"u\":\"{}\",\"n\":\"{}\",\"ch\":{},\"o\":{},\"s0\":{},\"s1\":{},\"a\":{{{}}}}}",
        e.seq, json_escape(s.unit), json_escape(s.name), s.chid, s.origin, s.start_ns, s.end_ns,
        s.args.empty() ? std::string() : json_args(s.args).substr(1)));
  }

  // Writes the page (once): the viewer with the records as its data.
  void finish() {
    if (written_) return;
    written_ = true;
    std::FILE* file = path_.empty() ? stderr : std::fopen(path_.c_str(), "w");
    if (file == nullptr) {
      std::fprintf(stderr, "minicuda: cannot write the HTML trace to %s: no trace\n", path_.c_str());
      return;
    }
    std::fputs(kViewerHead, file);
    std::fputs("<script>const MINICUDA_TRACE = [\n", file);
    for (size_t k = 0; k < records_.size(); ++k) {
      // "</" inside the data would end the script element: JSON allows it written as "<\/".
      std::string record = records_[k];
      for (size_t at = record.find("</"); at != std::string::npos; at = record.find("</", at + 2)) record.insert(at + 1, "\\");
      std::fputs(record.c_str(), file);
      std::fputs(k + 1 < records_.size() ? ",\n" : "\n", file);
    }
    std::fputs("];</script>\n", file);
    std::fputs(kViewerBody, file);
    if (file != stderr) std::fclose(file);
  }

 private:
  std::string path_;
  std::vector<std::string> records_;
  bool written_ = false;
};

}  // namespace

std::unique_ptr<Sink> make_html_sink(const std::string& path) { return std::make_unique<HtmlSink>(path); }

bool flush_html_sink(Sink* sink, bool at_exit) {
  auto* html = dynamic_cast<HtmlSink*>(sink);
  if (html == nullptr) return false;
  if (at_exit) html->finish();
  return true;
}

}  // namespace minicuda::trace
