// minicuda profile -- PROGRAM ARGS: runs the program with the GPU's Chrome trace written to a
// temporary file, then prints, for every kernel the SIMT executor ran (PTX kernels), the
// counters the compute engine gave its span as args (docs/timing.md, "The work-aware model"):
// one table per kernel name, its launches summarised as Min / Max / Average - the shape of
// `ncu --print-summary per-kernel`. Kernels timed by the wave model (C++ kernels) carry no
// counters and are listed by name only.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chrome_trace.h"
#include "commands.h"

namespace minicuda::cli {
namespace {

// The rows of a kernel's table: the span's arg, its label and unit.
struct Metric {
  const char* arg;
  const char* label;
  const char* unit;
};
const Metric kMetrics[] = {
    {"duration_us", "Duration", "usecond"},
    {"achieved_occupancy_pct", "Achieved Occupancy", "%"},
    {"inst_executed", "Executed Instructions", "inst"},
    {"warp_efficiency_pct", "Warp Execution Efficiency", "%"},
    {"global_requests", "Global Memory Requests", "request"},
    {"sectors_per_request", "Sectors Per Request", "sector"},
    {"l1_hit_pct", "L1/TEX Hit Rate", "%"},
    {"l2_hit_pct", "L2 Hit Rate", "%"},
    {"dram_read_bytes", "DRAM Bytes Read", "byte"},
    {"dram_write_bytes", "DRAM Bytes Written", "byte"},
    {"shared_bank_conflicts", "Shared Memory Bank Conflicts", "conflict"},
    {"waves_model_ns", "Wave Model Duration", "nsecond"},
};

struct Kernel {
  int launches = 0;
  bool counted = false;
  std::map<std::string, std::vector<double>> values;  // arg -> one value per launch
  std::map<std::string, int> limiters;
};

// The compute track's spans, by kernel name, in the order the kernels first ran. A PTX grid's
// span carries its counters as args (a number each, and the limiter's name).
std::vector<std::pair<std::string, Kernel>> read_kernels(const std::string& path) {
  const std::vector<json::Value> events = chrome_trace_events(path);
  int compute_tid = -1;
  for (const auto& [tid, name] : track_names(events, 2))
    if (name == "compute") compute_tid = tid;
  std::vector<std::pair<std::string, Kernel>> kernels;
  for (const json::Value& e : events) {
    const std::optional<std::string> name = e.string_at("name");
    const json::Value* args = e.get("args");
    if (e.string_at("ph") != "X" || e.number_at("pid") != 2 || e.number_at("tid") != compute_tid || !name ||
        args == nullptr)
      continue;
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const auto& k) { return k.first == *name; });
    if (it == kernels.end()) it = kernels.insert(kernels.end(), {*name, Kernel{}});
    Kernel& k = it->second;
    k.launches += 1;
    k.values["duration_us"].push_back(e.number_at("dur").value_or(0));
    const std::optional<std::string> limiter = args->string_at("limiter");
    if (!limiter) continue;
    k.counted = true;
    k.limiters[*limiter] += 1;
    for (const Metric& m : kMetrics)
      if (std::optional<double> v = args->number_at(m.arg); v && std::string(m.arg) != "duration_us")
        k.values[m.arg].push_back(*v);
  }
  return kernels;
}

void print_kernel(const std::string& name, const Kernel& k) {
  std::printf("  %s, launches: %d\n", name.c_str(), k.launches);
  if (!k.counted) {
    std::printf("    (timed by the wave model: no counters; run its PTX to see them)\n\n");
    return;
  }
  std::printf("    Section: minicuda counters (simulated H200)\n");
  std::printf("    %-30s %-9s %14s %14s %14s\n", "Metric Name", "Unit", "Minimum", "Maximum", "Average");
  std::printf("    %s %s %s %s %s\n", std::string(30, '-').c_str(), std::string(9, '-').c_str(),
              std::string(14, '-').c_str(), std::string(14, '-').c_str(), std::string(14, '-').c_str());
  for (const Metric& m : kMetrics) {
    auto it = k.values.find(m.arg);
    if (it == k.values.end() || it->second.empty()) continue;
    const std::vector<double>& v = it->second;
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("    %-30s %-9s %14.2f %14.2f %14.2f\n", m.label, m.unit, *std::min_element(v.begin(), v.end()),
                *std::max_element(v.begin(), v.end()), sum / static_cast<double>(v.size()));
  }
  std::string limiters;
  for (const auto& [l, n] : k.limiters) limiters += (limiters.empty() ? "" : ", ") + l + " x" + std::to_string(n);
  std::printf("    %-30s %s\n\n", "Limiter (model)", limiters.c_str());
}

}  // namespace

int profile(const std::vector<std::string>& command) {
  if (command.empty()) {
    std::fprintf(stderr, "minicuda profile: no program given; type minicuda profile -- PROGRAM ARGS...\n");
    return 2;
  }
  char path[] = "/tmp/minicuda-profile-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    std::fprintf(stderr, "minicuda profile: cannot create a temporary file: %s\n", std::strerror(errno));
    return 1;
  }
  close(fd);
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    setenv("MINICUDA_TRACE", "gpu", 1);
    setenv("MINICUDA_TRACE_FORMAT", "chrome", 1);
    setenv("MINICUDA_TRACE_FILE", path, 1);
    std::vector<char*> argv;
    for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    std::fprintf(stderr, "minicuda profile: cannot run '%s': %s\n", argv[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  int wstatus = 0;
  if (child < 0 || waitpid(child, &wstatus, 0) < 0) {
    std::fprintf(stderr, "minicuda profile: cannot start the program: %s\n", std::strerror(errno));
    unlink(path);
    return 1;
  }
  const int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  if (status == 126 || status == 127) {
    unlink(path);
    return status;
  }
  const auto kernels = read_kernels(path);
  unlink(path);
  std::printf("\n==PROF== minicuda profile: %s exited with status %d; %zu kernel(s)\n\n", command[0].c_str(), status,
              kernels.size());
  for (const auto& [name, k] : kernels) print_kernel(name, k);
  return status;
}

}  // namespace minicuda::cli
