// minicuda profile -- PROGRAM ARGS: runs the program with the GPU's Chrome trace written to a
// temporary file, then prints, for every kernel the SIMT executor ran (PTX kernels), the
// counters the compute engine wrote into its span's note as key=value pairs (docs/timing.md,
// "The work-aware model"):
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
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

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

std::string field(const std::string& line, const std::string& key) {
  std::smatch m;
  std::regex re("\"" + key + "\":(\"([^\"]*)\"|[-0-9.e]+)");
  if (!std::regex_search(line, m, re)) return "";
  return m[2].matched ? m.str(2) : m.str(1);
}

// The value of " key=value" in a span's note, or "".
std::string pair_value(const std::string& note, const std::string& key) {
  const size_t at = note.find(" " + key + "=");
  if (at == std::string::npos) return "";
  const size_t from = at + key.size() + 2;
  return note.substr(from, note.find(' ', from) - from);
}

// The compute track's spans, by kernel name, in the order the kernels first ran.
std::vector<std::pair<std::string, Kernel>> read_kernels(const std::string& path) {
  std::vector<std::pair<std::string, Kernel>> kernels;
  std::string compute_tid;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const std::string ph = field(line, "ph"), pid = field(line, "pid");
    if (pid != "2") continue;
    if (ph == "M" && line.find("\"name\":\"compute\"") != std::string::npos) compute_tid = field(line, "tid");
    if (ph != "X" || field(line, "tid") != compute_tid) continue;
    const std::string name = field(line, "name");
    auto it = std::find_if(kernels.begin(), kernels.end(), [&](const auto& k) { return k.first == name; });
    if (it == kernels.end()) it = kernels.insert(kernels.end(), {name, Kernel{}});
    Kernel& k = it->second;
    k.launches += 1;
    k.values["duration_us"].push_back(std::atof(field(line, "dur").c_str()));
    const std::string note = field(line, "note");
    const std::string limiter = pair_value(note, "limiter");
    if (limiter.empty()) continue;
    k.counted = true;
    k.limiters[limiter] += 1;
    for (const Metric& m : kMetrics) {
      const std::string v = pair_value(note, m.arg);
      if (!v.empty() && std::string(m.arg) != "duration_us") k.values[m.arg].push_back(std::atof(v.c_str()));
    }
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
