// The JIT cache (driver/user/src/jit_cache.cpp): its files in the recorded layout
// (tests/data/h200/module/cache/README.md), a miss that compiles and a hit that loads - in a
// second simulated process, with the kernel still running - CUDA_CACHE_DISABLE,
// CUDA_CACHE_MAXSIZE, CUDA_FORCE_PTX_JIT, and a corrupt entry read as a miss. (Two OS processes:
// tests/conformance/test_conformance_module.cpp runs the probe's cache modes.)
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "driver_fixtures.h"
#include "jit_cache.h"
#include "minicuda/trace.h"
#include "module_probe.h"

namespace minicuda::testing {
namespace {

namespace jit_cache = minicuda::libcuda::jit_cache;
namespace fs = std::filesystem;

// Sets an environment variable for the test's lifetime, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? (void)::setenv(name_, old_.c_str(), 1) : (void)::unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// The cache's files below dir ("index", "0/a/d9b60aba70573e", ...).
std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  return out;
}

bool noted(const trace::Recorder& recorder, const std::string& text) {
  for (const trace::Event& e : recorder.events())
    if (e.kind == trace::Kind::Note && e.text.find(text) != std::string::npos) return true;
  return false;
}

class JitCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("minicuda_jit_cache_{}_{}", ::getpid(), counter_++);
    fs::remove_all(dir_);
    ptx_ = image_file("vadd.ptx").c_str();  // the text, without the NUL image_file appends
  }
  void TearDown() override { fs::remove_all(dir_); }

  // In a fresh simulated process: cuInit, a context, load `ptx` with a verbose info log; the
  // load's result, the info log, and (when run) vadd's c[1000] for the probe's inputs.
  struct Load {
    CUresult result = CUDA_ERROR_UNKNOWN;
    std::string info_log;
    float c1000 = -1;
  };
  Load load_in_new_process(const std::string& ptx, bool run = false) {
    auto process = kernel::spawn_process();
    kernel::ProcessScope scope(*process);
    Load out;
    EXPECT_EQ(cuInit(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    EXPECT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    EXPECT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    char info[8192] = {};
    CUjit_option opt[3] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void* val[3] = {info, reinterpret_cast<void*>(uintptr_t{sizeof info}), reinterpret_cast<void*>(uintptr_t{1})};
    CUmodule m = nullptr;
    out.result = cuModuleLoadDataEx(&m, ptx.c_str(), 3, opt, val);
    out.info_log = info;
    if (out.result == CUDA_SUCCESS && run) {
      CUfunction f = nullptr;
      EXPECT_EQ(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
      std::vector<float> a(1024), b(1024);
      for (int i = 0; i < 1024; ++i) a[i] = static_cast<float>(i), b[i] = static_cast<float>(2 * i);
      CUdeviceptr da = 0, db = 0, dc = 0;
      cuMemAlloc(&da, 4096), cuMemAlloc(&db, 4096), cuMemAlloc(&dc, 4096);
      cuMemcpyHtoD(da, a.data(), 4096), cuMemcpyHtoD(db, b.data(), 4096);
      int n = 1024;
      void* args[] = {&da, &db, &dc, &n};
      EXPECT_EQ(cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
      EXPECT_EQ(cuMemcpyDtoH(a.data(), dc, 4096), CUDA_SUCCESS);
      out.c1000 = a[1000];
    }
    if (m != nullptr) cuModuleUnload(m);
    return out;
  }
  bool jit_works() {
    ScopedEnv off("CUDA_CACHE_DISABLE", "1");
    return load_in_new_process(ptx_).result == CUDA_SUCCESS;
  }

  fs::path dir_;
  std::string ptx_;
  static inline int counter_ = 0;
};

TEST_F(JitCache, EntryPathsAndKeys) {
  EXPECT_EQ(jit_cache::entry_path(0x0ad9b60aba70573eull), "0/a/d9b60aba70573e");  // the recorded file's name
  ptx::CompileOptions o;
  const uint64_t k = jit_cache::key_of(ptx_, o);
  EXPECT_EQ(k, jit_cache::key_of(ptx_, o));
  o.target_sm = 80;
  EXPECT_NE(k, jit_cache::key_of(ptx_, o));  // the target is part of the key
  o.target_sm = 90;
  o.max_registers = 32;
  EXPECT_NE(k, jit_cache::key_of(ptx_, o));  // so are the options that change code
  EXPECT_NE(k, jit_cache::key_of(ptx_ + " ", ptx::CompileOptions{}));
}

TEST_F(JitCache, AMissCompilesAndASecondProcessHits) {
  if (!jit_works()) GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
  ScopedEnv path("CUDA_CACHE_PATH", dir_.string());
  trace::Recorder first_trace;
  Load first = load_in_new_process(ptx_, true);
  ASSERT_EQ(first.result, CUDA_SUCCESS);
  EXPECT_TRUE(noted(first_trace, "JIT cache miss: compiling"));
  EXPECT_NE(first.info_log, "");  // compiled: the JIT's info lines (cache_run1.txt)
  const std::string entry = jit_cache::entry_path(jit_cache::key_of(ptx_, ptx::CompileOptions{}));
  EXPECT_EQ(files_in(dir_), (std::set<std::string>{"index", entry}));
  // The index: a header (version, count, total bytes) and one (key, size) per entry.
  EXPECT_EQ(fs::file_size(dir_ / "index"), 16u + 16u);
  std::ifstream index(dir_ / "index", std::ios::binary);
  uint32_t head[2] = {};
  uint64_t total = 0, key = 0, size = 0;
  index.read(reinterpret_cast<char*>(head), 8).read(reinterpret_cast<char*>(&total), 8);
  index.read(reinterpret_cast<char*>(&key), 8).read(reinterpret_cast<char*>(&size), 8);
  EXPECT_EQ(head[1], 1u);
  EXPECT_EQ(key, jit_cache::key_of(ptx_, ptx::CompileOptions{}));
  EXPECT_EQ(size, fs::file_size(dir_ / entry));
  EXPECT_EQ(total, size);

  trace::Recorder second_trace;
  Load second = load_in_new_process(ptx_, true);
  EXPECT_EQ(second.result, CUDA_SUCCESS);
  EXPECT_TRUE(noted(second_trace, "JIT cache hit: loading"));
  EXPECT_FALSE(noted(second_trace, "JIT cache miss"));
  EXPECT_EQ(second.info_log, "");  // nothing compiled, no info log (cache_run2.txt)
  EXPECT_EQ(second.c1000, first.c1000);  // the cached program runs as the compiled one did
  EXPECT_EQ(std::to_string(static_cast<int>(second.c1000)), recorded("launch.good.c[1000]"));
}

TEST_F(JitCache, DisableCompilesAndLeavesTheCacheAsItIs) {
  if (!jit_works()) GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
  ScopedEnv path("CUDA_CACHE_PATH", dir_.string());
  {
    ScopedEnv off("CUDA_CACHE_DISABLE", "1");
    trace::Recorder recorder;
    EXPECT_NE(load_in_new_process(ptx_).info_log, "");
    EXPECT_TRUE(noted(recorder, "JIT cache disabled: compiling"));
    EXPECT_TRUE(files_in(dir_).empty());
  }
  ASSERT_EQ(load_in_new_process(ptx_).result, CUDA_SUCCESS);  // fills it
  const std::set<std::string> filled = files_in(dir_);
  ScopedEnv off("CUDA_CACHE_DISABLE", "1");
  EXPECT_NE(load_in_new_process(ptx_).info_log, "");  // compiled again, as cache_run3.txt
  EXPECT_EQ(files_in(dir_), filled);
}

TEST_F(JitCache, ForcePtxJitCompilesEveryTime) {
  if (!jit_works()) GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
  ScopedEnv path("CUDA_CACHE_PATH", dir_.string());
  ASSERT_EQ(load_in_new_process(ptx_).result, CUDA_SUCCESS);
  ScopedEnv force("CUDA_FORCE_PTX_JIT", "1");
  trace::Recorder recorder;
  EXPECT_NE(load_in_new_process(ptx_).info_log, "");  // as forcejit.txt: compiled despite the entry
  EXPECT_TRUE(noted(recorder, "JIT cache bypassed (CUDA_FORCE_PTX_JIT=1)"));
}

TEST_F(JitCache, MaxSizeEvictsTheOldestEntries) {
  if (!jit_works()) GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
  ScopedEnv path("CUDA_CACHE_PATH", dir_.string());
  const std::string other = ptx_ + "\n// another module\n";
  ASSERT_EQ(load_in_new_process(ptx_).result, CUDA_SUCCESS);
  const std::string first = jit_cache::entry_path(jit_cache::key_of(ptx_, ptx::CompileOptions{}));
  const uint64_t one = fs::file_size(dir_ / first);
  ScopedEnv max("CUDA_CACHE_MAXSIZE", std::to_string(one + one / 2));  // room for one entry
  ASSERT_EQ(load_in_new_process(other).result, CUDA_SUCCESS);
  const std::string second = jit_cache::entry_path(jit_cache::key_of(other, ptx::CompileOptions{}));
  EXPECT_EQ(files_in(dir_), (std::set<std::string>{"index", second}));
}

TEST_F(JitCache, ACorruptEntryIsAMiss) {
  if (!jit_works()) GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
  ScopedEnv path("CUDA_CACHE_PATH", dir_.string());
  ASSERT_EQ(load_in_new_process(ptx_).result, CUDA_SUCCESS);
  const fs::path entry = dir_ / jit_cache::entry_path(jit_cache::key_of(ptx_, ptx::CompileOptions{}));
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  trace::Recorder recorder;
  EXPECT_EQ(load_in_new_process(ptx_, true).c1000, 3000.0f);
  EXPECT_TRUE(noted(recorder, "JIT cache miss: compiling"));
  // A payload cut short, or of another key, does not read back either.
  std::ifstream in(entry, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const uint64_t key = jit_cache::key_of(ptx_, ptx::CompileOptions{});
  EXPECT_TRUE(jit_cache::deserialize(bytes, key).has_value());
  EXPECT_FALSE(jit_cache::deserialize(bytes.substr(0, bytes.size() - 1), key).has_value());
  EXPECT_FALSE(jit_cache::deserialize(bytes, key + 1).has_value());
  EXPECT_FALSE(jit_cache::deserialize("", key).has_value());
}

}  // namespace
}  // namespace minicuda::testing
