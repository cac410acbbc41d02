// nv_smi: the status file of nvidia.ko, what `minicuda smi` reads (minicuda/gpu_status.h,
// docs/cli.md) - minicuda's NVML. The real nvidia-smi asks the kernel module, through NVML's
// ioctls, for each GPU's memory, utilisation and processes; a minicuda program simulates its GPUs
// inside its own host process, so the module publishes the same facts to a small file instead.
//
// When the program makes its first RM client (rm_server.cpp calls nv_smi_start), a thread
// "nv-smi" starts. Every interval it takes nv_lock() for a snapshot - per GPU: the PMA's used
// VRAM, the contexts (VA spaces) and channels of every client, the engines' busy time
// (gpu::EngineActivity) and the grid running now; per client: its pid and video memory - lets go
// of the lock, and writes the JSON to <pid>.json.tmp, renamed over <pid>.json. At exit the thread
// stops and the file is removed. A fork()ed child publishes nothing until its own first client:
// the file and the thread belong to the parent. The trace never shows any of this: it is the
// simulator's window, not part of the simulated stack.
#include <pthread.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <thread>

#include "minicuda/gpu_status.h"
#include "minicuda/proc_stat.h"
#include "minicuda/trace.h"
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {

// The publisher's state: made once, never destroyed (the thread may run while statics are).
struct Publisher {
  std::mutex mutex;
  std::condition_variable wake;            // stop requests; with mutex
  std::thread* thread = nullptr;           // guarded by mutex; leaked in a fork()ed child
  bool stop = false;                       // guarded by mutex
  pid_t owner = 0;                         // the process that started the thread; guarded by mutex
  std::string path;                        // DIR/<pid>.json; guarded by mutex
  int interval_ms = kGpuStatusDefaultIntervalMs;
  // The previous sample of each GPU's engines: utilisation is the busy share since then.
  // Only the publisher thread touches it.
  std::vector<gpu::EngineActivity::Sample> previous;
};

Publisher& publisher() {
  static auto* p = new Publisher;
  return *p;
}

// JSON string contents: quotes, backslashes and control characters escaped.
std::string json_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out;
}

std::string uuid_text(const uint8_t* u) {
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

unsigned percent(uint64_t busy, uint64_t interval) {
  if (interval == 0) return 0;
  uint64_t p = (busy * 100 + interval / 2) / interval;
  return static_cast<unsigned>(p > 100 ? 100 : p);
}

// One RM client's share of one GPU.
struct ClientUse {
  int pid = 0;
  NvHandle client = 0;
  uint64_t vidmem = 0;
  int contexts = 0, channels = 0;
};

// The status document, built under nv_lock().
std::string snapshot(Publisher& p, pid_t pid, unsigned long long started) {
  std::lock_guard lock(nv_lock());
  const int selected = nv_selected_gpu();
  const int count = nv_gpu_count();
  p.previous.resize(static_cast<size_t>(count));
  std::vector<std::vector<ClientUse>> uses(static_cast<size_t>(count));
  for (const auto& [handle, client] : rm_clients()) {
    std::vector<ClientUse> per_gpu(static_cast<size_t>(count));
    std::vector<bool> seen(static_cast<size_t>(count), false);
    for (const auto& [h, object] : client.objects) {
      if (object.hclass == NV01_ROOT_CLIENT || object.gpu < 0 || object.gpu >= count) continue;
      ClientUse& use = per_gpu[static_cast<size_t>(object.gpu)];
      seen[static_cast<size_t>(object.gpu)] = true;
      if (object.hclass == NV01_MEMORY_LOCAL_USER) use.vidmem += object.size;
      if (object.hclass == FERMI_VASPACE_A) use.contexts += 1;
      if (object.hclass == HOPPER_CHANNEL_GPFIFO_A) use.channels += 1;
    }
    for (int g = 0; g < count; ++g) {
      if (!seen[static_cast<size_t>(g)]) continue;
      ClientUse use = per_gpu[static_cast<size_t>(g)];
      use.pid = client.pid;
      use.client = handle;
      uses[static_cast<size_t>(g)].push_back(use);
    }
  }
  const char* program = program_invocation_short_name;
  std::string out = fmt::format(
      "{{\"version\":{},\"pid\":{},\"name\":\"{}\",\"start_time\":{},\"driver_version\":\"{}\",\"interval_ms\":{},"
      "\"gpus\":[",
      kGpuStatusVersion, pid, json_text(program ? program : "?"), started, kNvDriverVersion, p.interval_ms);
  for (int g = 0; g < count; ++g) {
    gpu::Device& device = nv_device(g);
    nv_select_gpu(g);
    const Pma& pma = nv_pma();
    const gpu::EngineActivity::Sample now = device.activity().sample();
    gpu::EngineActivity::Sample& before = p.previous[static_cast<size_t>(g)];
    const uint64_t interval = before.wall_ns != 0 && now.wall_ns > before.wall_ns ? now.wall_ns - before.wall_ns : 0;
    unsigned util[gpu::kTimelineUnits];
    for (int u = 0; u < gpu::kTimelineUnits; ++u) util[u] = percent(now.busy_ns[u] - before.busy_ns[u], interval);
    int contexts = 0, channels = 0;
    for (const ClientUse& use : uses[static_cast<size_t>(g)]) contexts += use.contexts, channels += use.channels;
    out += fmt::format(
        "{}{{\"index\":{},\"name\":\"{}\",\"bus_id\":\"{:08x}:{:02x}:{:02x}.0\",\"uuid\":\"{}\",\"memory_total\":{},"
        "\"memory_used\":{},\"contexts\":{},\"channels\":{},\"utilization\":{{\"compute\":{},\"ce0\":{},\"ce1\":{},"
        "\"ce2\":{}}},\"grids\":{},\"copies\":{},\"running_kernel\":\"{}\",\"running_kernel_channel\":{},"
        "\"simulated_time_ns\":{}}}",
        g ? "," : "", g, json_text(device.properties().name), device.properties().pci_domain, nv_gpu_bus(g),
        device.properties().pci_device, uuid_text(nv_gpu_uuid(g)), pma.size(),
        pma.size() - pma.free_bytes(), contexts, channels, util[0], util[1], util[2], util[3], now.work_items[0],
        now.work_items[1] + now.work_items[2] + now.work_items[3], json_text(now.kernel),
        now.kernel.empty() ? 0 : now.kernel_chid, device.now_ns());
    before = now;
  }
  nv_select_gpu(selected);
  out += "],\"processes\":[";
  bool first = true;
  for (int g = 0; g < count; ++g) {
    for (const ClientUse& use : uses[static_cast<size_t>(g)]) {
      out += fmt::format("{}{{\"gpu\":{},\"sim_pid\":{},\"client\":\"{}\",\"memory_used\":{},\"contexts\":{},\"channels\":{}}}",
                         first ? "" : ",", g, use.pid, hstr(use.client), use.vidmem, use.contexts, use.channels);
      first = false;
    }
  }
  return out + "]}\n";
}

// Writes the document next to the file and renames it over: a reader sees the old file or the
// new one, never a part. Errors leave the old file (the next round tries again).
void write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  FILE* f = std::fopen(temporary.c_str(), "w");
  if (f == nullptr) return;
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !written || std::rename(temporary.c_str(), path.c_str()) != 0)
    std::remove(temporary.c_str());
}

