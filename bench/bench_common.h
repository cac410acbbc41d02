// What every minicuda benchmark program shares: a reporter that keeps each benchmark's time per
// iteration for the ratio summary, and the rule that benchmarks measure the trace switched off.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

#include "minicuda/trace.h"

namespace bench {

// Prints as the console reporter does (in colour only on a terminal) and records ns[benchmark
// name] = real time per iteration, in nanoseconds whatever the benchmark's display unit, and its
// user counters. With --benchmark_repetitions the aggregates are recorded too ("NAME_median"...);
// median() prefers them.
class Recorder : public benchmark::ConsoleReporter {
 public:
  Recorder() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      ns[r.benchmark_name()] = r.GetAdjustedRealTime() * 1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit);
      for (const auto& [counter, value] : r.counters) counters[r.benchmark_name()][counter] = value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // The median of the repetitions if there were several, else the one run; -1 if not run.
  double median(const std::string& name) const {
    if (auto it = ns.find(name + "_median"); it != ns.end()) return it->second;
    if (auto it = ns.find(name); it != ns.end()) return it->second;
    return -1;
  }
  double median_counter(const std::string& name, const std::string& counter) const {
    for (const std::string& n : {name + "_median", name}) {
      auto it = counters.find(n);
      if (it == counters.end()) continue;
      auto c = it->second.find(counter);
      if (c != it->second.end()) return c->second;
    }
    return -1;
  }
  std::map<std::string, double> ns;
  std::map<std::string, std::map<std::string, double>> counters;
};

// CPU time of the whole process (every thread: the host's and the simulated device's), seconds.
inline double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Adds the counter "cpu_all_threads": the process's CPU seconds per iteration. On a loaded
// machine it stays near the work's own cost while the wall time does not.
class ProcessCpu {
 public:
  explicit ProcessCpu(benchmark::State& state) : state_(state), start_(process_cpu_seconds()) {}
  ~ProcessCpu() {
    state_.counters["cpu_all_threads"] =
        benchmark::Counter(process_cpu_seconds() - start_, benchmark::Counter::kAvgIterations);
  }

 private:
  benchmark::State& state_;
  double start_;
};

// False, with a message naming the program, if MINICUDA_TRACE is on.
inline bool trace_is_off(const char* program) {
  if (!minicuda::trace::enabled(minicuda::trace::Layer::Libcuda)) return true;
  std::fprintf(stderr, "%s: unset MINICUDA_TRACE: the benchmarks measure the trace switched off\n", program);
  return false;
}

}  // namespace bench
