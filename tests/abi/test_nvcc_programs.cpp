// Programs built by NVIDIA's nvcc, unmodified, run against minicuda's lib/libcudart.so.13 and
// lib/libcuda.so.1 (docs/nvcc-programs.md): each test builds one of tests/abi/programs with nvcc
// (-cudart shared for the runtime ones, -lcuda for the Driver API one), runs it with
// LD_LIBRARY_PATH at minicuda's lib directory and checks what it printed against what the
// simulator answers in this process (the static minicuda::cudart). Skipped when nvcc is absent.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "abi_test_support.h"

namespace minicuda::abi_testing {
namespace {

namespace fs = std::filesystem;

const std::string kLibDir = fs::path(MINICUDA_ABI_LIBCUDART).parent_path().string();
const std::string kPrograms = MINICUDA_ABI_PROGRAMS;
const std::string kWork = MINICUDA_ABI_WORK;

class NvccPrograms : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = find_nvcc();
    if (nvcc_.empty()) GTEST_SKIP() << "nvcc is not installed (/usr/local/cuda/bin/nvcc or PATH)";
  }

  // Builds programs/source with nvcc (flags added) once per test process; the executable's path.
  std::string build(const std::string& source, const std::string& flags) {
    static std::mutex mutex;
    static std::map<std::string, std::string> built;
    std::lock_guard lock(mutex);
    const std::string key = source + " " + flags;
    if (auto it = built.find(key); it != built.end()) return it->second;
    fs::create_directories(kWork);
    const std::string exe = kWork + "/" + fs::path(source).stem().string();
    CommandResult r = run_command("'" + nvcc_ + "' -arch=sm_90 " + flags + " -o '" + exe + "' '" + kPrograms + "/" +
                                  source + "'");
    EXPECT_EQ(r.status, 0) << r.output;
    return built[key] = r.status == 0 ? exe : std::string();
  }

  // Runs exe on minicuda's libraries (environment: extra assignments, e.g. the trace switch).
  static CommandResult run_on_minicuda(const std::string& exe, const std::string& environment = "") {
    return run_command("env -u MINICUDA_TRACE -u MINICUDA_TRACE_FILE -u MINICUDA_TRACE_FORMAT LD_LIBRARY_PATH='" + kLibDir +
                       "' " + environment + " '" + exe + "'");
  }

  std::string nvcc_;
};

// The libraries the program resolved: minicuda's, not a toolkit's.
void expect_minicuda_libraries(const std::string& exe, bool runtime) {
  CommandResult ldd = run_command("env LD_LIBRARY_PATH='" + kLibDir + "' ldd '" + exe + "'");
  ASSERT_EQ(ldd.status, 0) << ldd.output;
  if (runtime) {
    EXPECT_NE(ldd.output.find(kLibDir + "/libcudart.so.13"), std::string::npos) << ldd.output;
  }
  EXPECT_NE(ldd.output.find(kLibDir + "/libcuda.so.1"), std::string::npos) << ldd.output;
}

