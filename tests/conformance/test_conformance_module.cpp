// Conformance of module loads: tests/data/h200/module/probe_module.cu, kept exactly as it ran on
// the H200, is built against minicuda and run as it ran there (`probe_module IMGDIR`); every
// recorded answer must be minicuda's, except the known differences below, each with its reason.
// Its cache modes (`probe_module IMGDIR cache1|cache2|cache3|forcejit`) run as separate OS
// processes sharing one CUDA_CACHE_PATH, as run_probe_module.sh ran them, and are compared with
// cache/cache_run*.txt and forcejit.txt: a miss compiles (an info log), a hit does not, and the
// cache holds the same files after each run.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using Answers = std::map<std::string, std::string>;

Answers parse(std::istream& in) {
  Answers answers;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find(" = ");
    if (eq != std::string::npos && !line.starts_with("#")) answers[line.substr(0, eq)] = line.substr(eq + 3);
  }
  return answers;
}

Answers recorded(const std::string& file) {
  std::ifstream in(std::string(MINICUDA_H200_DATA) + "/module/" + file);
  EXPECT_TRUE(in.good()) << "missing " << file;
  return parse(in);
}

// Runs the probe with `env` set and `mode` after the image folder; its parsed output.
Answers run_probe(const std::string& env, const std::string& mode) {
  const std::string command = env + " " + MINICUDA_PROBE_MODULE_EXE + " " + MINICUDA_H200_DATA + "/module/img " + mode;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  while (pipe != nullptr && std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  if (pipe != nullptr) {
    EXPECT_EQ(pclose(pipe), 0) << command << " exited with an error:\n" << out;
  }
  std::istringstream in(out);
  return parse(in);
}

struct KnownDifference {
  const char* key;       // a key; for an unpinned one (minicuda nullptr) also every line key.*
  const char* minicuda;  // minicuda's answer; "(absent)": not printed; nullptr: the JIT's wording, not pinned here
  const char* why;
};

constexpr KnownDifference kKnownDifferences[] = {
    // NVIDIA's SASS is machine code for a real SM: the simulator cannot run it (docs/layers/libcuda.md).
    {"load.cubin_sm90_file", "209 CUDA_ERROR_NO_BINARY_FOR_GPU", "an NVIDIA cubin's SASS cannot run on the simulator"},
    {"cubin.sm90", "209 CUDA_ERROR_NO_BINARY_FOR_GPU", "the same cubin, from memory"},
    {"cubin.sm90.module_is_sentinel", "1", "the load failed, so *module is left as it was"},
    {"cubin.sm90.get_function", "(absent)", "asked only when the cubin loaded"},
    {"cubin.sm90.func_attr.num_regs", "(absent)", "asked only when the cubin loaded"},
    {"cubin.sm90.num_regs", "(absent)", "asked only when the cubin loaded"},
    {"cubin.truncated_64", nullptr, "a cubin cut to 64 bytes crashed the H200's driver; minicuda reads only its ELF "
                                    "header and answers 209"},
    // The H200 ran the sm_90 SASS of fatbin.sm90_and_ptx, so fatbin.ptx_only was the first load of
    // that PTX (compiled: an info log). minicuda JITs the PTX of both: the second is a cache hit.
    {"fatbin.ptx_only.info.log", "\"\"", "a cache hit: the same PTX was compiled for fatbin.sm90_and_ptx"},
    {"fatbin.ptx_only.info.log_size_back", "0", "the same cache hit"},
};

const KnownDifference* known_difference(const std::string& key) {
  for (const KnownDifference& d : kKnownDifferences)
    if (key == d.key) return &d;
  for (const KnownDifference& d : kKnownDifferences)  // a whole question: the unpinned ones
    if (d.minicuda == nullptr && key.starts_with(std::string(d.key) + ".")) return &d;
  return nullptr;
}

fs::path fresh_cache(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("minicuda_probe_module_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(ConformanceModule, EveryRecordedAnswer) {
  // The H200's JIT cache already held vadd.ptx when probe_module.txt was recorded (ptx.good
  // wrote no info log); a first run fills minicuda's the same way.
  const fs::path cache = fresh_cache("main");
  const std::string env = "CUDA_CACHE_PATH=" + cache.string();
  run_probe(env, "");
  const Answers expected = recorded("probe_module.txt");
  const Answers actual = run_probe(env, "");
  int matched = 0;
  for (const auto& [key, value] : expected) {
    const auto it = actual.find(key);
    const KnownDifference* d = known_difference(key);
    if (d != nullptr) {
      if (d->minicuda == nullptr) continue;
      const std::string mine = it == actual.end() ? "(absent)" : it->second;
      EXPECT_EQ(mine, d->minicuda) << key << ": a known difference (" << d->why << "), but minicuda's answer changed";
    } else if (it == actual.end()) {
      ADD_FAILURE() << key << ": recorded on the H200 (" << value << ") but minicuda did not answer it";
    } else {
      EXPECT_EQ(it->second, value) << key;
      matched += it->second == value;
    }
  }
  for (const auto& [key, value] : actual)
    if (!expected.count(key) && known_difference(key) == nullptr) ADD_FAILURE() << key << " = " << value << ": not recorded";
  EXPECT_GE(matched, 273);  // of the 282 recorded keys
  std::printf("probe_module.txt: %d of %zu keys match the H200\n", matched, expected.size());
  fs::remove_all(cache);
}

// One cache mode of the probe against its recording: every code, and whether each info log is
// empty (a hit) or not (a compile); the timings and the JIT's wording are not compared.
// `differs`: the loads whose compile-or-hit differs from the H200's (true: compiled here).
void expect_cache_run(const Answers& expected, const Answers& actual, const std::map<std::string, bool>& differs) {
  for (const auto& [key, value] : expected) {
    if (key.ends_with("load_us")) continue;
    const auto it = actual.find(key);
    ASSERT_NE(it, actual.end()) << key;
    SCOPED_TRACE(key);
    if (key.ends_with(".info.log") || key.ends_with(".info.log_size_back")) {
      const std::string load = key.substr(0, key.find(".info."));
      const auto d = differs.find(load);
      const bool compiled = d != differs.end() ? d->second : (value != "\"\"" && value != "0");
      EXPECT_EQ(it->second != "\"\"" && it->second != "0", compiled) << key;
    } else {
      EXPECT_EQ(it->second, value) << key;
    }
  }
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string() + " " + std::to_string(e.file_size()));
  return out;
}

TEST(ConformanceModule, TheJitCacheAcrossProcesses) {
  const fs::path cache = fresh_cache("cache");
  const std::string env = "CUDA_CACHE_PATH=" + cache.string();
  // cache1: cache.fatbin is compiled here (the H200 ran its SASS), so cache.ptxonly_fatbin, the
  // same PTX, is a hit here and a compile there.
  expect_cache_run(recorded("cache/cache_run1.txt"), run_probe(env, "cache1"),
                   {{"cache.fatbin", true}, {"cache.ptxonly_fatbin", false}});
  const auto after1 = files_in(cache);
  EXPECT_EQ(after1.size(), 3u);  // as cache_files_after1.txt: the index and one entry per PTX text
  EXPECT_EQ(after1.count("index 48"), 1u);
  expect_cache_run(recorded("cache/cache_run2.txt"), run_probe(env, "cache2"), {});
  EXPECT_EQ(files_in(cache), after1);
  expect_cache_run(recorded("cache/cache_run3.txt"), run_probe(env + " CUDA_CACHE_DISABLE=1", "cache3"),
                   {{"cache.fatbin", true}});
  EXPECT_EQ(files_in(cache), after1);
  expect_cache_run(recorded("cache/forcejit.txt"), run_probe(env + " CUDA_FORCE_PTX_JIT=1", "forcejit"), {});
  EXPECT_EQ(files_in(cache), after1);
  fs::remove_all(cache);
}

}  // namespace

