// cuLaunchKernel's `extra` array (driver/user/src/launch.cpp, read_extra): the parameters passed as
// one buffer the caller laid out (CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE,
// CU_LAUNCH_PARAM_END), for C++ kernels of a minicuda fatbinary and for PTX kernels the JIT
// compiled, through cuLaunchKernel and cuLaunchKernelEx, with the CUresult codes the H200 gave
// (tests/data/h200/launch_extra/out/probe_launch_extra.txt and launch_extra_more/, read by key).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "driver_fixtures.h"
#include "crt/kernel_image.h"
#include "fatbinary.h"

namespace {
struct alignas(16) Int4 {
  int x, y, z, w;
};
// out @0, c @8, d @16, s @24: 26 B of parameters.
void packed(long long* out, char c, double d, short s) {
  out[0] = c;
  out[1] = static_cast<long long>(d * 10);
  out[2] = s;
  out[3] = 0x600d;
}
// a @0, v @16 (16-byte aligned), out @32: 40 B.
void vec(int a, Int4 v, long long* out) {
  out[0] = a;
  out[1] = v.x + v.y + v.z + v.w;
  out[2] = v.w;
  out[3] = 0x600d;
}
std::atomic<int> g_ran{0};
void none() { g_ran.fetch_add(1); }

// The same three kernels in PTX, for the JIT.
const char* const kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry packed(.param .u64 out, .param .u8 c, .param .f64 d, .param .u16 s)
{
  .reg .b16 %h<2>;
  .reg .f64 %f<3>;
  .reg .b64 %x<8>;
  ld.param.u64 %x1, [out];
  cvta.to.global.u64 %x2, %x1;
  ld.param.s8 %h1, [c];
  cvt.s64.s16 %x3, %h1;
  st.global.u64 [%x2], %x3;
  ld.param.f64 %f1, [d];
  mul.f64 %f2, %f1, 0d4024000000000000;
  cvt.rzi.s64.f64 %x4, %f2;
  st.global.u64 [%x2+8], %x4;
  ld.param.s16 %x5, [s];
  st.global.u64 [%x2+16], %x5;
  mov.u64 %x6, 0x600d;
  st.global.u64 [%x2+24], %x6;
  ret;
}
.visible .entry vec(.param .u32 a, .param .align 16 .b8 v[16], .param .u64 out)
{
  .reg .b32 %w<8>;
  .reg .b64 %x<8>;
  ld.param.u64 %x1, [out];
  cvta.to.global.u64 %x2, %x1;
  ld.param.s32 %x3, [a];
  st.global.u64 [%x2], %x3;
  ld.param.u32 %w1, [v];
  ld.param.u32 %w2, [v+4];
  ld.param.u32 %w3, [v+8];
  ld.param.u32 %w4, [v+12];
  add.s32 %w5, %w1, %w2;
  add.s32 %w5, %w5, %w3;
  add.s32 %w5, %w5, %w4;
  cvt.s64.s32 %x4, %w5;
  st.global.u64 [%x2+8], %x4;
  cvt.s64.s32 %x5, %w4;
  st.global.u64 [%x2+16], %x5;
  mov.u64 %x6, 0x600d;
  st.global.u64 [%x2+24], %x6;
  ret;
}
.visible .entry none()
{
  ret;
}
)";
}  // namespace