TEST_F(NvccPrograms, RuntimeHostProgramSeesTheSimulatedH200) {
  const std::string exe = build("runtime_host.cu", "-cudart shared");
  ASSERT_FALSE(exe.empty());
  expect_minicuda_libraries(exe, true);
  CommandResult r = run_on_minicuda(exe);
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);

  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int runtime = 0, driver = 0, count = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&runtime), cudaSuccess);
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(v["deviceCount"], std::to_string(count));
  EXPECT_EQ(v["runtimeVersion"], std::to_string(runtime));
  EXPECT_EQ(v["driverVersion"], std::to_string(driver));
  EXPECT_EQ(v["name"], prop.name);
  EXPECT_EQ(v["major"], std::to_string(prop.major));
  EXPECT_EQ(v["minor"], std::to_string(prop.minor));
  EXPECT_EQ(v["multiProcessorCount"], std::to_string(prop.multiProcessorCount));
  EXPECT_EQ(v["totalGlobalMem"], std::to_string(prop.totalGlobalMem));
  EXPECT_EQ(v["sharedMemPerBlock"], std::to_string(prop.sharedMemPerBlock));
  EXPECT_EQ(v["warpSize"], std::to_string(prop.warpSize));
  EXPECT_EQ(v["maxThreadsPerBlock"], std::to_string(prop.maxThreadsPerBlock));
  EXPECT_EQ(v["l2CacheSize"], std::to_string(prop.l2CacheSize));
  EXPECT_EQ(v["attrMultiProcessorCount"], std::to_string(prop.multiProcessorCount));
  // The simulated H200 (the default device).
  EXPECT_EQ(v["name"], "NVIDIA H200");
  EXPECT_EQ(v["major"], "9");
  EXPECT_EQ(v["minor"], "0");
  EXPECT_EQ(v["multiProcessorCount"], "132");

  // The copy round trip through cudaMemcpy: sum of i*3+1 over 1024 ints, the first 4 zeroed.
  long long sum = 0;
  for (int i = 4; i < 1024; ++i) sum += i * 3 + 1;
  EXPECT_EQ(v["sum"], std::to_string(sum));
  // A copy from a null device pointer: cudaErrorInvalidValue, kept in the last-error slot.
  EXPECT_EQ(v["nullCopy"], std::to_string(static_cast<int>(cudaErrorInvalidValue)));
  EXPECT_EQ(v["lastError"], std::to_string(static_cast<int>(cudaErrorInvalidValue)));
  EXPECT_EQ(v["failures"], "0");
}

TEST_F(NvccPrograms, DriverHostProgramRunsThroughLibcuda) {
  const std::string exe = build("driver_host.cpp", "-lcuda");
  ASSERT_FALSE(exe.empty());
  expect_minicuda_libraries(exe, false);
  CommandResult r = run_on_minicuda(exe);
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);

  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int driver = 0, count = 0;
  ASSERT_EQ(cudaDriverGetVersion(&driver), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(v["driverVersion"], std::to_string(driver));
  EXPECT_EQ(v["deviceCount"], std::to_string(count));
  EXPECT_EQ(v["name"], prop.name);
  EXPECT_EQ(v["totalMem"], std::to_string(prop.totalGlobalMem));
  EXPECT_EQ(v["memInfoTotal"], std::to_string(prop.totalGlobalMem));
  EXPECT_EQ(v["major"], "9");
  EXPECT_EQ(v["minor"], "0");
  EXPECT_EQ(v["multiProcessorCount"], std::to_string(prop.multiProcessorCount));
  // Copies through cuMemcpyHtoD_v2 / cuMemsetD32_v2 / cuMemcpyDtoH_v2: i*5+2 over 1024 ints, the
  // first 4 set to 7.
  long long sum = 4 * 7;
  for (int i = 4; i < 1024; ++i) sum += i * 5 + 2;
  EXPECT_EQ(v["sum"], std::to_string(sum));
  EXPECT_EQ(v["badOrdinal"], "101");  // CUDA_ERROR_INVALID_DEVICE
  EXPECT_EQ(v["failures"], "0");
}

// A Driver API program of nvcc's linked with -lcuda that loads its kernel from a .ptx file nvcc
// wrote (cuModuleLoad): the JIT compiles it and the launch runs on the SIMT executor.
TEST_F(NvccPrograms, DriverProgramLoadsAPtxFileAndLaunchesIt) {
  const std::string exe = build("driver_ptx.cpp", "-lcuda");
  ASSERT_FALSE(exe.empty());
  expect_minicuda_libraries(exe, false);
  const std::string ptx = kWork + "/saxpy_kernel.ptx";
  CommandResult compiled =
      run_command("'" + nvcc_ + "' -ptx -arch=sm_90 -o '" + ptx + "' '" + kPrograms + "/saxpy_kernel.cu'");
  ASSERT_EQ(compiled.status, 0) << compiled.output;
  CommandResult r = run_on_minicuda(exe + "' '" + ptx, "MINICUDA_TRACE=libcuda CUDA_CACHE_DISABLE=1");
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);
  EXPECT_EQ(v["y999"], "1999");  // 2 * 999 + 1
  EXPECT_EQ(v["sum"], "1000000.0");  // sum of 2i + 1 over 0..999
  EXPECT_EQ(v["regsPositive"], "1");
  EXPECT_EQ(v["failures"], "0");
  EXPECT_NE(r.output.find("JIT cache disabled: compiling"), std::string::npos) << r.output;
}

