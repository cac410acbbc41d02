// minicuda smi (no program): the simulated GPUs of every running minicuda program, as nvidia-smi
// shows the GPUs of a machine. Each program's nvidia.ko publishes its GPUs to a status file
// (minicuda/gpu_status.h); this reads the folder, drops what is stale (the pid is gone, or is
// another process now) or unreadable (a note on stderr, never a crash), and prints either the
// nvidia-smi table - a GPU row per simulated GPU, then the Processes table - or, with -q, the
// detailed query form. --loop N prints again every N seconds. It only reads files: nothing here
// links the layers that own the state.
#include <cuda.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "minicuda/gpu_status.h"
#include "minicuda/json_reader.h"
#include "minicuda/proc_stat.h"

namespace minicuda::cli {

namespace {

struct Gpu {
  unsigned long long index = 0, memory_total = 0, memory_used = 0, contexts = 0, channels = 0;
  unsigned long long util[4] = {};  // compute, ce0, ce1, ce2 (percent)
  unsigned long long grids = 0, copies = 0, kernel_channel = 0, simulated_ns = 0;
  std::string name, bus_id, uuid, kernel;
};

struct Client {
  unsigned long long gpu = 0, sim_pid = 0, memory_used = 0, contexts = 0, channels = 0;
  std::string handle;
};

struct Program {
  unsigned long long pid = 0, start_time = 0, interval_ms = 0;
  std::string name, driver_version;
  std::vector<Gpu> gpus;
  std::vector<Client> clients;
};

// The status document of format kGpuStatusVersion, or nullopt when a field is missing or of
// the wrong kind (a file of another version, or not a status file).
std::optional<Program> read_program(const json::Value& doc) {
  Program p;
  auto version = doc.integer_at("version");
  auto pid = doc.integer_at("pid"), start = doc.integer_at("start_time"), interval = doc.integer_at("interval_ms");
  auto name = doc.string_at("name"), driver = doc.string_at("driver_version");
  const auto* gpus = doc.array_at("gpus");
  const auto* processes = doc.array_at("processes");
  if (!version || *version != static_cast<unsigned long long>(kGpuStatusVersion) || !pid || *pid == 0 || !start ||
      !interval || !name || !driver || !gpus || !processes)
    return std::nullopt;
  p.pid = *pid, p.start_time = *start, p.interval_ms = *interval, p.name = *name, p.driver_version = *driver;
  for (const json::Value& g : *gpus) {
    Gpu gpu;
    const json::Value* util = g.get("utilization");
    auto n = g.string_at("name"), bus = g.string_at("bus_id"), uuid = g.string_at("uuid"), kernel = g.string_at("running_kernel");
    auto index = g.integer_at("index"), total = g.integer_at("memory_total"), used = g.integer_at("memory_used");
    auto contexts = g.integer_at("contexts"), channels = g.integer_at("channels"), grids = g.integer_at("grids");
    auto copies = g.integer_at("copies"), kchan = g.integer_at("running_kernel_channel");
    auto sim = g.integer_at("simulated_time_ns");
    if (!n || !bus || !uuid || !kernel || !index || !total || !used || !contexts || !channels || !grids || !copies ||
        !kchan || !sim || util == nullptr)
      return std::nullopt;
    const char* units[4] = {"compute", "ce0", "ce1", "ce2"};
    for (int u = 0; u < 4; ++u) {
      auto percent = util->integer_at(units[u]);
      if (!percent) return std::nullopt;
      gpu.util[u] = std::min<unsigned long long>(*percent, 100);
    }
    gpu.index = *index, gpu.memory_total = *total, gpu.memory_used = *used, gpu.contexts = *contexts;
    gpu.channels = *channels, gpu.grids = *grids, gpu.copies = *copies, gpu.kernel_channel = *kchan;
    gpu.simulated_ns = *sim, gpu.name = *n, gpu.bus_id = *bus, gpu.uuid = *uuid, gpu.kernel = *kernel;
    p.gpus.push_back(gpu);
  }
  for (const json::Value& c : *processes) {
    Client client;
    auto gpu = c.integer_at("gpu"), sim_pid = c.integer_at("sim_pid"), used = c.integer_at("memory_used");
    auto contexts = c.integer_at("contexts"), channels = c.integer_at("channels");
    auto handle = c.string_at("client");
    if (!gpu || !sim_pid || !used || !contexts || !channels || !handle) return std::nullopt;
    client.gpu = *gpu, client.sim_pid = *sim_pid, client.memory_used = *used, client.contexts = *contexts;
    client.channels = *channels, client.handle = *handle;
    p.clients.push_back(client);
  }
  return p;
}

// Is the program that wrote the file still running? Its pid must exist and, where /proc tells,
// have started when the file says (a later process may have the pid now).
bool alive(const Program& p) {
  if (p.pid > 0x7fffffffull) return false;
  if (kill(static_cast<pid_t>(p.pid), 0) != 0 && errno != EPERM) return false;
  unsigned long long started = process_start_time("/proc/" + std::to_string(p.pid) + "/stat");
  return started == 0 || p.start_time == 0 || started == p.start_time;
}

// Every live program's status, by pid. Unreadable files get a note on stderr; stale ones are
// skipped silently (the program was killed before it could remove its file).
std::vector<Program> read_programs(const std::string& dir) {
  std::vector<Program> programs;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return programs;
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) names.push_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& file : names) {
    const std::string suffix = ".json";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string stem = file.substr(0, file.size() - suffix.size());
    if (stem.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string path = dir + "/" + file;
    std::ifstream in(path);
    std::string text;
    char buffer[4096];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
      text.append(buffer, static_cast<size_t>(in.gcount()));
      if (text.size() > (1u << 20)) break;  // no status file is this long
    }
    std::optional<json::Value> doc = text.size() > (1u << 20) ? std::nullopt : json::parse(text);
    std::optional<Program> program = doc ? read_program(*doc) : std::nullopt;
    if (!program || std::to_string(program->pid) != stem) {
      std::fprintf(stderr, "minicuda smi: %s is not a status file of format %d: skipped\n", path.c_str(),
                   kGpuStatusVersion);
      continue;
    }
    if (alive(*program)) programs.push_back(std::move(*program));
  }
  return programs;
}

