// Private to the trace layer: the sinks the environment can choose.
#pragma once
#include <memory>
#include <string>

#include "minicuda/trace.h"

namespace minicuda::trace {
// The indented text tree through spdlog; path "" means standard error.
std::unique_ptr<Sink> make_text_sink(const std::string& path);
// One JSON object per line and per event; path "" means standard error.
std::unique_ptr<Sink> make_json_sink(const std::string& path);
void flush_sink(Sink* sink);
}  // namespace minicuda::trace
