// Lazy initialisation (runtime/src/init.cpp): what the first runtime calls ask of libcuda, in the
// measured order (shared/reference/h200-cuda13/chain_cupti.txt, probe_extra.txt
// rt.primary_state_after_getDeviceCount).
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using LazyInitTest = FreshProcess;

// The names of the libcuda calls a recording saw ("cuMemAlloc_v2"), in order.
std::vector<std::string> libcuda_calls(const trace::Recorder& recorder) {
  std::vector<std::string> names;
  for (const trace::Event& e : recorder.events()) {
    if (e.layer == trace::Layer::Libcuda && e.kind == trace::Kind::Call) names.push_back(e.text.substr(0, e.text.find('(')));
  }
  return names;
}

TEST_F(LazyInitTest, FirstMallocInitialisesThenRetainsThenAllocates) {
  trace::Recorder recorder;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 256), cudaSuccess);
  std::vector<std::string> calls = libcuda_calls(recorder);
  ASSERT_GE(calls.size(), 12u);

  std::vector<std::string> head(calls.begin(), calls.begin() + 7);
  EXPECT_EQ(head, (std::vector<std::string>{"cuInit", "cuModuleGetLoadingMode", "cuGetExportTable", "cuDeviceGetCount",
                                            "cuDeviceGet", "cuDeviceGetName", "cuDeviceTotalMem_v2"}));
  size_t i = 7;
  size_t attributes = 0;
  while (i < calls.size() && calls[i] == "cuDeviceGetAttribute") {
    ++attributes;
    ++i;
  }
  EXPECT_GT(attributes, 80u);  // one per cudaDeviceProp field that comes from an attribute
  std::vector<std::string> tail(calls.begin() + static_cast<long>(i), calls.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"cuDeviceGetUuid_v2", "cuCtxGetCurrent", "cuCtxSetCurrent",
                                            "cuDevicePrimaryCtxRetain", "cuCtxGetCurrent", "cuCtxGetDevice_v2",
                                            "cuMemAlloc_v2"}));
  EXPECT_EQ(primary_state(), "flags=0 active=1");
  CUcontext current = nullptr;
  EXPECT_EQ(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_NE(current, nullptr);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(LazyInitTest, SecondMallocCallsOnlyMemAlloc) {
  void* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, 256), cudaSuccess);
  trace::Recorder recorder;
  void* b = nullptr;
  ASSERT_EQ(cudaMalloc(&b, 256), cudaSuccess);
  EXPECT_EQ(libcuda_calls(recorder), std::vector<std::string>{"cuMemAlloc_v2"});
}

TEST_F(LazyInitTest, GetDeviceCountInitialisesButCreatesNoContext) {
  trace::Recorder recorder;
  int n = -7;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);  // rt.getDeviceCount
  EXPECT_EQ(n, 1);
  std::vector<std::string> calls = libcuda_calls(recorder);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.front(), "cuInit");
  for (const std::string& c : calls) EXPECT_NE(c, "cuDevicePrimaryCtxRetain");
  EXPECT_EQ(primary_state(), "flags=0 active=0");  // rt.primary_state_after_getDeviceCount
  CUcontext current = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuCtxGetCurrent(&current), CUDA_SUCCESS);
  EXPECT_EQ(current, nullptr);
}

TEST_F(LazyInitTest, InitialisationHappensOncePerProcess) {
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  trace::Recorder recorder;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_TRUE(libcuda_calls(recorder).empty());
}

TEST_F(LazyInitTest, AnotherProcessStartsOver) {
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  auto other = kernel::spawn_process();
  kernel::ProcessScope in_other(*other);
  trace::Recorder recorder;
  void* q = nullptr;
  ASSERT_EQ(cudaMalloc(&q, 256), cudaSuccess);
  std::vector<std::string> calls = libcuda_calls(recorder);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.front(), "cuInit");
  EXPECT_EQ(calls.back(), "cuMemAlloc_v2");
}

}  // namespace
}  // namespace minicuda::testing
