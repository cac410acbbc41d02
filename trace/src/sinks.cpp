// The sinks chosen by MINICUDA_TRACE_FORMAT: the text tree and JSON lines, both written through
// spdlog (pattern "%v": the line is the whole message), and the in-memory Recorder for tests.
// The Chrome trace is chrome_sink.cpp's.
#include "sinks.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>

namespace minicuda::trace {

namespace {

std::shared_ptr<spdlog::logger> make_logger(const std::string& name, const std::string& path) {
  static std::atomic<int> counter{0};
  std::string unique = fmt::format("minicuda.{}.{}", name, counter.fetch_add(1));
  std::shared_ptr<spdlog::logger> logger;
  if (path.empty()) {
    logger = std::make_shared<spdlog::logger>(unique, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  } else {
    logger = std::make_shared<spdlog::logger>(
        unique, std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/true));
  }
  logger->set_pattern("%v");
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  return logger;
}

class TextSink : public Sink {
 public:
  explicit TextSink(const std::string& path)
      : logger_(make_logger("text", path)), renderer_(&TextSink::emit, this) {}
  void begin(const Event& e) override { renderer_.begin(e); }
  void end(const Event& e) override { renderer_.end(e); }
  void note(const Event& e) override { renderer_.note(e); }
  ~TextSink() override { renderer_.finish(); }
  void flush() {
    renderer_.finish();
    logger_->flush();
  }

 private:
  static void emit(void* ctx, std::string_view line) {
    static_cast<TextSink*>(ctx)->logger_->info("{}", line);
  }
  std::shared_ptr<spdlog::logger> logger_;
  TextRenderer renderer_;
};

}  // namespace

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {
// RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < s.size() && s[i] == '.' && (++i, digits() == 0)) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}
}  // namespace

std::string json_args(const std::vector<DeviceSpan::Arg>& args) {
  std::string out;
  for (const DeviceSpan::Arg& a : args) {
    if (a.number && is_json_number(a.value)) {
      out += fmt::format(",\"{}\":{}", json_escape(a.key), a.value);
    } else {
      out += fmt::format(",\"{}\":\"{}\"", json_escape(a.key), json_escape(a.value));
    }
  }
  return out;
}

namespace {

// One object per finished call and per note:
// {"seq":12,"parent":7,"root":7,"depth":2,"thread":1,"layer":"kernel","mode":"kernel",
//  "kind":"call","call":"ioctl(...)","result":"0"}
class JsonSink : public Sink {
 public:
  explicit JsonSink(const std::string& path) : logger_(make_logger("json", path)) {}
  void begin(const Event&) override {}
  void end(const Event& e) override { write(e); }
  void note(const Event& e) override { write(e); }
  void flush() { logger_->flush(); }

 private:
  void write(const Event& e) {
    logger_->info(
        "{{\"seq\":{},\"parent\":{},\"root\":{},\"depth\":{},\"thread\":{},\"layer\":\"{}\","
        "\"mode\":\"{}\",\"kind\":\"{}\",\"{}\":\"{}\"{}}}",
        e.seq, e.parent, e.root, e.depth, e.thread, layer_name(e.layer), mode_name(e.mode),
        e.kind == Kind::Call ? "call" : "note", e.kind == Kind::Call ? "call" : "text",
        json_escape(e.text),
        e.kind == Kind::Call ? fmt::format(",\"result\":\"{}\"", json_escape(e.result)) : "");
  }
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace

std::unique_ptr<Sink> make_text_sink(const std::string& path) { return std::make_unique<TextSink>(path); }
std::unique_ptr<Sink> make_json_sink(const std::string& path) { return std::make_unique<JsonSink>(path); }

void flush_sink(Sink* sink, bool at_exit) {
  if (auto* t = dynamic_cast<TextSink*>(sink)) t->flush();
  if (auto* j = dynamic_cast<JsonSink*>(sink)) j->flush();
  flush_chrome_sink(sink, at_exit);
  flush_html_sink(sink, at_exit);
}

// --- Recorder ----------------------------------------------------------------------------

void Recorder::begin(const Event& e) {
  std::lock_guard lock(mutex_);
  log_.push_back(Entry{Entry::Op::Begin, e});
}

void Recorder::end(const Event& e) {
  std::lock_guard lock(mutex_);
  log_.push_back(Entry{Entry::Op::End, e});
}

void Recorder::note(const Event& e) {
  std::lock_guard lock(mutex_);
  log_.push_back(Entry{Entry::Op::Note, e});
}

std::vector<Event> Recorder::events() const {
  std::lock_guard lock(mutex_);
  std::vector<Event> out;
  for (const Entry& entry : log_) {
    if (entry.op == Entry::Op::Begin || entry.op == Entry::Op::Note) out.push_back(entry.event);
    if (entry.op == Entry::Op::End) {
      for (auto it = out.rbegin(); it != out.rend(); ++it) {
        if (it->seq == entry.event.seq) {
          it->result = entry.event.result;
          it->host_end_ns = entry.event.host_end_ns;
          break;
        }
      }
    }
  }
  return out;
}

std::vector<std::string> Recorder::texts(Layer layer) const {
  std::vector<std::string> out;
  for (const Event& e : events()) {
    if (e.layer == layer) out.push_back(e.text);
  }
  return out;
}

std::string Recorder::tree() const {
  std::string text;
  TextRenderer renderer(
      [](void* ctx, std::string_view line) {
        auto* s = static_cast<std::string*>(ctx);
        s->append(line);
        s->push_back('\n');
      },
      &text);
  std::lock_guard lock(mutex_);
  for (const Entry& entry : log_) {
    switch (entry.op) {
      case Entry::Op::Begin: renderer.begin(entry.event); break;
      case Entry::Op::End: renderer.end(entry.event); break;
      case Entry::Op::Note: renderer.note(entry.event); break;
    }
  }
  renderer.finish();
  return text;
}

void Recorder::clear() {
  std::lock_guard lock(mutex_);
  log_.clear();
}

}  // namespace minicuda::trace
