// A module of C++ kernels and PTX kernels side by side: a fatbinary holding minicuda's entry
// (a ModuleImage, the C++ kernels of a translation unit) and a PTX entry (jit.h, load_image).
// A kernel both entries have runs from the C++ one, minicuda's code for this machine as SASS is
// the real driver's, unless CUDA_FORCE_PTX_JIT=1 asks for the PTX; a kernel one entry has runs
// from that one.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "crt/kernel_image.h"
#include "driver_fixtures.h"
#include "fatbinary.h"
#include "minicuda/trace.h"

namespace minicuda::testing {
namespace {

void twice(float* data, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= 2;
}

// A PTX kernel (float* data, int n) that applies `operation` (%f2 from %f1) to each element.
std::string ptx_kernel(const std::string& name, const std::string& operation) {
  return ".visible .entry " + name + R"((.param .u64 data, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [data];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  )" + operation + R"(
  st.global.f32 [%rd4], %f2;
DONE:
  ret;
}
)";
}

// The PTX entry: its own `twice` (it triples, so that a test sees which ran), `add_one`, which only
// the PTX has, and a variable.
const std::string& ptx_entry() {
  static const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                  ".global .align 4 .u32 ptx_value = 5;\n" +
                                  ptx_kernel("twice", "mul.f32 %f2, %f1, 0f40400000;") +
                                  ptx_kernel("add_one", "add.f32 %f2, %f1, 0f3F800000;");
  return text;
}

// One fatbinary: the header, minicuda's entry and its ModuleImage, then the PTX entry and its text.
class MixedFatbin {
 public:
  MixedFatbin() {
    const size_t text = (ptx_entry().size() + 1 + 7) / 8 * 8;
    const size_t entries = 2 * sizeof(fatbin::FatbinEntry) + sizeof(fatbin::ModuleImage) + text;
    words_.resize((sizeof(fatbin::FatbinHeader) + entries) / 8);
    auto* at = reinterpret_cast<uint8_t*>(words_.data());
    const fatbin::FatbinHeader header{fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader), entries};
    at = put(at, &header, sizeof header);
    fatbin::FatbinEntry host{};
    host.kind = fatbin::kFatbinKindHostCode;
    host.header_size = sizeof host;
    host.payload_size = sizeof(fatbin::ModuleImage);
    host.sm_version = 90;
    host.bit_width = 64;
    at = put(at, &host, sizeof host);
    const fatbin::ModuleImage module{fatbin::kModuleMagic, 1, "test_module_mixed.cpp", 1, kernels_, 1, vars_, 0};
    at = put(at, &module, sizeof module);
    fatbin::FatbinEntry ptx{};
    ptx.kind = fatbin::kFatbinKindPtx;
    ptx.version = 0x0101;
    ptx.header_size = sizeof ptx;
    ptx.padded_payload_size = static_cast<uint32_t>(text);
    ptx.major = 8;
    ptx.sm_version = 90;
    ptx.flags = fatbin::kFatbinFlag64Bit | fatbin::kFatbinFlagLinux;
    at = put(at, &ptx, sizeof ptx);
    put(at, ptx_entry().data(), ptx_entry().size());
  }
  const void* data() const { return words_.data(); }

 private:
  static uint8_t* put(uint8_t* at, const void* what, size_t n) {
    std::memcpy(at, what, n);
    return at + n;
  }
  fatbin::KernelImage kernels_[1] = {crt::kernel_image<&twice>("twice")};
  int init_ = 41;
  void* slot_ = nullptr;
  fatbin::VariableImage vars_[1] = {{"g_value", sizeof(int), 0, &init_, &slot_}};
  std::vector<uint64_t> words_;
};

class MixedModule : public Ready {
 protected:
  // Runs `name` over 64 floats 0..63 and returns element 10.
  float run(CUmodule m, const char* name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, m, name), CUDA_SUCCESS);
    float host[64];
    for (int i = 0; i < 64; ++i) host[i] = static_cast<float>(i);
    CUdeviceptr d = 0;
    EXPECT_EQ(cuMemAlloc(&d, sizeof host), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD(d, host, sizeof host), CUDA_SUCCESS);
    int n = 64;
    void* args[] = {&d, &n};
    EXPECT_EQ(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyDtoH(host, d, sizeof host), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree(d), CUDA_SUCCESS);
    return host[10];
  }
  int global(CUmodule m, const char* name) {
    CUdeviceptr g = 0;
    size_t bytes = 0;
    EXPECT_EQ(cuModuleGetGlobal(&g, &bytes, m, name), CUDA_SUCCESS);
    EXPECT_EQ(bytes, 4u);
    int v = 0;
    EXPECT_EQ(cuMemcpyDtoH(&v, g, 4), CUDA_SUCCESS);
    return v;
  }
  MixedFatbin fat_;
};

TEST_F(MixedModule, EachKernelRunsFromTheEntryThatHasItTheCxxOneWhereBothDo) {
  trace::Recorder recorder;
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, fat_.data()), CUDA_SUCCESS);
  unsigned count = 0;
  EXPECT_EQ(cuModuleGetFunctionCount(&count, m), CUDA_SUCCESS);
  EXPECT_EQ(count, 2u);  // twice (C++) and add_one (PTX)
  EXPECT_EQ(run(m, "twice"), 20.0f);    // C++: doubles
  EXPECT_EQ(run(m, "add_one"), 11.0f);  // PTX only
  EXPECT_EQ(global(m, "g_value"), 41);  // the C++ entry's variable
  EXPECT_EQ(global(m, "ptx_value"), 5); // the PTX entry's
  CUfunction missing = nullptr;
  EXPECT_EQ(cuModuleGetFunction(&missing, m, "nope"), CUDA_ERROR_NOT_FOUND);
  bool noted = false;
  for (const trace::Event& e : recorder.events())
    noted |= e.kind == trace::Kind::Note &&
             e.text == "module: 1 C++ kernel(s) and 1 PTX kernel(s), 2 variable(s)";
  EXPECT_TRUE(noted);
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(MixedModule, ForcingThePtxJitRunsThePtxWhereBothHaveTheKernel) {
  ASSERT_EQ(setenv("CUDA_FORCE_PTX_JIT", "1", 1), 0);
  CUmodule m = nullptr;
  const CUresult loaded = cuModuleLoadData(&m, fat_.data());
  unsetenv("CUDA_FORCE_PTX_JIT");
  ASSERT_EQ(loaded, CUDA_SUCCESS);
  EXPECT_EQ(run(m, "twice"), 30.0f);  // the PTX's: triples
  EXPECT_EQ(run(m, "add_one"), 11.0f);
  EXPECT_EQ(global(m, "g_value"), 41);
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::testing
