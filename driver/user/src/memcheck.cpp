// Memcheck mode (MINICUDA_MEMCHECK=1): the layout rule, the allocations' host call sites, and
// compute-sanitizer's reports of invalid accesses and leaks. See memcheck.h for the design.
//
// A call site is kept as raw return addresses (backtrace(), cheap) and resolved only when a report
// prints it: dladdr() names the module (and the function, if the program exports its symbols:
// minicuda_add_executable links with -rdynamic), and binutils' addr2line, when installed, gives
// the function and file:line from the debug information. Without addr2line a frame still shows
// the dladdr name (or none) and its offset in the module, as compute-sanitizer's frames do.
#include "memcheck.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pool.h"

namespace minicuda::libcuda::memcheck {

namespace {

struct Record {
  uint64_t size = 0;
  CallSite site;
};

// The process's memcheck state. Never destroyed, so that the exit report can run after static
// destructors have started.
struct State {
  std::mutex mutex;
  std::map<std::pair<const CUctx_st*, uint64_t>, Record> live;  // guarded by mutex
  uint64_t errors = 0;                                          // guarded by mutex
  bool exit_report = false;                                     // guarded by mutex
};
State& state() {
  static State* s = new State;
  return *s;
}

constexpr const char* kPrefix = "=========";

// --- host frames --------------------------------------------------------------------------------

struct Frame {
  uintptr_t pc = 0;          // the call instruction (return address - 1)
  std::string module_path;   // for addr2line
  std::string module;        // its file name, as printed
  uint64_t offset = 0;       // pc as addr2line wants it: relative to a PIE's base, else absolute
  std::string mangled;       // the function's symbol, "" if unknown
  std::string location;      // "file:line", "" if unknown
};

std::string demangle(const std::string& mangled) {
  if (mangled.empty()) return mangled;
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return mangled;
  std::string out(text);
  std::free(text);
  return out;
}

// Whether a function (by its symbol) is minicuda's: anything in namespace minicuda, and the CUDA
// API entry points of the runtime and the driver (cudaMalloc, cuMemAlloc_v2, and the C++ overloads
// of cuda_runtime.h such as cudaMalloc<float>).
bool minicuda_function(const std::string& mangled) {
  for (const char* prefix : {"_ZN8minicuda", "_ZNK8minicuda", "_ZZN8minicuda", "_ZZNK8minicuda"}) {
    if (mangled.rfind(prefix, 0) == 0) return true;
  }
  std::string name = mangled;
  if (mangled.rfind("_Z", 0) == 0) {  // a free function: _Z <length> <identifier> ...
    size_t i = 2, length = 0;
    while (i < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[i]))) length = length * 10 + (mangled[i++] - '0');
    if (length == 0 || i + length > mangled.size()) return false;
    name = mangled.substr(i, length);
  }
  auto api = [&name](size_t prefix) {
    return name.size() > prefix && std::isupper(static_cast<unsigned char>(name[prefix]));
  };
  return (name.rfind("cuda", 0) == 0 && api(4)) || (name.rfind("cu", 0) == 0 && api(2));
}

std::string exe_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// Fills module, offset and (from the dynamic symbol table) the name of a frame.
void locate(Frame& f) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(f.pc), &info) == 0) return;
  f.module_path = info.dli_fname != nullptr && info.dli_fname[0] != '\0' ? info.dli_fname : exe_path();
  f.module = f.module_path.substr(f.module_path.find_last_of('/') + 1);
  const auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  const auto* header = static_cast<const ElfW(Ehdr)*>(info.dli_fbase);
  f.offset = header != nullptr && header->e_type == ET_DYN ? f.pc - base : f.pc;
  if (info.dli_sname != nullptr) f.mangled = info.dli_sname;
}

// Asks addr2line for the function and file:line of every frame of one module. Leaves the frames
// as they are when addr2line is not installed or knows nothing.
void addr2line(const std::string& module_path, const std::vector<Frame*>& frames) {
  if (module_path.empty() || module_path.find('\'') != std::string::npos) return;
  std::string command = fmt::format("addr2line -f -e '{}'", module_path);
  for (const Frame* f : frames) command += fmt::format(" {:#x}", f->offset);
  command += " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return;
  std::vector<std::string> lines;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    lines.push_back(line);
  }
  pclose(pipe);
  if (lines.size() != 2 * frames.size()) return;  // not installed (the shell's 127), or confused
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string& function = lines[2 * i];
    std::string location = lines[2 * i + 1];
    if (size_t d = location.find(" (discriminator"); d != std::string::npos) location.resize(d);
    if (function != "??" && !function.empty()) frames[i]->mangled = function;
    // "??:0" or "file:?" when the module has no line table for the address.
    const bool known = location.rfind("??", 0) != 0 && !location.ends_with(":0") && !location.ends_with(":?");
    if (known) frames[i]->location = location;
  }
}