namespace minicuda::testing {
namespace {

void* const P = CU_LAUNCH_PARAM_BUFFER_POINTER;
void* const S = CU_LAUNCH_PARAM_BUFFER_SIZE;
void* const E = CU_LAUNCH_PARAM_END;

struct Fatbin {
  fatbin::KernelImage kernels[3] = {crt::kernel_image<&packed>("packed"), crt::kernel_image<&vec>("vec"),
                                    crt::kernel_image<&none>("none")};
  fatbin::MinicudaFatbin bin{};
  Fatbin() {
    bin.header = {fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader),
                  sizeof(fatbin::FatbinEntry) + sizeof(fatbin::ModuleImage)};
    bin.entry.kind = fatbin::kFatbinKindHostCode;
    bin.entry.header_size = sizeof(fatbin::FatbinEntry);
    bin.entry.payload_size = sizeof(fatbin::ModuleImage);
    bin.module = {fatbin::kModuleMagic, 1, "test_launch_extra.cpp", 3, kernels, 0, nullptr, 0};
  }
};

// Each test runs twice: on the C++ kernels (GetParam() false) and on the PTX ones (true).
class LaunchExtra : public Ready, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    Ready::SetUp();
    if (GetParam()) {
      ASSERT_EQ(cuModuleLoadData(&module, kPtx), CUDA_SUCCESS);
    } else {
      ASSERT_EQ(cuModuleLoadData(&module, &fat.bin), CUDA_SUCCESS);
    }
    ASSERT_EQ(cuModuleGetFunction(&f_packed, module, "packed"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&f_vec, module, "vec"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&f_none, module, "none"), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&out, 64), CUDA_SUCCESS);
    fill_packed('x', 2.5, -7);
  }
  void TearDown() override {
    cuMemFree(out);
    cuModuleUnload(module);
    Ready::TearDown();
  }
  // packed's parameters at the offsets cuFuncGetParamInfo gives; the rest of the buffer is 0xEE.
  void fill_packed(char c, double d, short s) {
    std::memset(buffer, 0xEE, sizeof buffer);
    std::memcpy(buffer + 0, &out, 8);
    std::memcpy(buffer + 8, &c, 1);
    std::memcpy(buffer + 16, &d, 8);
    std::memcpy(buffer + 24, &s, 2);
  }
  CUresult launch(CUfunction f, void** params, void** extra) {
    EXPECT_EQ(cuMemsetD8(out, 0, 64), CUDA_SUCCESS);
    return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, extra);
  }
  std::vector<long long> result() {
    std::vector<long long> got(4);
    EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyDtoH(got.data(), out, 32), CUDA_SUCCESS);
    return got;
  }
  Fatbin fat;
  CUmodule module = nullptr;
  CUfunction f_packed = nullptr, f_vec = nullptr, f_none = nullptr;
  CUdeviceptr out = 0;
  alignas(16) unsigned char buffer[256];
};

const std::vector<long long> kPacked = {'x', 25, -7, 0x600d};