// A program of two translation units built with -rdc=true: the kernel calls a device function of
// the other unit. The runtime links the units' PTX when the module loads (launch.cpp), for the
// default build (SASS and PTX) and a PTX-only one.
TEST_F(NvccPrograms, RelocatableDeviceCodeIsLinkedAtLoad) {
  for (const std::string arch : {"-arch=sm_90", "-gencode arch=compute_90,code=compute_90"}) {
    SCOPED_TRACE(arch);
    const std::string exe = kWork + "/rdc" + std::to_string(arch.size());
    CommandResult built = run_command("'" + nvcc_ + "' -rdc=true " + arch + " -cudart shared -o '" + exe + "' '" +
                                      kPrograms + "/rdc_main.cu' '" + kPrograms + "/rdc_add.cu'");
    ASSERT_EQ(built.status, 0) << built.output;
    CommandResult r = run_on_minicuda(exe);
    ASSERT_EQ(r.status, 0) << r.output;
    auto v = key_values(r.output);
    EXPECT_EQ(v["launch"], "0");
    EXPECT_EQ(v["copy"], "0");
    EXPECT_EQ(v["out31"], "41");
    EXPECT_EQ(v["sum"], std::to_string(32 * 10 + 31 * 32 / 2));
  }
}

// A __managed__ variable (PTX .attribute(.managed)): libcuda places it in managed memory and
// __cudaInitModule binds nvcc's host pointer to it, so host code and the kernel share it: 32
// threads each add increment (1, copied to the symbol) to managed_total (5, written by the host).
TEST_F(NvccPrograms, ManagedVariableProgramComputesTheTotal) {
  const std::string exe = build("managed_symbols.cu", "-cudart shared");
  ASSERT_FALSE(exe.empty());
  CommandResult r = run_on_minicuda(exe, "MINICUDA_TRACE=libcuda CUDA_CACHE_DISABLE=1");
  ASSERT_EQ(r.status, 0) << r.output;
  auto v = key_values(r.output);
  EXPECT_EQ(v["toSymbol"], "0 cudaSuccess");
  EXPECT_EQ(v["managedBefore"], "5");
  EXPECT_EQ(v["launch"], "0 cudaSuccess");
  EXPECT_EQ(v["sync"], "0 cudaSuccess");
  EXPECT_EQ(v["managedAfter"], "37");
  EXPECT_NE(r.output.find("module: managed segment of PTX module"), std::string::npos) << r.output;
}

// nvcc's vector_add, unmodified: libcudart.so.13 hands the fatbinary to libcuda, which JIT-compiles
// its PTX to the simulator's SASS; the SIMT executor runs it. The trace shows nvcc's hidden
// launch ABI.
TEST_F(NvccPrograms, KernelProgramComputesTheSum) {
  const std::string exe = build("vector_add.cu", "-cudart shared");
  ASSERT_FALSE(exe.empty());
  CommandResult r = run_on_minicuda(exe, "MINICUDA_TRACE=cudart CUDA_CACHE_DISABLE=1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("__cudaRegisterFatBinary: nvcc fatbinary"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("entry: PTX for sm_90"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("__cudaGetKernel("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("__cudaLaunchKernel(func="), std::string::npos) << r.output;
  auto v = key_values(r.output);
  EXPECT_EQ(v["launch"], "0 cudaSuccess");
  EXPECT_EQ(v["sync"], "0 cudaSuccess");
  EXPECT_EQ(v["mismatches"], "0");
  EXPECT_EQ(v["c[7]"], "21");  // 7 + 2 * 7
}

}  // namespace
}  // namespace minicuda::abi_testing
