// Golden-trace helpers: run a scenario under a trace::Recorder, normalise what legitimately
// changes from run to run, and compare with (or, with MINICUDA_UPDATE_GOLDEN=1, rewrite) the file
// in tests/golden/data/.
//
// Normalisation keeps the trace readable as students see it:
//   - addresses in the device UVA window and in the simulated process's window are rebased to
//     where they are in a normal run: the first device allocation at 0x580000000000 (the VA
//     space starts 414 MiB below it, with libcuda's own memory), the process's window at
//     0x590000000000;
//   - other host addresses (the program's stack, heap and globals) become <host>;
//   - the "#N" call numbers restart at #1 and RM client handles at 0xc1d00001, pids read <pid>
//     (they count up over a test binary's life, and ctest may run tests in one process or many);
//   - lines of other host threads ("t2#..."), i.e. the GPU's own thread fetching and executing
//     work asynchronously, are left out: where they fall between the caller's lines depends on
//     timing. The golden files show the caller's view of each call.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "minicuda/kernel.h"

namespace golden {

// The device memory libcuda maps below a context's first allocation for itself, on the H200 the
// golden traces run on (driver/user/src/context_memory.h, context_reserve()).
inline constexpr uint64_t kContextMemory = 0x19e00000;

struct Windows {
  uint64_t uva_base = 0, uva_size = 0;
  uint64_t proc_base = 0, proc_size = 0;
};

// A fresh process with the kernel modules already loaded (their probe messages are not part of
// any call chain a golden test records). windows() describes its address ranges for normalise().
struct FreshProcess {
  FreshProcess() : process((minicuda::kernel::boot(), minicuda::kernel::spawn_process())), scope(*process) {}
  Windows windows(void* first_device_pointer) const {
    Windows w;
    // The VA space starts kContextMemory below the first allocation: libcuda's own memory.
    w.uva_base = first_device_pointer ? reinterpret_cast<uint64_t>(first_device_pointer) - kContextMemory : 0;
    w.uva_size = 512ull << 30;
    w.proc_base = process->mm().window_base();
    w.proc_size = process->mm().window_size();
    return w;
  }
  std::unique_ptr<minicuda::kernel::Process> process;
  minicuda::kernel::ProcessScope scope;
};

inline std::string normalise(const std::string& text, const Windows& w) {
  static const std::regex hex("0x[0-9a-f]{9,16}");
  static const std::regex root("^(t\\d+)?#\\d+ *");
  static const std::regex client("0xc1d0[0-9a-f]{4}");
  static const std::regex pid("pid \\d+");
  static const std::regex chid("(\\bch |channel |token |token=)(?:0x([0-9a-f]+)|(\\d+))");
  std::map<uint64_t, int> chids;
  std::map<std::string, int> roots;
  std::map<std::string, std::string> clients;
  std::string out;
  std::istringstream in(text);
  static const std::regex other_thread("^t\\d+#");
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, other_thread)) continue;
    std::smatch m;
    if (std::regex_search(line, m, root) && m.position(0) == 0) {
      std::string key = m.str(0);
      key.erase(key.find_last_not_of(' ') + 1);
      auto [it, fresh] = roots.try_emplace(key, static_cast<int>(roots.size()) + 1);
      std::string label = "#" + std::to_string(it->second);
      label.resize(5, ' ');
      line = label + line.substr(static_cast<size_t>(m.length(0)));
    }
    std::string rewritten;
    auto begin = std::sregex_iterator(line.begin(), line.end(), hex);
    size_t last = 0;
    for (auto i = begin; i != std::sregex_iterator(); ++i) {
      rewritten += line.substr(last, static_cast<size_t>(i->position(0)) - last);
      uint64_t v = std::stoull(i->str(0), nullptr, 16);
      if (v >= w.uva_base && v < w.uva_base + w.uva_size) {
        rewritten += "0x" + (std::stringstream() << std::hex << (v - w.uva_base + 0x580000000000ull - kContextMemory)).str();
      } else if (v >= w.proc_base && v < w.proc_base + w.proc_size) {
        rewritten += "0x" + (std::stringstream() << std::hex << (v - w.proc_base + 0x590000000000ull)).str();
      } else {
        rewritten += "<host>";
      }
      last = static_cast<size_t>(i->position(0) + i->length(0));
    }
    rewritten += line.substr(last);
    line = rewritten;
    std::string handles;
    last = 0;
    for (auto i = std::sregex_iterator(line.begin(), line.end(), client); i != std::sregex_iterator(); ++i) {
      handles += line.substr(last, static_cast<size_t>(i->position(0)) - last);
      auto [it, fresh] = clients.try_emplace(i->str(0), "");
      if (fresh) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0xc1d%05zx", clients.size());
        it->second = buf;
      }
      handles += it->second;
      last = static_cast<size_t>(i->position(0) + i->length(0));
    }
    handles += line.substr(last);
    line = std::regex_replace(handles, pid, "pid <pid>");
    // Channel ids (and so work-submit tokens, the same numbers) count up per GPU over the
    // binary's life: renumber them in order of appearance, keeping each spelling's form.
    std::string renumbered;
    last = 0;
    for (auto i = std::sregex_iterator(line.begin(), line.end(), chid); i != std::sregex_iterator(); ++i) {
      const std::smatch& m = *i;
      renumbered += line.substr(last, static_cast<size_t>(m.position(0)) - last);
      bool hex = m[2].matched;
      uint64_t value = std::stoull(hex ? m.str(2) : m.str(3), nullptr, hex ? 16 : 10);
      auto [it, fresh] = chids.try_emplace(value, static_cast<int>(chids.size()) + 1);
      renumbered += m.str(1) + (hex ? "0x" + (std::stringstream() << std::hex << it->second).str() : std::to_string(it->second));
      last = static_cast<size_t>(m.position(0) + m.length(0));
    }
    renumbered += line.substr(last);
    out += renumbered + "\n";
  }
  return out;
}

// Compares with tests/golden/data/<name>.txt (MINICUDA_GOLDEN_DIR is set by CMake).
inline void expect_golden(const std::string& name, const std::string& actual) {
  std::string path = std::string(MINICUDA_GOLDEN_DIR) + "/" + name + ".txt";
  if (const char* update = std::getenv("MINICUDA_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path << " (run with MINICUDA_UPDATE_GOLDEN=1 to create it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual) << "golden trace " << name << " changed; if intended, regenerate with "
                                    << "MINICUDA_UPDATE_GOLDEN=1 and review the diff";
}

}  // namespace golden