// The frames of several call sites, resolved together (one addr2line per module).
std::vector<std::vector<Frame>> resolve(const std::vector<const CallSite*>& sites) {
  std::vector<std::vector<Frame>> out(sites.size());
  std::map<std::string, std::vector<Frame*>> by_module;
  for (size_t s = 0; s < sites.size(); ++s) {
    out[s].resize(static_cast<size_t>(sites[s]->count));
    for (int i = 0; i < sites[s]->count; ++i) {
      Frame& f = out[s][static_cast<size_t>(i)];
      f.pc = reinterpret_cast<uintptr_t>(sites[s]->frames[i]) - (i == 0 ? 0 : 1);
      locate(f);
    }
  }
  for (auto& frames : out)
    for (Frame& f : frames) by_module[f.module_path].push_back(&f);
  for (auto& [module, frames] : by_module) addr2line(module, frames);
  return out;
}

// The "Host Frame:" lines of a call site: from the first frame that is not minicuda's own (the
// program's call of cudaMalloc or cuMemAlloc) down to main.
std::string host_frames(const CallSite& site, const std::vector<Frame>& frames) {
  int first = 0;
  for (int i = 0; i < site.count; ++i) {
    if (site.frames[i] == site.entry_return) first = i;  // libcuda's own frames end here
  }
  while (first < site.count && minicuda_function(frames[static_cast<size_t>(first)].mangled)) ++first;
  std::string out = fmt::format("{}     Saved host backtrace up to the CUDA API call at allocation time\n", kPrefix);
  for (int i = first; i < site.count; ++i) {
    const Frame& f = frames[static_cast<size_t>(i)];
    const std::string function = demangle(f.mangled);
    out += fmt::format("{}     Host Frame:{}{}{} [{:#x}] in {}\n", kPrefix, function.empty() ? "" : " ", function,
                       f.location.empty() ? "" : " in " + f.location, f.offset, f.module.empty() ? "?" : f.module);
    if (function == "main") break;  // what follows is the C library's start-up code
  }
  return out;
}

// The leak report of some records (by address), with their summary line; counts the errors.
// Caller holds state().mutex.
std::string leak_report(const std::vector<std::pair<uint64_t, const Record*>>& leaks) {
  if (leaks.empty()) return {};
  std::vector<const CallSite*> sites;
  for (const auto& leak : leaks) sites.push_back(&leak.second->site);
  const std::vector<std::vector<Frame>> frames = resolve(sites);
  std::string out;
  uint64_t bytes = 0;
  for (size_t i = 0; i < leaks.size(); ++i) {
    const auto& [start, record] = leaks[i];
    bytes += record->size;
    out += fmt::format("{} Leaked {} bytes at {:#x}\n", kPrefix, record->size, start);
    out += host_frames(record->site, frames[i]);
    out += fmt::format("{}\n", kPrefix);
  }
  out += fmt::format("{} LEAK SUMMARY: {} bytes leaked in {} allocations\n", kPrefix, bytes, leaks.size());
  state().errors += leaks.size();
  return out;
}

// At process exit: the allocations still live, then the error summary.
void exit_report() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::vector<std::pair<uint64_t, const Record*>> leaks;
  for (const auto& [key, record] : s.live) leaks.emplace_back(key.second, &record);
  std::sort(leaks.begin(), leaks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = leak_report(leaks);
  out += fmt::format("{} ERROR SUMMARY: {} error{}\n", kPrefix, s.errors, s.errors == 1 ? "" : "s");
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

// What the fault record's line says: "MMU fault: kernel K block (x,y,z) thread (x,y,z): message".
struct KernelFault {
  std::string kernel, block, thread, message;
};
bool parse_kernel_fault(const std::string& what, KernelFault* out) {
  const std::string prefix = "MMU fault: kernel ";
  if (what.rfind(prefix, 0) != 0) return false;
  const size_t thread = what.find(") thread (");
  if (thread == std::string::npos) return false;
  const size_t block = what.rfind(" block (", thread);
  const size_t thread_end = what.find("): ", thread);
  if (block == std::string::npos || block < prefix.size() || thread_end == std::string::npos) return false;
  out->kernel = what.substr(prefix.size(), block - prefix.size());
  out->block = what.substr(block + 7, thread + 1 - (block + 7));
  out->thread = what.substr(thread + 9, thread_end + 1 - (thread + 9));
  out->message = what.substr(thread_end + 3);
  return true;
}

}  // namespace

