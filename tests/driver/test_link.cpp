// The linker at the Driver API (driver/user/src/link.cpp): links of PTX inputs into minicuda's
// ELF, NVIDIA cubins refused, and the handle and file errors - as the H200 recorded them
// (tests/data/h200/module/probe_module.txt link.*).
#include <cstring>
#include <string>

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

}  // namespace
}  // namespace minicuda::testing
