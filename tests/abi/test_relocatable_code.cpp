// Relocatable device code (nvcc -rdc=true) on the registration ABI, without nvcc: the wrapper
// crt/link.stub registers has version 2, and its filename_or_fatbins lists each translation
// unit's fatbinary, NULL-terminated. The runtime links the units' PTX with libcuda's linker when
// the module loads (launch.cpp, link_relocatable). The units here are the two PTX inputs the H200
// linked (tests/data/h200/link_extern/probe_link_extern.cu: call_it calls add_ten, which only the
// other unit defines), and a third with PTX only for a newer GPU, as the device runtime's library
// has, which the link leaves out.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "abi_test_support.h"
#include "fatbinary.h"

namespace minicuda::abi_testing {
namespace {

// A PTX input of the link_extern probe, read from its source.
std::string probe_ptx(const std::string& variable) {
  const std::string source = read_text(std::string(MINICUDA_H200_DATA) + "/link_extern/probe_link_extern.cu");
  const std::string open = "static const char* " + variable + " = R\"(";
  const size_t at = source.find(open);
  if (at == std::string::npos) return "";
  const size_t from = at + open.size();
  return source.substr(from, source.find(")\";", from) - from);
}

char call_it_stub;  // stands for nvcc's host stub of call_it

TEST(RelocatableDeviceCode, TheUnitsPtxIsLinkedWhenTheModuleLoads) {
  const std::string caller = probe_ptx("kCaller"), callee = probe_ptx("kCallee");
  ASSERT_NE(caller.find(".extern .func"), std::string::npos);
  ASSERT_NE(callee.find(".visible .func"), std::string::npos);
  static const std::vector<uint64_t> units[3] = {ptx_fatbin(caller), ptx_fatbin(callee),
                                                 ptx_fatbin(".version 9.0\n.target sm_121\n.address_size 64\n", 121)};
  static const void* list[4] = {units[0].data(), units[1].data(), units[2].data(), nullptr};
  // The device-linked image: empty, as nvcc writes it for a PTX-only build.
  static const fatbin::FatbinHeader empty{fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader), 0};
  static fatbin::FatbinWrapper wrapper{fatbin::kFatbinWrapperMagic, 2, &empty, const_cast<void**>(list)};
  void** handle = __cudaRegisterFatBinary(&wrapper);
  __cudaRegisterFunction(handle, &call_it_stub, const_cast<char*>("call_it"), "call_it", -1, nullptr, nullptr, nullptr,
                         nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(handle);
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 32 * sizeof(int)), cudaSuccess);
  void* args[] = {&out};
  ASSERT_EQ(cudaLaunchKernel(&call_it_stub, dim3(1), dim3(32), args, 0, nullptr), cudaSuccess);
  int h[32] = {};
  ASSERT_EQ(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(h[i], i + 10) << i;  // add_ten, from the other unit
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::abi_testing
