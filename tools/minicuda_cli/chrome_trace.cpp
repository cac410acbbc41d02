// Reading back a Chrome trace (chrome_trace.h).
#include "chrome_trace.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace minicuda::cli {

std::vector<json::Value> chrome_trace_events(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::optional<json::Value> trace = json::parse(text.str());
  if (!trace || trace->array_at("traceEvents") == nullptr) {
    std::fprintf(stderr, "minicuda: the trace %s is not a Chrome trace: nothing to show\n", path.c_str());
    return {};
  }
  return std::move(trace->members["traceEvents"].items);
}

std::vector<std::pair<int, std::string>> track_names(const std::vector<json::Value>& events, int pid) {
  std::vector<std::pair<int, std::string>> out;
  for (const json::Value& e : events) {
    const json::Value* args = e.get("args");
    if (e.string_at("ph") != "M" || e.number_at("pid") != pid || e.string_at("name") != "thread_name" ||
        args == nullptr || !e.number_at("tid") || !args->string_at("name"))
      continue;
    out.emplace_back(static_cast<int>(*e.number_at("tid")), *args->string_at("name"));
  }
  return out;
}

}  // namespace minicuda::cli