unsigned long long mib(unsigned long long bytes) { return bytes >> 20; }

std::string cuda_version() {
  return std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10);
}

std::string now_text() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", std::localtime(&t));
  return buf;
}

std::string driver_of(const std::vector<Program>& programs) {
  return programs.empty() ? std::string("N/A") : programs.front().driver_version;
}

// The nvidia-smi table: 91 columns, a GPU row (two lines) per simulated GPU, then the processes.
void print_table(const std::vector<Program>& programs) {
  const char* rule = "+-----------------------------------------------------------------------------------------+";
  const char* split = "+-----------------------------------------+------------------------+----------------------+";
  std::printf("%s\n%s\n", now_text().c_str(), rule);
  std::printf("| MINICUDA-SMI (simulated GPUs)    Driver Version: %-14s CUDA Version: %-9s |\n",
              driver_of(programs).c_str(), cuda_version().c_str());
  std::printf("|-----------------------------------------+------------------------+----------------------+\n");
  std::printf("| GPU  Name                   Program PID | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n");
  std::printf("| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n");
  std::printf("|=========================================+========================+======================|\n");
  size_t gpus = 0;
  for (const Program& p : programs) {
    for (const Gpu& g : p.gpus) {
      std::string memory = std::to_string(mib(g.memory_used)) + "MiB / " + std::to_string(mib(g.memory_total)) + "MiB";
      std::printf("| %3llu  %-23.23s %10llu | %16.16s   Off | %20s |\n", g.index, g.name.c_str(), p.pid,
                  g.bus_id.c_str(), "N/A");
      std::printf("| N/A   N/A    P0             N/A  /  N/A | %22s | %6llu%%      Default |\n", memory.c_str(),
                  g.util[0]);
      std::printf("%s\n", split);
      ++gpus;
    }
  }
  if (gpus == 0) {
    std::printf("| %-87s |\n", "No running minicuda program publishes a simulated GPU.");
    std::printf("%s\n", rule);
  }
  std::printf("\n%s\n", rule);
  std::printf("| %-87s |\n", "Processes:");
  std::printf("|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n");
  std::printf("|        ID   ID                                                               Usage      |\n");
  std::printf("|=========================================================================================|\n");
  size_t rows = 0;
  for (const Program& p : programs) {
    for (const Client& c : p.clients) {
      std::string name = p.name;
      if (p.clients.size() > 1) name += " [sim pid " + std::to_string(c.sim_pid) + "]";
      std::string memory = std::to_string(mib(c.memory_used)) + "MiB";
      std::printf("|  %3llu   N/A  N/A %15llu      C   %-35.35s %10s |\n", c.gpu, p.pid, name.c_str(), memory.c_str());
      ++rows;
    }
  }
  if (rows == 0) std::printf("|  %-86s |\n", "No running processes found");
  std::printf("%s\n", rule);
}

