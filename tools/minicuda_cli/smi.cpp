// minicuda smi -- PROGRAM ARGS: runs the program with the Chrome trace of libcuda and the GPU
// written to a temporary file, then reads that file back for an nvidia-smi-like summary:
//   - device memory: the cuMemAlloc* calls (bytesize, *dptr) and cuMemFree* calls (dptr),
//     in call order: the peak and what was still allocated at exit;
//   - the engines: every device span (a copy, a memset, a grid) on the compute, ce0, ce1 and
//     ce2 tracks, with its simulated duration; the channels that carried work.
// The figures are summed over all simulated GPUs: the trace's GPU tracks do not name the GPU.
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "chrome_trace.h"
#include "commands.h"

namespace minicuda::cli {
namespace {

struct Engine {
  int items = 0;
  double busy_us = 0;
};

struct Summary {
  std::map<std::string, Engine> engines;  // by track name
  std::set<long> channels;
  double gpu_end_us = 0;
  std::map<unsigned long long, unsigned long long> live;  // dptr -> bytes
  unsigned long long in_use = 0, peak = 0;
  int allocations = 0;
};

Summary read_trace(const std::string& path) {
  Summary s;
  const std::vector<json::Value> events = chrome_trace_events(path);
  std::map<int, std::string> units;  // the GPU's tracks: tid -> engine
  for (const auto& [tid, name] : track_names(events, 2)) units[tid] = name;
  static const std::regex alloc("^cuMemAlloc[A-Za-z_0-9]*\\(.*bytesize=([0-9]+)");
  static const std::regex allocated("\\*dptr=0x([0-9a-f]+)");
  static const std::regex freed("^cuMemFree[A-Za-z_0-9]*\\(dptr=0x([0-9a-f]+)");
  for (const json::Value& e : events) {
    const json::Value* args = e.get("args");
    if (e.string_at("ph") != "X" || args == nullptr) continue;
    if (e.number_at("pid") == 2) {
      auto unit = units.find(static_cast<int>(e.number_at("tid").value_or(-1)));
      Engine& engine = s.engines[unit != units.end() ? unit->second : "?"];
      const double ts = e.number_at("ts").value_or(0), dur = e.number_at("dur").value_or(0);
      engine.items += 1;
      engine.busy_us += dur;
      s.gpu_end_us = std::max(s.gpu_end_us, ts + dur);
      s.channels.insert(static_cast<long>(args->number_at("channel").value_or(0)));
      continue;
    }
    const std::string call = args->string_at("call").value_or(""), result = args->string_at("result").value_or("");
    std::smatch m, p;
    if (std::regex_search(call, m, alloc) && result.rfind("CUDA_SUCCESS", 0) == 0 &&
        std::regex_search(result, p, allocated)) {
      unsigned long long bytes = std::stoull(m.str(1));
      s.live[std::stoull(p.str(1), nullptr, 16)] = bytes;
      s.in_use += bytes;
      s.peak = std::max(s.peak, s.in_use);
      s.allocations += 1;
    } else if (std::regex_search(call, m, freed) && result.rfind("CUDA_SUCCESS", 0) == 0) {
      auto it = s.live.find(std::stoull(m.str(1), nullptr, 16));
      if (it != s.live.end()) {
        s.in_use -= it->second;
        s.live.erase(it);
      }
    }
  }
  return s;
}

std::string bytes_text(unsigned long long bytes) {
  char buf[64];
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) {
    std::snprintf(buf, sizeof buf, "%llu MiB", bytes >> 20);
  } else if (bytes >= 1024 && bytes % 1024 == 0) {
    std::snprintf(buf, sizeof buf, "%llu KiB", bytes >> 10);
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", bytes);
  }
  return buf;
}

void print(const Summary& s, const std::string& program, int status) {
  int count = 0;
  cudaDeviceProp p{};
  std::string gpus = "no simulated GPU";
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
    gpus = count == 1 ? std::string(p.name) : std::to_string(count) + " simulated GPUs (summed)";
  }
  const char* rule = "+------------+-------+----------------+--------+";
  std::printf("\nminicuda smi: %s exited with status %d; %s\n", program.c_str(), status, gpus.c_str());
  std::printf("Device memory (cuMemAlloc*): %d allocation(s), peak %s, at exit %s\n", s.allocations,
              bytes_text(s.peak).c_str(), bytes_text(s.in_use).c_str());
  std::printf("Channels that carried work: %zu; last GPU work ended at t=%.3f us (simulated)\n", s.channels.size(),
              s.gpu_end_us);
  std::printf("%s\n| %-10s | %5s | %14s | %6s |\n%s\n", rule, "engine", "items", "busy (us)", "busy %", rule);
  for (const char* unit : {"compute", "ce0", "ce1", "ce2"}) {
    auto it = s.engines.find(unit);
    Engine e = it != s.engines.end() ? it->second : Engine{};
    double percent = s.gpu_end_us > 0 ? 100.0 * e.busy_us / s.gpu_end_us : 0.0;
    std::printf("| %-10s | %5d | %14.3f | %5.1f%% |\n", unit, e.items, e.busy_us, percent);
  }
  std::printf("%s\n", rule);
}

}  // namespace

int smi(const std::vector<std::string>& command) {
  if (command.empty()) {
    std::fprintf(stderr, "minicuda smi: no program given; type minicuda smi -- PROGRAM ARGS...\n");
    return 2;
  }
  char path[] = "/tmp/minicuda-smi-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    std::fprintf(stderr, "minicuda smi: cannot create a temporary file: %s\n", std::strerror(errno));
    return 1;
  }
  close(fd);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child == 0) {
    setenv("MINICUDA_TRACE", "libcuda,gpu", 1);
    setenv("MINICUDA_TRACE_FORMAT", "chrome", 1);
    setenv("MINICUDA_TRACE_FILE", path, 1);
    std::vector<char*> argv;
    for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    int err = errno;
    std::fprintf(stderr, "minicuda smi: cannot run '%s': %s\n", argv[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  int wstatus = 0;
  if (child < 0 || waitpid(child, &wstatus, 0) < 0) {
    std::fprintf(stderr, "minicuda smi: cannot start the program: %s\n", std::strerror(errno));
    unlink(path);
    return 1;
  }
  int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  if (status == 126 || status == 127) {
    unlink(path);
    return status;
  }
  Summary summary = read_trace(path);
  unlink(path);
  print(summary, command[0], status);
  return status;
}

}  // namespace minicuda::cli