// The JIT's options (tests/data/h200/jit_options/probe_jit_options.cu, kept as it ran on the H200,
// loading heavy.ptx, which nvcc made there): every load's result code, whether the kernel still
// computes what it computes without options, the error logs, and the register counts that the
// options decide (a limit below what the kernel needs, raised to 24; 64 by default, for 1024
// threads a block). Not compared: the counts that are the JIT's own register allocation (ptxas
// needs 110 registers for heavy, minicuda's allocator 151; at 64, ptxas spills nothing),
// hence the local memory of spills and the block size the registers allow; the info logs.
TEST(ConformanceModule, EveryJitOptionAnswer) {
  const fs::path cache = fresh_cache("jit_options");
  const std::string command = "CUDA_CACHE_PATH=" + cache.string() + " " + MINICUDA_PROBE_JIT_OPTIONS_EXE + " " +
                              MINICUDA_H200_DATA + "/jit_options/heavy.ptx";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  EXPECT_EQ(pclose(pipe), 0) << out;
  std::istringstream in(out);
  const Answers actual = parse(in);
  std::ifstream file(std::string(MINICUDA_H200_DATA) + "/jit_options/probe_jit_options.txt");
  ASSERT_TRUE(file.good());
  const Answers expected = parse(file);
  // The loads whose register count is the allocator's, not the option's.
  const std::set<std::string> own_count = {"default",          "verbose",          "max_registers_255",
                                           "max_registers_128", "max_registers_-1", "max_registers_256",
                                           "max_registers_1000", "optimization_level_0", "target_90",
                                           "target_from_context", "threads_per_block_128"};
  int matched = 0, compared = 0;
  for (const auto& [key, value] : expected) {
    const std::string load = key.substr(0, key.find('.'));
    const std::string field = key.size() > load.size() ? key.substr(load.size() + 1) : "";
    if (field == "info.log" || field == "local_size_bytes") continue;
    if ((field == "num_regs" || field == "max_threads_per_block") && own_count.count(load) != 0) continue;
    if (load.starts_with("optimization_level_") && field == "num_regs" && own_count.count(load) == 0) {
      EXPECT_EQ(actual.count(key), 1u) << key;  // the default limit applies at every level: 64
    }
    const auto it = actual.find(key);
    ++compared;
    if (it == actual.end()) {
      ADD_FAILURE() << key << ": recorded on the H200 (" << value << ") but minicuda did not answer it";
      continue;
    }
    EXPECT_EQ(it->second, value) << key;
    matched += it->second == value;
  }
  std::printf("probe_jit_options.txt: %d of %d compared keys match the H200 (%zu recorded)\n", matched, compared,
              expected.size());
  fs::remove_all(cache);
}