void line(int indent, const std::string& key, const std::string& value) {
  std::printf("%*s%-*s: %s\n", indent, "", 42 - indent, key.c_str(), value.c_str());
}

std::string mib_text(unsigned long long bytes) {
  return std::to_string(mib(bytes)) + " MiB (" + std::to_string(bytes) + " bytes)";
}

// The detailed form (nvidia-smi -q): every field of every GPU and process, and what is not
// simulated said so.
void print_query(const std::vector<Program>& programs) {
  size_t gpus = 0;
  for (const Program& p : programs) gpus += p.gpus.size();
  std::printf("\n==============MINICUDA-SMI LOG==============\n\n");
  line(0, "Timestamp", now_text());
  line(0, "Driver Version", driver_of(programs));
  line(0, "CUDA Version", cuda_version());
  line(0, "Attached GPUs", std::to_string(gpus) + " (simulated, in " + std::to_string(programs.size()) + " program(s))");
  for (const Program& p : programs) {
    for (const Gpu& g : p.gpus) {
      std::printf("GPU %s\n", g.bus_id.c_str());
      line(4, "Product Name", g.name);
      line(4, "Simulated By", "pid " + std::to_string(p.pid) + " (" + p.name + "), its device " + std::to_string(g.index));
      line(4, "GPU UUID", g.uuid);
      std::printf("    FB Memory Usage\n");
      line(8, "Total", mib_text(g.memory_total));
      line(8, "Used", mib_text(g.memory_used));
      line(8, "Free", mib_text(g.memory_total - std::min(g.memory_used, g.memory_total)));
      std::printf("    Utilization (host time, the last %llu ms)\n", p.interval_ms);
      line(8, "Gpu", std::to_string(g.util[0]) + " %");
      line(8, "Copy Engines", "ce0 " + std::to_string(g.util[1]) + " %, ce1 " + std::to_string(g.util[2]) + " %, ce2 " +
                                  std::to_string(g.util[3]) + " %");
      line(4, "Contexts", std::to_string(g.contexts));
      line(4, "Channels", std::to_string(g.channels));
      line(4, "Grids Launched", std::to_string(g.grids));
      line(4, "Copies and Memsets", std::to_string(g.copies));
      line(4, "Running Kernel",
           g.kernel.empty() ? std::string("None") : g.kernel + " (channel " + std::to_string(g.kernel_channel) + ")");
      line(4, "Simulated Time", std::to_string(g.simulated_ns) + " ns");
      for (const char* absent : {"Fan Speed", "Temperature", "Power Draw", "Clocks Event Reasons"})
        line(4, absent, "N/A (not simulated)");
      std::printf("    Processes\n");
      for (const Client& c : p.clients) {
        if (c.gpu != g.index) continue;
        line(8, "Process ID", std::to_string(p.pid));
        line(12, "Simulated PID", std::to_string(c.sim_pid));
        line(12, "RM Client", c.handle);
        line(12, "Type", "C");
        line(12, "Name", p.name);
        line(12, "Used GPU Memory", mib_text(c.memory_used));
        line(12, "Contexts", std::to_string(c.contexts));
        line(12, "Channels", std::to_string(c.channels));
      }
    }
  }
}

}  // namespace

int smi_live(const SmiLiveOptions& options) {
  for (;;) {
    std::vector<Program> programs = read_programs(gpu_status_directory());
    if (options.query) {
      print_query(programs);
    } else {
      print_table(programs);
    }
    std::fflush(stdout);
    if (options.loop_seconds <= 0) return 0;
    std::this_thread::sleep_for(std::chrono::seconds(options.loop_seconds));
  }
}

}  // namespace minicuda::cli
