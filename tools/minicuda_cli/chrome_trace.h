// Reading back a Chrome trace that a program run by `minicuda smi -- PROGRAM` or
// `minicuda profile -- PROGRAM` wrote (trace/src/chrome_sink.cpp: {"traceEvents":[...]}).
#pragma once

#include <string>
#include <vector>

#include "minicuda/json_reader.h"

namespace minicuda::cli {

// The trace's events in file order. A file that cannot be read or is not a Chrome trace gives
// none, and a line on stderr that names it.
std::vector<json::Value> chrome_trace_events(const std::string& path);

// The name of each track of process `pid` (its "thread_name" metadata events), by tid.
std::vector<std::pair<int, std::string>> track_names(const std::vector<json::Value>& events, int pid);

}  // namespace minicuda::cli