TEST_P(LaunchExtra, TheBufferHoldsTheParametersAtTheirOffsets) {
  size_t offset = 0, size = 0;
  ASSERT_EQ(cuFuncGetParamInfo(f_packed, 3, &offset, &size), CUDA_SUCCESS);
  EXPECT_EQ(offset, 24u);
  EXPECT_EQ(size, 2u);
  size_t bytes = 26;
  void* extra[] = {P, buffer, S, &bytes, E};
  ASSERT_EQ(launch(f_packed, nullptr, extra), CUDA_SUCCESS);
  EXPECT_EQ(result(), kPacked);
  // The same launch through kernelParams gives the same values.
  char c = 'x';
  double d = 2.5;
  short s = -7;
  void* params[] = {&out, &c, &d, &s};
  ASSERT_EQ(launch(f_packed, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(result(), kPacked);
  // The order of the pairs does not matter, and NULL ends the list as CU_LAUNCH_PARAM_END does.
  void* swapped[] = {S, &bytes, P, buffer, nullptr};
  ASSERT_EQ(launch(f_packed, nullptr, swapped), CUDA_SUCCESS);
  EXPECT_EQ(result(), kPacked);
  // A 16-byte aligned parameter after a 4-byte one: vec's v sits at 16, out at 32.
  std::memset(buffer, 0xEE, sizeof buffer);
  const int a = 11;
  const Int4 v{1, 2, 3, 40};
  std::memcpy(buffer, &a, 4);
  std::memcpy(buffer + 16, &v, 16);
  std::memcpy(buffer + 32, &out, 8);
  bytes = 40;
  ASSERT_EQ(launch(f_vec, nullptr, extra), CUDA_SUCCESS);
  EXPECT_EQ(result(), (std::vector<long long>{11, 46, 40, 0x600d}));
}

// The probe's lines (key = value) of both runs; the first occurrence of a key wins, the second
// run's first. In the first run, aligned_k's 36-byte launch faulted (700, sticky) and every launch
// after it answered 700: those lines are no answers and are left out (no case here faults).
const std::map<std::string, std::string>& recorded() {
  static const std::map<std::string, std::string> lines = [] {
    std::map<std::string, std::string> m;
    for (const char* file : {"/launch_extra_more/out/probe_launch_extra_more.txt",
                             "/launch_extra/out/probe_launch_extra.txt"}) {
      std::ifstream in(std::string(MINICUDA_H200_DATA) + file);
      std::string line;
      while (std::getline(in, line)) {
        size_t eq = line.find(" = ");
        if (eq == std::string::npos || line.compare(eq + 3, 4, "700 ") == 0) continue;
        m.emplace(line.substr(0, eq), line.substr(eq + 3));
      }
    }
    return m;
  }();
  return lines;
}
// The CUresult the H200 returned for key, or -1 when it was not recorded.
int recorded_code(const std::string& key) {
  auto it = recorded().find(key);
  return it == recorded().end() ? -1 : std::stoi(it->second);
}
std::string out_text(const std::vector<long long>& v) {
  char text[128];
  std::snprintf(text, sizeof text, "%lld %lld %lld %#llx", v[0], v[1], v[2], static_cast<unsigned long long>(v[3]));
  return text;
}

// Every cuLaunchKernel case of the probe on probe_k (here: packed, the same parameters), run as it
// ran them: the code, and for a launch that ran, the four values the kernel wrote. A buffer shorter
// than the parameters passes only its bytes; the rest reads 0 here, as it did for the H200's
// fatbinary kernel (its PTX kernel read what the previous launch had left), so the values are
// compared with the fatbinary's lines.
TEST_P(LaunchExtra, EveryCaseAsTheH200Answered) {
  ASSERT_NE(recorded_code("fat.size26_exact"), -1) << "no recording under " << MINICUDA_H200_DATA;
  alignas(16) unsigned char other[256];
  std::memcpy(other, buffer, sizeof other);
  const char tag = 'y';
  std::memcpy(other + 8, &tag, 1);  // the probe's second buffer differs in c
  size_t z26 = 26, z27 = 27, z32 = 32, z40 = 40, z4096 = 4096, z25 = 25, z8 = 8, z0 = 0;
  void* key3 = reinterpret_cast<void*>(3);
  char c = 'q';
  double d = 1.5;
  short s = 5;
  void* args[] = {&out, &c, &d, &s};
  const struct {
    const char* key;
    std::vector<void*> extra;
    bool with_params;
  } cases[] = {
      {"size26_exact", {P, buffer, S, &z26, E}, false},
      {"size27", {P, buffer, S, &z27, E}, false},
      {"size32_padded", {P, buffer, S, &z32, E}, false},
      {"size40", {P, buffer, S, &z40, E}, false},
      {"size4096", {P, buffer, S, &z4096, E}, false},
      {"size25", {P, buffer, S, &z25, E}, false},
      {"size8", {P, buffer, S, &z8, E}, false},
      {"size0", {P, buffer, S, &z0, E}, false},
      {"size_first", {S, &z26, P, buffer, E}, false},
      {"null_terminated", {P, buffer, S, &z26, nullptr}, false},
      {"pointer_only", {P, buffer, E}, false},
      {"size_only", {S, &z26, E}, false},
      {"end_only", {E}, false},
      {"pointer_twice_last_buf", {P, other, P, buffer, S, &z26, E}, false},
      {"size_twice_8_then_26", {P, buffer, S, &z8, S, &z26, E}, false},
      {"size_twice_26_then_8", {P, buffer, S, &z26, S, &z8, E}, false},
      {"unknown_key_3_first", {key3, buffer, P, buffer, S, &z26, E}, false},
      {"unknown_key_3_last", {P, buffer, S, &z26, key3, buffer, E}, false},
      {"unknown_key_4_last", {P, buffer, S, &z26, reinterpret_cast<void*>(4), buffer, E}, false},
      {"unknown_key_255_last", {P, buffer, S, &z26, reinterpret_cast<void*>(0xff), buffer, E}, false},
      {"unknown_key_big", {reinterpret_cast<void*>(0x1000), buffer, P, buffer, S, &z26, E}, false},
      {"unknown_key_after_end", {P, buffer, S, &z26, E, key3, buffer}, false},
      {"null_buffer_pointer", {P, nullptr, S, &z26, E}, false},
      {"both_params_and_end_only", {E}, true},
      {"both_params_and_buffer", {P, buffer, S, &z26, E}, true},
  };
  for (const auto& k : cases) {
    const std::string key = std::string("fat.") + k.key;
    std::vector<void*> extra = k.extra;
    const CUresult got = launch(f_packed, k.with_params ? args : nullptr, extra.data());
    EXPECT_EQ(static_cast<int>(got), recorded_code(key)) << key;
    if (got == CUDA_SUCCESS) {
      EXPECT_EQ(out_text(result()), recorded().at(key + ".out")) << key;
    }
    EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS) << key;  // no refusal is sticky
    // The H200 answered the PTX kernel with the same codes, where the probe asked it.
    const int ptx = recorded_code(std::string("ptx.") + k.key);
    if (ptx != -1) {
      EXPECT_EQ(ptx, recorded_code(key)) << key;
    }
  }
  // Neither kernelParams nor extra, for a kernel with parameters.
  EXPECT_EQ(static_cast<int>(launch(f_packed, nullptr, nullptr)), recorded_code("fat.neither"));
  // A NULL size pointer crashes the real driver (fat.null_size_pointer.child); minicuda refuses it.
  ASSERT_EQ(recorded().at("fat.null_size_pointer.child"), "crashed signal=11");
  void* null_size[] = {P, buffer, S, nullptr, E};
  EXPECT_EQ(launch(f_packed, nullptr, null_size), CUDA_ERROR_INVALID_VALUE);
  // vec: a 16-byte aligned parameter after a 4-byte one, its exact 40 bytes and 8 more.
  std::memset(buffer, 0xEE, sizeof buffer);
  const int a = 11;
  const Int4 v{1, 2, 3, 40};
  std::memcpy(buffer, &a, 4);
  std::memcpy(buffer + 16, &v, 16);
  std::memcpy(buffer + 32, &out, 8);
  size_t z48 = 48;
  void* exact[] = {P, buffer, S, &z40, E};
  void* over[] = {P, buffer, S, &z48, E};
  ASSERT_EQ(static_cast<int>(launch(f_vec, nullptr, exact)), recorded_code("fat.aligned.size40_exact"));
  EXPECT_EQ(out_text(result()), recorded().at("fat.aligned.size40_exact.out"));
  EXPECT_EQ(static_cast<int>(launch(f_vec, nullptr, over)), recorded_code("fat.aligned.size48"));
}

// The code the H200 gave for key (launch_extra_more), or, while that is not recorded, minicuda's.
int expected(const std::string& key, CUresult minicuda) {
  const int code = recorded_code(key);
  return code != -1 ? code : static_cast<int>(minicuda);
}

TEST_P(LaunchExtra, AKernelWithoutParameters) {
  size_t z0 = 0, z8 = 8;
  void* key3 = reinterpret_cast<void*>(3);
  const struct {
    const char* key;
    std::vector<void*> extra;
    CUresult minicuda;  // what minicuda answers (the recording, where there is one, must agree)
    bool runs;
  } cases[] = {
      {"end_only", {E}, CUDA_SUCCESS, true},
      {"size0", {P, buffer, S, &z0, E}, CUDA_SUCCESS, true},
      {"size8", {P, buffer, S, &z8, E}, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, false},
      {"null_buffer_size0", {P, nullptr, S, &z0, E}, CUDA_SUCCESS, true},
      {"size0_only", {S, &z0, E}, CUDA_SUCCESS, true},
      {"pointer_only", {P, buffer, E}, CUDA_SUCCESS, true},
      {"unknown_key_3", {key3, buffer, E}, CUDA_ERROR_INVALID_VALUE, false},
  };
  int ran = 0;
  for (const auto& k : cases) {
    std::vector<void*> extra = k.extra;
    const std::string key = std::string("fat.noparams.") + k.key;
    const CUresult got = cuLaunchKernel(f_none, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra.data());
    EXPECT_EQ(got, k.minicuda) << key;
    EXPECT_EQ(static_cast<int>(got), expected(key, k.minicuda)) << key << " as the H200 answered";
    ran += got == CUDA_SUCCESS;
  }
  EXPECT_EQ(cuLaunchKernel(f_none, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  if (!GetParam()) {
    EXPECT_EQ(g_ran.exchange(0), ran + 1);  // the C++ kernel ran once for each launch accepted
  }
}

TEST_P(LaunchExtra, LaunchKernelExTakesExtraAndItsAttributes) {
  size_t z26 = 26, z8 = 8, z27 = 27;
  void* extra[] = {P, buffer, S, &z26, E};
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = config.blockDimY = config.blockDimZ = 1;
  auto ex = [&](void** params, void** x) {
    EXPECT_EQ(cuMemsetD8(out, 0, 64), CUDA_SUCCESS);
    return static_cast<int>(cuLaunchKernelEx(&config, f_packed, params, x));
  };
  ASSERT_EQ(ex(nullptr, extra), expected("ex.fat.size26_exact", CUDA_SUCCESS));
  EXPECT_EQ(result(), kPacked);
  void* short_buffer[] = {P, buffer, S, &z8, E};
  EXPECT_EQ(ex(nullptr, short_buffer), expected("ex.fat.size8", CUDA_SUCCESS));
  void* long_buffer[] = {P, buffer, S, &z27, E};
  EXPECT_EQ(ex(nullptr, long_buffer), expected("ex.fat.size27", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
  void* pointer_only[] = {P, buffer, E};
  EXPECT_EQ(ex(nullptr, pointer_only), expected("ex.fat.pointer_only", CUDA_ERROR_INVALID_VALUE));
  char c = 'x';
  double d = 2.5;
  short s = -7;
  void* params[] = {&out, &c, &d, &s};
  EXPECT_EQ(ex(params, extra), expected("ex.fat.both_params_and_buffer", CUDA_ERROR_INVALID_VALUE));
  void* end_only[] = {E};
  EXPECT_EQ(ex(params, end_only), expected("ex.fat.both_params_and_end_only", CUDA_SUCCESS));
  EXPECT_EQ(cuLaunchKernelEx(nullptr, f_packed, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  EXPECT_EQ(ex(nullptr, extra), expected("ex.fat.cooperative_with_extra", CUDA_SUCCESS));
  ASSERT_EQ(ex(params, nullptr), expected("ex.fat.cooperative_with_params", CUDA_SUCCESS));
  EXPECT_EQ(result(), kPacked);
  attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;  // a real attribute minicuda does not model per launch
  EXPECT_EQ(cuLaunchKernelEx(&config, f_packed, params, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  attr.id = static_cast<CUlaunchAttributeID>(99);
  EXPECT_EQ(cuLaunchKernelEx(&config, f_packed, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  config.attrs = nullptr;
  EXPECT_EQ(cuLaunchKernelEx(&config, f_packed, params, nullptr), CUDA_ERROR_INVALID_VALUE);
}

INSTANTIATE_TEST_SUITE_P(CxxAndPtx, LaunchExtra, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "Ptx" : "Cxx"; });

}  // namespace
}  // namespace minicuda::testing
