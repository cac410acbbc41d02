// Libraries, kernels and launches at the driver API (driver/user/src/module.cpp, launch.cpp): a
// fatbinary built by hand the way crt/host_runtime.h builds one, cuLibraryLoadData's image
// checks, kernel lookup, cuLaunchKernel with void** parameters and its errors, function
// attributes and occupancy - with exact CUresult codes and no system call per launch.
#include <cstring>
#include <vector>

#include "driver_fixtures.h"
#include "crt/kernel_image.h"
#include "fatbinary.h"
#include "minicuda/trace.h"

namespace {
void scale(float* data, float factor, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= factor;
}
void mixed(char tag, double value, short count, long long* out) {  // parameters of every alignment
  out[0] = tag;
  out[1] = static_cast<long long>(value * 10);
  out[2] = count;
}
}  // namespace

namespace minicuda::testing {
namespace {

namespace gpu = minicuda::gpu;

// A one-module fatbinary with the two kernels above.
struct Fatbin {
  fatbin::KernelImage kernels[2] = {crt::kernel_image<&scale>("scale"), crt::kernel_image<&mixed>("mixed")};
  fatbin::MinicudaFatbin bin{};
  Fatbin() {
    bin.header = {fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader), sizeof(fatbin::FatbinEntry) + sizeof(fatbin::ModuleImage)};
    bin.entry.kind = fatbin::kFatbinKindHostCode;
    bin.entry.header_size = sizeof(fatbin::FatbinEntry);
    bin.entry.payload_size = sizeof(fatbin::ModuleImage);
    bin.module = {fatbin::kModuleMagic, 1, "test_launch.cpp", 2, kernels, 0, nullptr, 0};
  }
};

class LaunchTest : public Ready {
 protected:
  void SetUp() override {
    Ready::SetUp();
    ASSERT_EQ(cuLibraryLoadData(&lib, &fat.bin, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuLibraryGetKernel(&k_scale, lib, "scale"), CUDA_SUCCESS);
    ASSERT_EQ(cuLibraryGetKernel(&k_mixed, lib, "mixed"), CUDA_SUCCESS);
  }
  void TearDown() override {
    cuLibraryUnload(lib);
    Ready::TearDown();
  }
  Fatbin fat;
  CUlibrary lib = nullptr;
  CUkernel k_scale = nullptr, k_mixed = nullptr;
};

TEST_F(LaunchTest, ImagesThatAreNotMinicudaFatbinaries) {
  CUlibrary l = nullptr;
  EXPECT_EQ(cuLibraryLoadData(nullptr, &fat.bin, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryLoadData(&l, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  // Lazy loading (the default) accepts any image, as CUDA 13 on an H200 does
  // (probe_bad_input.txt); the first kernel lookup reports what is wrong with it.
  uint64_t garbage[16] = {0x1234};
  CUkernel k = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&l, garbage, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryGetKernel(&k, l, "scale"), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cuLibraryUnload(l), CUDA_SUCCESS);
  Fatbin sass;  // a fatbinary holding only SASS (ELF): NVIDIA machine code the simulator cannot run
  sass.bin.entry.kind = fatbin::kFatbinKindElf;
  ASSERT_EQ(cuLibraryLoadData(&l, &sass.bin, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryGetKernel(&k, l, "scale"), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuLibraryUnload(l), CUDA_SUCCESS);
  Fatbin ptx;  // a "PTX" entry whose payload is not PTX text (no .version): not an image
  ptx.bin.entry.kind = fatbin::kFatbinKindPtx;
  ASSERT_EQ(cuLibraryLoadData(&l, &ptx.bin, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryGetKernel(&k, l, "scale"), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cuLibraryUnload(l), CUDA_SUCCESS);
}

// With CUDA_MODULE_LOADING=EAGER (read at cuInit) the load itself parses the image and fails.
class LaunchEagerLoading : public FreshProcess {};

TEST_F(LaunchEagerLoading, ImagesThatAreNotFatbinariesFailToLoad) {
  ASSERT_EQ(setenv("CUDA_MODULE_LOADING", "EAGER", 1), 0);
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  unsetenv("CUDA_MODULE_LOADING");
  CUmoduleLoadingMode mode{};
  ASSERT_EQ(cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
  ASSERT_EQ(mode, CU_MODULE_EAGER_LOADING);
  CUlibrary l = nullptr;
  uint64_t garbage[16] = {0x1234};
  EXPECT_EQ(cuLibraryLoadData(&l, garbage, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_ERROR_INVALID_IMAGE);
}

TEST_F(LaunchTest, KernelLookup) {
  CUkernel k = nullptr;
  EXPECT_EQ(cuLibraryGetKernel(&k, lib, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuLibraryGetKernel(nullptr, lib, "scale"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryGetKernel(&k, reinterpret_cast<CUlibrary>(&k), "scale"), CUDA_ERROR_INVALID_HANDLE);
  const char* name = nullptr;
  ASSERT_EQ(cuKernelGetName(&name, k_mixed), CUDA_SUCCESS);
  EXPECT_STREQ(name, "mixed");
  EXPECT_EQ(cuKernelGetName(&name, reinterpret_cast<CUkernel>(&k)), CUDA_ERROR_INVALID_HANDLE);
  CUfunction f = nullptr;
  ASSERT_EQ(cuKernelGetFunction(&f, k_scale), CUDA_SUCCESS);
  EXPECT_NE(f, nullptr);
}

TEST_F(LaunchTest, ParametersArriveByValueAtTheirAlignedOffsets) {
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc_v2(&d, 1024 * sizeof(float)), CUDA_SUCCESS);
  std::vector<float> h(1000, 1.5f);
  ASSERT_EQ(cuMemcpyHtoD_v2(d, h.data(), h.size() * sizeof(float)), CUDA_SUCCESS);
  float* data = reinterpret_cast<float*>(d);
  float factor = 4.0f;
  int n = 1000;
  void* params[] = {&data, &factor, &n};
  {
    trace::Recorder rec;
    ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(k_scale), 4, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
              CUDA_SUCCESS);
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();  // no system call
  }
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(h.data(), d, h.size() * sizeof(float)), CUDA_SUCCESS);
  for (float v : h) ASSERT_EQ(v, 6.0f);

  CUdeviceptr out = 0;
  ASSERT_EQ(cuMemAlloc_v2(&out, 3 * sizeof(long long)), CUDA_SUCCESS);
  char tag = 'x';
  double value = 2.5;
  short count = -7;
  long long* out_ptr = reinterpret_cast<long long*>(out);
  void* mixed_params[] = {&tag, &value, &count, &out_ptr};
  ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(k_mixed), 1, 1, 1, 1, 1, 1, 0, nullptr, mixed_params, nullptr),
            CUDA_SUCCESS);
  long long got[3] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(got, out, sizeof got), CUDA_SUCCESS);
  EXPECT_EQ(got[0], 'x');
  EXPECT_EQ(got[1], 25);
  EXPECT_EQ(got[2], -7);
}

TEST_F(LaunchTest, LaunchErrors) {
  auto f = reinterpret_cast<CUfunction>(k_scale);
  float* data = nullptr;
  float factor = 1;
  int n = 0;
  void* params[] = {&data, &factor, &n};
  EXPECT_EQ(cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  void* extra[] = {nullptr};  // an `extra` that names no buffer (test_launch_extra.cpp has the rest)
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 65536, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 65, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, (48 << 10) + 1, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(&n), params, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  // grid x may pass 65535 (y and z may not); 2^31 - 1 is accepted too but would take minutes to run.
  EXPECT_EQ(cuLaunchKernel(f, 65536, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);  // n = 0
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(LaunchTest, AttributesAndOccupancy) {
  auto f = reinterpret_cast<CUfunction>(k_scale);
  int v = 0;
  ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 48 << 10);
  ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 32);
  EXPECT_EQ(cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 232448), CUDA_SUCCESS);
  EXPECT_EQ(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 232449), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 64), CUDA_ERROR_INVALID_VALUE);
  // cuda_occupancy.h on the H200: threads, registers (32 per thread, warps in fours), shared memory.
  int blocks = 0;
  const struct {
    int threads;
    size_t smem;
    int want;
  } cases[] = {{256, 0, 8}, {1024, 0, 2}, {32, 0, 16}, {64, 48 << 10, 4}, {1024, 100 << 10, 2}, {128, 200 << 10, 1}};
  for (const auto& c : cases) {
    ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, c.threads, c.smem), CUDA_SUCCESS);
    EXPECT_EQ(blocks, c.want) << c.threads << " threads, " << c.smem << " B";
  }
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 0, 0), CUDA_ERROR_INVALID_VALUE);
}

}  // namespace
}  // namespace minicuda::testing
