// What every minicuda benchmark program shares: a reporter that keeps each benchmark's time per
// iteration for the ratio summary, and the rule that benchmarks measure the trace switched off.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "minicuda/trace.h"

namespace bench {

// Prints as the console reporter does and records ns[benchmark name] = real time per iteration.
class Recorder : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) ns[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> ns;
};

// False, with a message naming the program, if MINICUDA_TRACE is on.
inline bool trace_is_off(const char* program) {
  if (!minicuda::trace::enabled(minicuda::trace::Layer::Libcuda)) return true;
  std::fprintf(stderr, "%s: unset MINICUDA_TRACE: the benchmarks measure the trace switched off\n", program);
  return false;
}

}  // namespace bench
