// Modules at the Driver API (driver/user/src/module_load.cpp, jit.cpp, image.cpp): cuModuleLoad*
// of PTX, cubins and fatbinaries, the JIT's log buffers, lookups in a module, and the error
// paths - each answer as the H200 recorded it (tests/data/h200/module/probe_module.txt), read
// from the recording itself by key.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "crt/kernel_image.h"
#include "driver_fixtures.h"
#include "fatbinary.h"
#include "image.h"
#include "minicuda/trace.h"
#include "module_probe.h"

namespace minicuda::testing {
namespace {

namespace image = minicuda::libcuda::image;
// A float as the probe prints it (%g).
std::string fmt_float(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}
const CUmodule kSentinel = reinterpret_cast<CUmodule>(uintptr_t{0x5a5a});

// cuModuleLoadDataEx with both log buffers, as the probe's load_ex does.
struct LoadEx {
  CUresult result = CUDA_SUCCESS;
  CUmodule module = kSentinel;
  std::string error_log, info_log;
  size_t error_size_back = 0, info_size_back = 0;
};
LoadEx load_ex(const void* image, unsigned buf_size = 4096, bool verbose = true) {
  static char err[8192], info[8192];
  std::memset(err, 0, sizeof err);
  std::memset(info, 0, sizeof info);
  CUjit_option opt[5] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void* val[5] = {err, reinterpret_cast<void*>(uintptr_t{buf_size}), info, reinterpret_cast<void*>(uintptr_t{buf_size}),
                  reinterpret_cast<void*>(uintptr_t{verbose ? 1u : 0u})};
  LoadEx out;
  out.result = cuModuleLoadDataEx(&out.module, image, 5, opt, val);
  out.error_log = err;
  out.info_log = info;
  out.error_size_back = reinterpret_cast<uintptr_t>(val[1]);
  out.info_size_back = reinterpret_cast<uintptr_t>(val[3]);
  return out;
}

// Checks a load against the probe's lines for `key`: the code, *module left as it was on failure,
// both logs and the sizes written back.
void expect_recorded(const std::string& key, const LoadEx& got) {
  SCOPED_TRACE(key);
  EXPECT_EQ(static_cast<int>(got.result), recorded_code(key));
  EXPECT_EQ(got.module == kSentinel, recorded(key + ".module_is_sentinel") == "1");
  EXPECT_EQ(got.error_log, recorded_log(key + ".error.log"));
  EXPECT_EQ(std::to_string(got.error_size_back), recorded(key + ".error.log_size_back"));
  EXPECT_EQ(got.info_log, recorded_log(key + ".info.log"));
  EXPECT_EQ(std::to_string(got.info_size_back), recorded(key + ".info.log_size_back"));
}

// Does a recording of `events` have a note containing `text`?
bool noted(const trace::Recorder& recorder, const std::string& text) {
  for (const trace::Event& e : recorder.events())
    if (e.kind == trace::Kind::Note && e.text.find(text) != std::string::npos) return true;
  return false;
}

void twice(float* data, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= 2;
}

// minicuda's own fatbinary, as crt/host_runtime.h lays one out: one kernel and one variable.
struct HostFatbin {
  fatbin::KernelImage kernels[1] = {crt::kernel_image<&twice>("twice")};
  int init = 41;
  void* slot = nullptr;
  fatbin::VariableImage vars[1] = {{"g_value", sizeof(int), 0, &init, &slot}};
  fatbin::MinicudaFatbin bin{};
  HostFatbin() {
    bin.header = {fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader),
                  sizeof(fatbin::FatbinEntry) + sizeof(fatbin::ModuleImage)};
    bin.entry.kind = fatbin::kFatbinKindHostCode;
    bin.entry.header_size = sizeof(fatbin::FatbinEntry);
    bin.entry.payload_size = sizeof(fatbin::ModuleImage);
    bin.module = {fatbin::kModuleMagic, 1, "test_module.cpp", 1, kernels, 1, vars, 0};
  }
};

// vadd(a, b, c, n) of a module over a[i] = i, b[i] = 2i, in blocks of 256: what the launch and the
// synchronisation returned, and c.
struct VaddRun {
  CUresult launched = CUDA_SUCCESS, synced = CUDA_SUCCESS;
  std::vector<float> c;
};
VaddRun run_vadd(CUfunction vadd, int n) {
  std::vector<float> ha(n), hb(n);
  for (int i = 0; i < n; ++i) ha[i] = static_cast<float>(i), hb[i] = static_cast<float>(2 * i);
  CUdeviceptr a = 0, b = 0, c = 0;
  EXPECT_EQ(cuMemAlloc(&a, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAlloc(&b, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAlloc(&c, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD(a, ha.data(), n * 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD(b, hb.data(), n * 4), CUDA_SUCCESS);
  void* args[] = {&a, &b, &c, &n};
  VaddRun run;
  run.launched = cuLaunchKernel(vadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
  run.synced = cuCtxSynchronize();
  run.c.resize(n);
  EXPECT_EQ(cuMemcpyDtoH(run.c.data(), c, n * 4), CUDA_SUCCESS);
  cuMemFree(a), cuMemFree(b), cuMemFree(c);
  return run;
}

using ModuleLoad = Ready;

TEST(ModuleLoadOrder, BeforeInitAndWithoutContext) {
  auto process = kernel::spawn_process();
  kernel::ProcessScope scope(*process);
  std::string ptx = image_file("vadd.ptx");
  CUmodule m = kSentinel;
  EXPECT_EQ(static_cast<int>(cuModuleLoadData(&m, ptx.data())), recorded_code("before_init.load_data"));
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<int>(cuModuleLoadData(&m, ptx.data())), recorded_code("no_ctx.load_data"));
  EXPECT_EQ(m, kSentinel);
}

TEST_F(ModuleLoad, ImagesThatAreNotCodeGetTheDriversLog) {
  static const unsigned char garbage[64] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8};
  static const unsigned char zeros[256] = {};
  expect_recorded("image.empty_string", load_ex(""));
  expect_recorded("image.garbage", load_ex(garbage));
  expect_recorded("image.zeros", load_ex(zeros));
  std::string no_version = image_file("vadd.ptx");
  no_version.replace(no_version.find(".version 9.0"), 12, "");
  expect_recorded("ptx.no_version", load_ex(no_version.c_str()));
  CUmodule m = kSentinel;
  EXPECT_EQ(static_cast<int>(cuModuleLoadData(&m, nullptr)), recorded_code("image.null"));
  EXPECT_EQ(static_cast<int>(cuModuleLoadData(nullptr, "x")), recorded_code("load_data.null_module"));
  EXPECT_EQ(static_cast<int>(cuModuleLoadFatBinary(&m, garbage)), recorded_code("fatbin.load_fat_binary.garbage"));
  EXPECT_EQ(m, kSentinel);
}

TEST_F(ModuleLoad, ALogBufferTooSmallIsTruncatedAndItsSizeWrittenBack) {
  LoadEx got = load_ex("", 16);
  EXPECT_EQ(got.result, CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(got.error_log, std::string(image::kUnrecognizedImageLog).substr(0, 15));
  EXPECT_EQ(got.error_size_back, 16u);  // as ptx.small_log_buffer: the buffer's size
}

TEST_F(ModuleLoad, SassOnlyImagesHaveNoBinaryForTheSimulatedGpu) {
  std::string sm80 = image_file("vadd_sm80.cubin"), fat80 = image_file("vadd_sm80only.fatbin");
  expect_recorded("cubin.sm80", load_ex(sm80.data()));
  expect_recorded("fatbin.sm80_only", load_ex(fat80.data()));
  // The H200 runs its sm_90 SASS (cubin.sm90 = 0); the simulator cannot, and says why.
  trace::Recorder recorder;
  std::string sm90 = image_file("vadd_sm90.cubin");
  LoadEx got = load_ex(sm90.data());
  EXPECT_EQ(got.result, CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(got.module, kSentinel);
  EXPECT_EQ(got.error_size_back, 0u);
  EXPECT_TRUE(noted(recorder, "an NVIDIA cubin (SASS for sm_90): NVIDIA SASS cannot run on the simulator"));
  // A cubin cut to its first 64 bytes crashed the real driver (cubin.truncated_64.child); here
  // only the ELF header is read.
  EXPECT_EQ(load_ex(sm90.substr(0, 64).data()).result, CUDA_ERROR_NO_BINARY_FOR_GPU);
}

TEST_F(ModuleLoad, FilesMissingUnreadableOrNull) {
  CUmodule m = kSentinel;
  EXPECT_EQ(static_cast<int>(cuModuleLoad(&m, "/nonexistent/x.ptx")), recorded_code("load.missing_file"));
  EXPECT_EQ(static_cast<int>(cuModuleLoad(&m, "/tmp")), recorded_code("load.directory"));
  EXPECT_EQ(static_cast<int>(cuModuleLoad(&m, nullptr)), recorded_code("load.null_path"));
  EXPECT_EQ(m, kSentinel);
  CUlibrary lib = nullptr;
  EXPECT_EQ(static_cast<int>(cuLibraryLoadFromFile(&lib, "/nonexistent/x.ptx", nullptr, nullptr, 0, nullptr, nullptr, 0)),
            recorded_code("library.from_missing_file"));
}

TEST_F(ModuleLoad, AFatbinarysPtxIsDecompressedAndItsSassSkipped) {
  std::string fat = image_file("vadd.fatbin"), ptx_only = image_file("vadd_ptxonly.fatbin");
  image::Code both = image::select(fat.data(), 90);
  ASSERT_EQ(both.error, CUDA_SUCCESS) << both.why;
  EXPECT_EQ(both.ptx.size(), 2008u);  // uncompressed_size 2009, its NUL dropped
  EXPECT_NE(both.ptx.find(".version 9.0\n.target sm_90\n"), std::string::npos);
  EXPECT_NE(both.ptx.find(".visible .entry big_shared("), std::string::npos);
  EXPECT_EQ(both.why, "the fatbinary's compute_90 PTX (zstd, decompressed); its sm_90 SASS skipped: NVIDIA SASS "
                      "cannot run on the simulator");
  EXPECT_EQ(image::select(ptx_only.data(), 90).ptx, both.ptx);
  // For an sm_80 device the compute_90 PTX is too new.
  EXPECT_EQ(image::select(ptx_only.data(), 80).error, CUDA_ERROR_NO_BINARY_FOR_GPU);
  // Through a wrapper (what __cudaRegisterFatBinary gets) the same entry is found.
  fatbin::FatbinWrapper wrapper{fatbin::kFatbinWrapperMagic, 1, ptx_only.data(), nullptr};
  EXPECT_EQ(image::select(&wrapper, 90).ptx, both.ptx);
}

TEST_F(ModuleLoad, FatbinarySizesThatDoNotFitAreRefused) {
  std::string fat = image_file("vadd_ptxonly.fatbin");
  const auto* bytes = reinterpret_cast<const uint8_t*>(fat.data());
  const size_t size = fat.size() - 1;
  ASSERT_EQ(image::select_fatbin(bytes, size, 90).error, CUDA_SUCCESS);
  for (size_t cut : {size_t{8}, size_t{20}, size_t{100}, size - 1})
    EXPECT_EQ(image::select_fatbin(bytes, cut, 90).error, CUDA_ERROR_INVALID_IMAGE) << cut;
  std::string bad = fat;
  bad[16 + 8] = '\x7f';  // the entry's padded size: past the container
  EXPECT_EQ(image::select_fatbin(reinterpret_cast<const uint8_t*>(bad.data()), size, 90).error, CUDA_ERROR_INVALID_IMAGE);
  bad = fat;
  bad[16 + 80 + 5] ^= 0x55;  // the zstd frame: corrupt
  EXPECT_EQ(image::select_fatbin(reinterpret_cast<const uint8_t*>(bad.data()), size, 90).error, CUDA_ERROR_INVALID_IMAGE);
}

// nvcc -compress-mode=speed writes LZ4 blocks (flag 0x2000) instead of zstd frames. What the H200
// answered for the same images: tests/data/h200/fatbin_lz4/probe_fatbin_lz4.txt.
TEST_F(ModuleLoad, Lz4CompressedFatbinariesLoadAndRunAsTheH200s) {
  const std::string dir = std::string(MINICUDA_H200_DATA) + "/fatbin_lz4";
  const std::string probe = dir + "/probe_fatbin_lz4.txt";
  const std::string zstd_ptx = image::select(image_file("vadd.fatbin").data(), 90).ptx;
  for (const std::string name : {"vadd_lz4_ptxonly.fatbin", "vadd_lz4.fatbin"}) {
    SCOPED_TRACE(name);
    const std::string key = "img/" + name, fat = image_file(name, dir);
    image::Code code = image::select(fat.data(), 90);
    ASSERT_EQ(code.error, CUDA_SUCCESS) << code.why;
    EXPECT_EQ(code.ptx, zstd_ptx);  // the PTX the zstd image of the same source holds
    EXPECT_EQ(code.why.rfind("the fatbinary's compute_90 PTX (lz4, decompressed)", 0), 0u) << code.why;
    CUmodule m = nullptr;
    ASSERT_EQ(std::to_string(cuModuleLoadData(&m, fat.data())) + " CUDA_SUCCESS", recorded_in(probe, key + ".load"));
    CUfunction vadd = nullptr;
    ASSERT_EQ(cuModuleGetFunction(&vadd, m, "vadd"), CUDA_SUCCESS);
    VaddRun run = run_vadd(vadd, 1000);
    int wrong = 0;
    for (int i = 0; i < 1000; ++i) wrong += run.c[i] != static_cast<float>(3 * i);
    EXPECT_EQ(fmt::format("{} {} wrong {} c[999] {}", static_cast<int>(run.launched), static_cast<int>(run.synced),
                          wrong, fmt_float(run.c[999])),
              recorded_in(probe, key + ".run"));
    EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  }
  // A byte of the PTX-only image's LZ4 block changed: the block still decodes, to PTX whose
  // ".version" reads ".ve(sion", and the JIT refuses it as the H200's does.
  std::string corrupt = image_file("vadd_lz4_ptxonly.fatbin", dir);
  corrupt[16 + 80 + 9] ^= 0x5a;
  EXPECT_EQ(std::to_string(load_ex(corrupt.data()).result) + " CUDA_ERROR_INVALID_PTX",
            recorded_in(probe, "img/vadd_lz4_ptxonly.fatbin.corrupt.load"));
  // The entry's uncompressed size halved: the H200's driver crashes in the decoder (signal 11);
  // here the decoder stops at the smaller buffer and the image is refused.
  std::string halved = image_file("vadd_lz4_ptxonly.fatbin", dir);
  uint64_t size = 0;
  std::memcpy(&size, halved.data() + 16 + 56, 8);
  size /= 2;
  std::memcpy(halved.data() + 16 + 56, &size, 8);
  EXPECT_EQ(recorded_in(probe, "img/vadd_lz4_ptxonly.fatbin.half_size"), "crashed (signal 11)");
  image::Code refused = image::select(halved.data(), 90);
  EXPECT_EQ(refused.error, CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(refused.why, "a compressed PTX entry does not decompress (lz4: a malformed LZ4 block)");
}

TEST_F(ModuleLoad, MutatedFatbinariesAreReadWithinTheirBounds) {
  // Random bytes of the recorded containers changed, 3000 times: every answer is one of the three
  // the parser gives, and nothing past the container is read (ASan checks that in the asan preset).
  const std::string images[3] = {image_file("vadd.fatbin"), image_file("vadd_ptxonly.fatbin"),
                                  image_file("vadd_lz4_ptxonly.fatbin", std::string(MINICUDA_H200_DATA) + "/fatbin_lz4")};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  for (int i = 0; i < 3000; ++i) {
    const std::string& original = images[i % 3];
    const size_t size = original.size() - 1;
    std::vector<uint8_t> bytes(original.begin(), original.begin() + static_cast<long>(size));
    for (int flips = 1 + static_cast<int>(next() >> 61); flips > 0; --flips)
      bytes[(next() >> 33) % (i % 4 == 0 ? 112 : size)] = static_cast<uint8_t>(next() >> 56);  // often the headers
    const CUresult r = image::select_fatbin(bytes.data(), bytes.size(), 90).error;
    EXPECT_TRUE(r == CUDA_SUCCESS || r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU) << i;
  }
}

TEST_F(ModuleLoad, AModuleOfCxxKernelsLaunchesAndHasGlobals) {
  HostFatbin fat;
  CUmodule m = kSentinel;
  ASSERT_EQ(cuModuleLoadData(&m, &fat.bin), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "twice"), CUDA_SUCCESS);
  unsigned count = 0;
  EXPECT_EQ(cuModuleGetFunctionCount(&count, m), CUDA_SUCCESS);
  EXPECT_EQ(count, 1u);
  CUfunction all[1] = {};
  EXPECT_EQ(cuModuleEnumerateFunctions(all, 1, m), CUDA_SUCCESS);
  EXPECT_EQ(all[0], f);
  const char* name = nullptr;
  EXPECT_EQ(cuFuncGetName(&name, f), CUDA_SUCCESS);
  EXPECT_STREQ(name, "twice");

  CUdeviceptr d = 0;
  float host[64];
  for (int i = 0; i < 64; ++i) host[i] = static_cast<float>(i);
  ASSERT_EQ(cuMemAlloc(&d, sizeof host), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(d, host, sizeof host), CUDA_SUCCESS);
  int n = 64;
  void* args[] = {&d, &n};
  ASSERT_EQ(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(host, d, sizeof host), CUDA_SUCCESS);
  EXPECT_EQ(host[63], 126.0f);
  EXPECT_EQ(static_cast<int>(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, args)),
            recorded_code("launch.both_params_and_extra"));

  CUdeviceptr g = 0;
  size_t bytes = 0;
  ASSERT_EQ(cuModuleGetGlobal(&g, &bytes, m, "g_value"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, sizeof(int));
  int value = 0;
  ASSERT_EQ(cuMemcpyDtoH(&value, g, sizeof value), CUDA_SUCCESS);
  EXPECT_EQ(value, 41);
  EXPECT_EQ(static_cast<int>(cuModuleGetGlobal(&g, &bytes, m, "nope")), recorded_code("get_global.missing"));
  EXPECT_EQ(static_cast<int>(cuModuleGetGlobal(nullptr, nullptr, m, "g_value")), recorded_code("get_global.null_outs"));
  EXPECT_EQ(static_cast<int>(cuModuleGetGlobal(&g, &bytes, m, nullptr)), recorded_code("get_global.null_name"));
  EXPECT_EQ(cuMemFree(d), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<int>(cuModuleUnload(m)), recorded_code("unload.good"));
  EXPECT_EQ(static_cast<int>(cuModuleUnload(m)), recorded_code("unload.good_again"));
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, m, "twice")), recorded_code("get_function.after_unload"));
}

TEST_F(ModuleLoad, LookupErrorsAsRecorded) {
  HostFatbin fat;
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, &fat.bin), CUDA_SUCCESS);
  CUfunction f = reinterpret_cast<CUfunction>(uintptr_t{0x5a5a});
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, m, "nope")), recorded_code("get_function.missing"));
  EXPECT_EQ(f == nullptr, recorded("get_function.missing.hfunc_is_null") == "1");
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, m, nullptr)), recorded_code("get_function.null_name"));
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(nullptr, m, "twice")), recorded_code("get_function.null_hfunc"));
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, nullptr, "twice")), recorded_code("get_function.null_module"));
  // With the NULL function the missing lookup left (the probe's func_attr.* lines).
  int attr = -1;
  EXPECT_EQ(static_cast<int>(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, f)), recorded_code("func_attr.num_regs"));
  EXPECT_EQ(std::to_string(attr), recorded("func_attr.num_regs.value"));
  const char* name = nullptr;
  EXPECT_EQ(static_cast<int>(cuFuncGetName(&name, f)), recorded_code("func_get_name"));
  EXPECT_EQ(static_cast<int>(cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr)),
            recorded_code("launch.null_function"));
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(ModuleLoad, JitOptions) {
  CUmodule m = kSentinel;
  CUjit_option bogus[1] = {static_cast<CUjit_option>(99)};
  void* values[1] = {nullptr};
  EXPECT_EQ(cuModuleLoadDataEx(&m, "", 1, bogus, values), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleLoadDataEx(&m, "", 1, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  // The wall time is written back as a float, even for a load that fails.
  CUjit_option wall[1] = {CU_JIT_WALL_TIME};
  float sentinel = -1.0f;
  std::memcpy(&values[0], &sentinel, sizeof sentinel);
  EXPECT_EQ(cuModuleLoadDataEx(&m, "", 1, wall, values), CUDA_ERROR_INVALID_IMAGE);
  float ms = -1.0f;
  std::memcpy(&ms, &values[0], sizeof ms);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(m, kSentinel);
}

// The PTX loads below need the JIT (driver/ptx) to lower the recorded kernels; while it cannot,
// the load is CUDA_ERROR_NOT_SUPPORTED and they are skipped, saying so.
class PtxModule : public Ready {
 protected:
  void SetUp() override {
    Ready::SetUp();
    ptx = image_file("vadd.ptx");
    CUmodule m = nullptr;
    CUresult r = cuModuleLoadData(&m, ptx.data());
    if (r == CUDA_ERROR_NOT_SUPPORTED) GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
    ASSERT_EQ(r, CUDA_SUCCESS);
    cuModuleUnload(m);
  }
  std::string with(const std::string& from, const std::string& to) {
    std::string s = ptx;
    s.replace(s.find(from), from.size(), to);
    return s;
  }
  std::string ptx;
};

TEST_F(PtxModule, GoodPtxLoadsAndItsFunctionsAreFound) {
  LoadEx got = load_ex(ptx.data(), 4096, false);
  expect_recorded("ptx.not_verbose_good", got);
  CUfunction f = nullptr;
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, got.module, "vadd")), recorded_code("get_function.vadd"));
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, got.module, "_Z4vaddPKfS0_Pfi")),
            recorded_code("get_function.mangled_name_of_extern_c"));
  CUdeviceptr g = 0;
  size_t bytes = 0;
  EXPECT_EQ(cuModuleGetGlobal(&g, &bytes, got.module, "c_scale"), CUDA_SUCCESS);
  EXPECT_EQ(std::to_string(bytes), recorded("get_global.c_scale.bytes"));
  EXPECT_EQ(cuModuleUnload(got.module), CUDA_SUCCESS);
}