uint64_t place(uint64_t chunk_va, uint64_t chunk_size, uint64_t bytes) { return chunk_va + chunk_size - bytes; }

uint64_t promised_alignment(uint64_t bytes) {
  const uint64_t lowest_bit = bytes & (~bytes + 1);
  return std::min<uint64_t>(lowest_bit, 256);
}

__attribute__((noinline)) CallSite capture_call_site(void* entry_return) {
  CallSite site;
  site.count = backtrace(site.frames, kMaxFrames);
  if (site.count < 0) site.count = 0;
  site.entry_return = entry_return;
  return site;
}

void enable_exit_report() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.exit_report) return;
  s.exit_report = true;
  std::atexit(exit_report);
}

void on_alloc(const CUctx_st& ctx, uint64_t start, uint64_t size, const CallSite& site) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.live[{&ctx, start}] = Record{size, site};
}

void on_free(const CUctx_st& ctx, uint64_t start) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.live.erase({&ctx, start});
}

void on_teardown(const CUctx_st& ctx) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto first = s.live.lower_bound({&ctx, 0});
  auto last = s.live.upper_bound({&ctx, UINT64_MAX});
  std::vector<std::pair<uint64_t, const Record*>> leaks;
  for (auto it = first; it != last; ++it) leaks.emplace_back(it->first.second, &it->second);
  if (!leaks.empty()) {
    trace::note(trace::Layer::Libcuda, "memcheck: {} allocation{} never freed: leak report on stderr", leaks.size(),
                leaks.size() == 1 ? "" : "s");
    std::string out = leak_report(leaks);
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
  }
  s.live.erase(first, last);
}

bool report_access_error(const CUctx_st& ctx, const NvMinicudaFaultRecord& record) {
  if (record.xid != ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT) return false;
  KernelFault fault;
  if (!parse_kernel_fault(std::string(record.what, strnlen(record.what, sizeof record.what)), &fault)) return false;
  // The SM knows the address, unless the pointer was not canonical (then the CPU does not say it).
  const bool address_known = fault.message.rfind("illegal read of address", 0) == 0 ||
                             fault.message.rfind("illegal write of address", 0) == 0;
  if (!address_known && fault.message.rfind("illegal address (a non-canonical pointer)", 0) != 0) return false;

  // The access size is not known (the SIGSEGV behind the fault does not say it): not printed.
  std::string out = fmt::format("{} Invalid __global__ {}\n", kPrefix, record.write ? "write" : "read");
  out += fmt::format("{}     at {}\n", kPrefix, fault.kernel);
  out += fmt::format("{}     by thread {} in block {}\n", kPrefix, fault.thread, fault.block);
  if (!address_known) {
    out += fmt::format("{}     Address (a non-canonical pointer) is out of bounds\n", kPrefix);
  } else {
    out += fmt::format("{}     Address {:#x} is out of bounds\n", kPrefix, record.address);
  }
  uint64_t start = 0, size = 0;
  constexpr uint64_t kNear = 64ull << 20;  // farther than this, no allocation is "near"
  const uint64_t a = record.address;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (address_known && ctx.pool != nullptr && ctx.pool->nearest(a, &start, &size) && a + kNear >= start &&
      a < start + size + kNear) {
    // compute-sanitizer counts the first byte past the end as "1 bytes after".
    out += a < start ? fmt::format("{}     and is {} bytes before the nearest allocation at {:#x} of size {} bytes\n",
                                   kPrefix, start - a, start, size)
           : a < start + size
               ? fmt::format("{}     and is {} bytes inside the allocation at {:#x} of size {} bytes\n", kPrefix,
                             a - start, start, size)
               : fmt::format("{}     and is {} bytes after the nearest allocation at {:#x} of size {} bytes\n",
                             kPrefix, a - (start + size) + 1, start, size);
    if (auto it = s.live.find({&ctx, start}); it != s.live.end()) {
      out += host_frames(it->second.site, resolve({&it->second.site})[0]);
    }
  }
  out += fmt::format("{}\n", kPrefix);
  ++s.errors;
  trace::note(trace::Layer::Libcuda, "memcheck: the fault is an invalid __global__ {} of {:#x}: report on stderr",
              record.write ? "write" : "read", a);
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  return true;
}

}  // namespace minicuda::libcuda::memcheck
