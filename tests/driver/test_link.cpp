// The linker at the Driver API (driver/user/src/link.cpp): links of PTX inputs into minicuda's
// ELF, NVIDIA cubins refused, and the handle and file errors - as the H200 recorded them
// (tests/data/h200/module/probe_module.txt link.*).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "driver_fixtures.h"
#include "image.h"
#include "module_probe.h"

namespace minicuda::testing {
namespace {

namespace image = minicuda::libcuda::image;
using Link = Ready;

TEST_F(Link, HandleAndFileErrors) {
  CUlinkState ls = nullptr;
  EXPECT_EQ(cuLinkCreate(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(static_cast<int>(cuLinkCreate(0, nullptr, nullptr, &ls)), recorded_code("link.create"));
  EXPECT_EQ(static_cast<int>(cuLinkAddFile(ls, CU_JIT_INPUT_PTX, "/nonexistent.ptx", 0, nullptr, nullptr)), 301);
  EXPECT_EQ(recorded("link.complete_empty"), "0 CUDA_SUCCESS");
  void* cubin = nullptr;
  size_t size = 0;
  ASSERT_EQ(cuLinkComplete(ls, &cubin, &size), CUDA_SUCCESS);  // an empty link completes
  ASSERT_GT(size, 4u);
  EXPECT_EQ(std::memcmp(cubin, "\x7f" "ELF", 4), 0);
  EXPECT_EQ(cuLinkComplete(ls, nullptr, &size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddData(ls, CU_JIT_INPUT_PTX, nullptr, 0, "x", 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddData(ls, CU_JIT_INPUT_NVVM, cubin, size, "x", 0, nullptr, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkComplete(ls, &cubin, &size), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Link, AnNvidiaCubinHasNoBinaryForTheGpuAndFailsTheLink) {
  CUlinkState ls = nullptr;
  ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &ls), CUDA_SUCCESS);
  std::string path = std::string(MINICUDA_MODULE_DATA) + "/img/vadd_sm90.cubin";
  EXPECT_EQ(static_cast<int>(cuLinkAddFile(ls, CU_JIT_INPUT_CUBIN, path.c_str(), 0, nullptr, nullptr)),
            recorded_code("link.add_file_cubin"));
  void* cubin = nullptr;
  size_t size = 0;
  EXPECT_EQ(static_cast<int>(cuLinkComplete(ls, &cubin, &size)), recorded_code("link.complete_duplicate_symbols"));
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
}

TEST_F(Link, TheLinkersElfCarriesItsPtxBack) {
  const std::string ptx = ".version 9.0\n.target sm_90\n.address_size 64\n";
  std::string elf = image::make_elf(ptx, 90);
  image::Code code = image::select(elf.data(), 90);
  EXPECT_EQ(code.error, CUDA_SUCCESS);
  EXPECT_EQ(code.ptx, ptx);
  EXPECT_EQ(code.why, "minicuda's linked ELF (its PTX)");
}

// PTX inputs need the JIT to lower the recorded kernels; skipped while it cannot.
TEST_F(Link, PtxInputsLinkAndLoad) {
  std::string ptx = image_file("vadd.ptx");
  CUlinkState ls = nullptr;
  ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &ls), CUDA_SUCCESS);
  CUresult r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, ptx.data(), ptx.size(), "vadd.ptx", 0, nullptr, nullptr);
  if (r == CUDA_ERROR_NOT_SUPPORTED) {
    cuLinkDestroy(ls);
    GTEST_SKIP() << "the PTX JIT cannot lower vadd.ptx yet";
  }
  EXPECT_EQ(static_cast<int>(r), recorded_code("link.add_ptx"));
  std::string bad = ptx;
  bad.replace(bad.find(".address_size 64"), 16, ".address_size 64\n@@@ garbage here");  // ptx.garbage_line's edit
  EXPECT_EQ(static_cast<int>(cuLinkAddData(ls, CU_JIT_INPUT_PTX, bad.data(), bad.size(), "bad.ptx", 0, nullptr, nullptr)),
            recorded_code("ptx.garbage_line"));  // refused at once, as link.add_bad_ptx was
  void* cubin = nullptr;
  size_t size = 0;
  ASSERT_EQ(static_cast<int>(cuLinkComplete(ls, &cubin, &size)), recorded_code("link.complete_after_bad"));
  CUmodule m = nullptr;
  EXPECT_EQ(static_cast<int>(cuModuleLoadData(&m, cubin)), recorded_code("link.load_result"));
  CUfunction f = nullptr;
  EXPECT_EQ(static_cast<int>(cuModuleGetFunction(&f, m, "vadd")), recorded_code("link.load_result.get_function"));
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
}

// Separately compiled PTX: one input calls a function it only declares (.extern .func), another
// defines it. Each input is checked when it is added, its unresolved call left for the link;
// cuLinkComplete compiles the joined module, which resolves the call, in either order. Alone, the
// declaring input's link fails with the linker's error, and a load of it without a link with
// ptxas' (tests/data/h200/link_extern/probe_link_extern.txt).
// A PTX input of a probe (`variable` of tests/data/h200/`probe`), read from its source so that the
// test links the very text the H200 linked.
std::string probe_ptx(const std::string& variable, const std::string& probe = "link_extern/probe_link_extern.cu") {
  std::ifstream in(std::string(MINICUDA_H200_DATA) + "/" + probe);
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "static const char* " + variable + " = R\"(";
  const size_t at = source.find(open);
  if (at == std::string::npos) return "";
  const size_t from = at + open.size();
  return source.substr(from, source.find(")\";", from) - from);
}
const std::string& caller() {
  static const std::string text = probe_ptx("kCaller");
  return text;
}
const std::string& callee() {
  static const std::string text = probe_ptx("kCallee");
  return text;
}

// Links the inputs in order: the completion's result, and (when it completes) the kernel's values.
CUresult link_and_run(std::initializer_list<const std::string*> inputs, std::vector<int>* values,
                      std::string* log = nullptr) {
  char error[1024] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* option_values[] = {error, reinterpret_cast<void*>(sizeof error)};
  CUlinkState ls = nullptr;
  EXPECT_EQ(cuLinkCreate(2, opts, option_values, &ls), CUDA_SUCCESS);
  for (const std::string* in : inputs)
    EXPECT_EQ(cuLinkAddData(ls, CU_JIT_INPUT_PTX, const_cast<char*>(in->c_str()), in->size() + 1,
                            in == &caller() ? "caller.ptx" : "callee.ptx", 0, nullptr, nullptr),
              CUDA_SUCCESS);
  void* cubin = nullptr;
  size_t size = 0;
  CUresult r = cuLinkComplete(ls, &cubin, &size);
  if (r == CUDA_SUCCESS) {
    CUmodule m = nullptr;
    EXPECT_EQ(cuModuleLoadData(&m, cubin), CUDA_SUCCESS);
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, m, "call_it"), CUDA_SUCCESS);
    CUdeviceptr out = 0;
    EXPECT_EQ(cuMemAlloc_v2(&out, 32 * sizeof(int)), CUDA_SUCCESS);
    void* args[] = {&out};
    EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    values->assign(32, 0);
    EXPECT_EQ(cuMemcpyDtoH_v2(values->data(), out, 32 * sizeof(int)), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree_v2(out), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  }
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
  if (log != nullptr) *log = error;
  return r;
}

TEST_F(Link, AnExternFunctionIsResolvedByAnotherInput) {
  std::vector<int> expected(32);
  for (int i = 0; i < 32; ++i) expected[i] = i + 10;
  std::vector<int> values;
  ASSERT_FALSE(caller().empty());
  ASSERT_FALSE(callee().empty());
  ASSERT_EQ(link_and_run({&caller(), &callee()}, &values), CUDA_SUCCESS);
  EXPECT_EQ(values, expected);
  values.clear();
  ASSERT_EQ(link_and_run({&callee(), &caller()}, &values), CUDA_SUCCESS);
  EXPECT_EQ(values, expected);
  std::string log;
  EXPECT_EQ(link_and_run({&caller()}, &values, &log), CUDA_ERROR_INVALID_SOURCE);  // caller_alone.complete
  EXPECT_EQ(log, "error   : Undefined reference to 'add_ten' in 'caller.ptx'");
  char error[1024] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* option_values[] = {error, reinterpret_cast<void*>(sizeof error)};
  CUmodule m = nullptr;
  EXPECT_EQ(cuModuleLoadDataEx(&m, caller().c_str(), 2, opts, option_values), CUDA_ERROR_INVALID_PTX);  // load_caller_alone
  EXPECT_EQ(std::string(error), "ptxas fatal   : Unresolved extern function 'add_ten'");
}

// An input's own options and a file input, as tests/data/h200/link_options/probe_link_options.cu
// asked the H200 (its kernel and its answers).
namespace link_options {

const std::string& good() {
  static const std::string text = probe_ptx("kGood", "link_options/probe_link_options.cu");
  return text;
}

std::string recorded_answer(const std::string& key) {
  return recorded_in(std::string(MINICUDA_H200_DATA) + "/link_options/probe_link_options.txt", key);
}
std::string answer(CUresult r) {
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  return std::to_string(static_cast<int>(r)) + " " + (name ? name : "?");
}

}  // namespace link_options

TEST_F(Link, AnInputsOwnOptionsAreCheckedAsTheH200ChecksThem) {
  using namespace link_options;
  ASSERT_NE(good().find(".entry fill"), std::string::npos);
  std::string bad = good();
  bad.replace(bad.find("ld.param.u64"), 12, "ld.parm.u64");
  static char create_err[4096], input_err[4096];
  CUjit_option co[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* cv[2] = {create_err, reinterpret_cast<void*>(uintptr_t{sizeof create_err})};
  CUlinkState ls = nullptr;
  ASSERT_EQ(answer(cuLinkCreate(2, co, cv, &ls)), recorded_answer("per_input_log.create"));
  CUjit_option io[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* iv[2] = {input_err, reinterpret_cast<void*>(uintptr_t{sizeof input_err})};
  EXPECT_EQ(answer(cuLinkAddData(ls, CU_JIT_INPUT_PTX, bad.data(), bad.size() + 1, "bad.ptx", 2, io, iv)),
            recorded_answer("per_input_log.add_bad"));
  EXPECT_EQ(std::string(create_err), "");  // refused before anything was compiled
  EXPECT_EQ(std::string(input_err), "");
  EXPECT_EQ(std::to_string(reinterpret_cast<uintptr_t>(iv[1])), recorded_answer("per_input_log.input_size_back"));
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
  struct Case {
    const char* key;
    unsigned n;
    CUjit_option option;
    uintptr_t value;
    bool null_arrays;
  };
  const Case cases[] = {
      {"opt_level_2", 1, CU_JIT_OPTIMIZATION_LEVEL, 2, false},
      {"option_9999", 1, static_cast<CUjit_option>(9999), 0, false},
      {"null_arrays", 1, CU_JIT_OPTIMIZATION_LEVEL, 0, true},
      {"max_registers_0", 1, CU_JIT_MAX_REGISTERS, 0, false},
      {"target_sm_100", 1, CU_JIT_TARGET, CU_TARGET_COMPUTE_100, false},
      {"zero_options_null_arrays", 0, CU_JIT_OPTIMIZATION_LEVEL, 0, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &ls), CUDA_SUCCESS);
    CUjit_option o[1] = {c.option};
    void* v[1] = {reinterpret_cast<void*>(c.value)};
    EXPECT_EQ(answer(cuLinkAddData(ls, CU_JIT_INPUT_PTX, const_cast<char*>(good().c_str()), good().size() + 1, "good.ptx",
                                   c.n, c.null_arrays ? nullptr : o, c.null_arrays ? nullptr : v)),
              recorded_answer(std::string("add.") + c.key));
    void* cubin = nullptr;
    size_t size = 0;
    EXPECT_EQ(answer(cuLinkComplete(ls, &cubin, &size)), recorded_answer(std::string("add.") + c.key + ".complete"));
    EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
  }
}

TEST_F(Link, AFileInputIsLinkedLoadedAndRun) {
  using namespace link_options;
  const std::string path = ::testing::TempDir() + "/link_file_input.ptx";
  std::ofstream(path) << good();
  CUlinkState ls = nullptr;
  ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &ls), CUDA_SUCCESS);
  EXPECT_EQ(answer(cuLinkAddFile(ls, CU_JIT_INPUT_PTX, path.c_str(), 0, nullptr, nullptr)), recorded_answer("file.add"));
  void* cubin = nullptr;
  size_t size = 0;
  EXPECT_EQ(answer(cuLinkComplete(ls, &cubin, &size)), recorded_answer("file.complete"));
  CUmodule m = nullptr;
  ASSERT_EQ(answer(cuModuleLoadData(&m, cubin)), recorded_answer("file.load"));
  CUfunction f = nullptr;
  ASSERT_EQ(answer(cuModuleGetFunction(&f, m, "fill")), recorded_answer("file.get_function"));
  CUdeviceptr out = 0;
  ASSERT_EQ(cuMemAlloc(&out, 128), CUDA_SUCCESS);
  void* args[] = {&out};
  EXPECT_EQ(answer(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr)), recorded_answer("file.launch"));
  EXPECT_EQ(answer(cuCtxSynchronize()), recorded_answer("file.sync"));
  unsigned h[32] = {};
  ASSERT_EQ(cuMemcpyDtoH(h, out, 128), CUDA_SUCCESS);
  EXPECT_EQ(std::to_string(h[31]), recorded_answer("file.out[31]"));
  EXPECT_EQ(cuLinkDestroy(ls), CUDA_SUCCESS);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace minicuda::testing
