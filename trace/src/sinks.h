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
// The Chrome trace (Trace Event Format JSON, chrome_sink.cpp); path "" means standard error.
std::unique_ptr<Sink> make_chrome_sink(const std::string& path);
// The HTML sink (html_sink.cpp): one self-contained page, written at exit.
std::unique_ptr<Sink> make_html_sink(const std::string& path);
// Flushes any of the sinks above. at_exit: the program is ending - a sink whose output needs a
// closing part that it could not keep written (the Chrome trace on standard error) writes it.
void flush_sink(Sink* sink, bool at_exit = false);
// flush_sink for the Chrome sink; false if sink is not one.
bool flush_chrome_sink(Sink* sink, bool at_exit);
// flush_sink for the HTML sink (at exit it writes the page); false if sink is not one.
bool flush_html_sink(Sink* sink, bool at_exit);
// s as the inside of a JSON string.
std::string json_escape(std::string_view s);
// A span's args as JSON object members, each after a comma: `,"key":270336,"limiter":"dram"`.
// A number arg whose value is not a JSON number is written as a string, so the output is always
// valid JSON.
std::string json_args(const std::vector<DeviceSpan::Arg>& args);
}  // namespace minicuda::trace