void publish_loop() {
  Publisher& p = publisher();
  const unsigned long long started = process_start_time("/proc/self/stat");
  pthread_setname_np(pthread_self(), "nv-smi");
  std::unique_lock lock(p.mutex);
  while (!p.stop) {
    const pid_t pid = p.owner;
    const std::string path = p.path;
    lock.unlock();
    write_atomically(path, snapshot(p, pid, started));
    lock.lock();
    p.wake.wait_for(lock, std::chrono::milliseconds(p.interval_ms), [&] { return p.stop; });
  }
}

// atexit: stops the thread and removes the file - only in the process that started them.
void stop_at_exit() {
  Publisher& p = publisher();
  std::thread* thread = nullptr;
  std::string path;
  {
    std::lock_guard lock(p.mutex);
    if (p.thread == nullptr || p.owner != getpid()) return;
    p.stop = true;
    thread = p.thread;
    path = p.path;
  }
  p.wake.notify_all();
  thread->join();
  std::remove(path.c_str());
  std::lock_guard lock(p.mutex);
  delete p.thread;
  p.thread = nullptr;
}

// fork(): the publisher's lock and nv_lock are held across it, so the child gets them free and
// no snapshot half-taken; the child has no publisher thread (only the forking thread survives).
void before_fork() {
  nv_lock().lock();
  publisher().mutex.lock();
}
void after_fork_parent() {
  publisher().mutex.unlock();
  nv_lock().unlock();
}
void after_fork_child() {
  Publisher& p = publisher();
  p.thread = nullptr;  // the parent's; it does not run here
  p.owner = 0;
  p.stop = false;
  p.previous.clear();
  p.mutex.unlock();
  nv_lock().unlock();
}

}  // namespace

void nv_smi_start() {
  Publisher& p = publisher();
  std::lock_guard lock(p.mutex);
  if (p.thread != nullptr || p.stop) return;
  if (const char* on = std::getenv("MINICUDA_SMI"); on != nullptr && std::string(on) == "0") return;
  static bool handlers = false;  // guarded by p.mutex
  if (!handlers) {
    handlers = true;
    std::atexit(stop_at_exit);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  }
  p.interval_ms = kGpuStatusDefaultIntervalMs;
  if (const char* ms = std::getenv("MINICUDA_SMI_INTERVAL_MS"); ms != nullptr && *ms != '\0') {
    char* end = nullptr;
    long value = std::strtol(ms, &end, 10);
    if (*end == '\0' && value > 0) p.interval_ms = value < kGpuStatusMinimumIntervalMs ? kGpuStatusMinimumIntervalMs
                                                   : value > 60000                      ? 60000
                                                                                        : static_cast<int>(value);
  }
  const std::string dir = gpu_status_directory();
  // Nowhere to write, or a folder someone else owns (another user's /tmp/minicuda-UID, a link):
  // publish nothing.
  struct stat st {};
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) return;
  for (int g = 0; g < nv_gpu_count(); ++g) nv_device(g).activity().enable();
  p.owner = getpid();
  p.path = dir + "/" + std::to_string(p.owner) + ".json";
  p.thread = new std::thread(publish_loop);
}

}  // namespace minicuda::nvidia