TEST_F(PtxModule, BadPtxAsRecorded) {
  // The probe's edits of vadd.ptx (probe_module.cu), each loaded with both log buffers.
  expect_recorded("ptx.garbage_line", load_ex(with(".address_size 64", ".address_size 64\n@@@ garbage here").c_str()));
  expect_recorded("ptx.undeclared_register", load_ex(with("mov.u32", "mov.u32 %r999, %r1;\n\tmov.u32").c_str()));
  expect_recorded("ptx.type_mismatch", load_ex(with("mov.u32", "mov.f64 %r1, %r2;\n\tmov.u32").c_str()));
  expect_recorded("ptx.undefined_label", load_ex(with("ret;", "bra $L__nowhere;\n\tret;").c_str()));
  expect_recorded("ptx.target_sm_100", load_ex(with(".target sm_90", ".target sm_100").c_str()));
  expect_recorded("ptx.truncated", load_ex(ptx.substr(0, (ptx.size() - 1) / 2).c_str()));
  // A newer .version: the code and *module as recorded (the log's wording is the JIT's:
  // tests/conformance/test_conformance_module.cpp lists how it differs).
  LoadEx v99 = load_ex(with(".version 9.0", ".version 99.0").c_str());
  EXPECT_EQ(static_cast<int>(v99.result), recorded_code("ptx.version_99"));
  EXPECT_EQ(v99.module, kSentinel);
  // A 16-byte buffer gets the log's first 15 characters and 16 written back (ptx.small_log_buffer).
  LoadEx small = load_ex(with("mov.u32", "mov.f64 %r1, %r2;\n\tmov.u32").c_str(), 16);
  EXPECT_EQ(small.error_log, recorded_log("ptx.small_log_buffer.error.log"));
  EXPECT_EQ(std::to_string(small.error_size_back), recorded("ptx.small_log_buffer.error.log_size_back"));
}

TEST_F(PtxModule, AttributesOfAPtxFunction) {
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.data()), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
  int v = -1;
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 90);  // .version 9.0
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 90);  // compiled for the context's sm_90
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 1024);
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_SUCCESS);
  EXPECT_GT(v, 0);
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f), CUDA_SUCCESS);
  EXPECT_EQ(std::to_string(v), recorded("get_global.c_scale.bytes"));  // the module's .const c_scale
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  const char* name = nullptr;
  EXPECT_EQ(cuFuncGetName(&name, f), CUDA_SUCCESS);
  EXPECT_STREQ(name, "vadd");
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(PtxModule, APtxKernelRunsAndReadsItsModulesVariables) {
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.data()), CUDA_SUCCESS);
  CUfunction vadd = nullptr, bump = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&vadd, m, "vadd"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&bump, m, "bump"), CUDA_SUCCESS);
  VaddRun run = run_vadd(vadd, 1024);
  ASSERT_EQ(run.launched, CUDA_SUCCESS);
  ASSERT_EQ(run.synced, CUDA_SUCCESS);
  EXPECT_EQ(fmt_float(run.c[1000]), recorded("launch.good.c[1000]"));  // a + b * c_scale[0]
  // bump: atomicAdd on g_counter (7), then thread 0 writes it: 32 threads later it is 39.
  CUdeviceptr out = 0;
  ASSERT_EQ(cuMemAlloc(&out, 4), CUDA_SUCCESS);
  void* bargs[] = {&out};
  ASSERT_EQ(cuLaunchKernel(bump, 1, 1, 1, 32, 1, 1, 0, nullptr, bargs, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  CUdeviceptr g = 0;
  size_t bytes = 0;
  ASSERT_EQ(cuModuleGetGlobal(&g, &bytes, m, "g_counter"), CUDA_SUCCESS);
  int counter = 0;
  ASSERT_EQ(cuMemcpyDtoH(&counter, g, 4), CUDA_SUCCESS);
  EXPECT_EQ(counter, 7 + 32);
  cuMemFree(out);
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::testing
