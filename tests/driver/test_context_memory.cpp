// The context's own device memory (driver/user/src/context_memory.h): what building a primary
// context allocates and maps for libcuda itself, and that a program's first allocation sits right
// above it, as on the H200 (tests/data/h200/va/probe_va_layout.txt). The kernels that read and
// write there are in tests/memcheck (below_first_allocation), with and without memcheck mode.
#include <algorithm>
#include <string>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

// context_memory.h's kContextBuffers: one buffer, the 0x19e00000 bytes the H200's libcuda maps
// right below the first allocation (tests/data/h200/vmm/out/vmm_trace.txt).
constexpr size_t kContextBuffers = 1;
constexpr uint64_t kContextReserveBytes = 0x19e00000;

size_t count_in(const std::vector<std::string>& texts, const std::string& needle) {
  return static_cast<size_t>(std::count_if(texts.begin(), texts.end(),
                                           [&](const std::string& t) { return t.find(needle) != std::string::npos; }));
}

using ContextMemory = Initialized;

// Each buffer is one NV01_MEMORY_LOCAL_USER object, mapped through UVM like a cudaMalloc chunk.
TEST_F(ContextMemory, BuildingTheContextAllocatesAndMapsEachBuffer) {
  trace::Recorder rec;
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  EXPECT_EQ(count_in(rec.texts(trace::Layer::Nvidia), "hClass=NV01_MEMORY_LOCAL_USER"), kContextBuffers);
  // + the channel's buffer and the staging buffer (sysmem)
  EXPECT_EQ(count_in(rec.texts(trace::Layer::Uvm), "UVM_MAP_EXTERNAL_ALLOCATION("), kContextBuffers + 2)
      << rec.tree();
  EXPECT_EQ(count_in(rec.texts(trace::Layer::Uvm), "length=0x19e00000"), 2u) << "its range and its mapping";
}

// The first allocation sits right above the reserve; the addresses below it belong to no
// allocation of the program: the H200 answers CUDA_ERROR_NOT_FOUND (probe_va_layout.txt
// range(-4) = 500, range(-67108864) = 500).
TEST_F(ContextMemory, TheFirstAllocationSitsRightAboveIt) {
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  CUdeviceptr first = 0;
  ASSERT_EQ(cuMemAlloc_v2(&first, 15 << 20), CUDA_SUCCESS);
  EXPECT_EQ(first % (2 << 20), 0u);  // first_mod_2M = 0
  for (uint64_t below : {4ull, 2ull << 20, 64ull << 20, 0x19e00000ull}) {
    CUdeviceptr base = 1;
    size_t size = 1;
    EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, first - below), CUDA_ERROR_NOT_FOUND) << below;
  }
  CUdeviceptr base = 0;
  size_t size = 0;
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, first), CUDA_SUCCESS);
  EXPECT_EQ(base, first);
  EXPECT_EQ(size, 15u << 20);
}

// Tearing the context down gives the reserve back: a rebuilt context has as much free memory.
TEST_F(ContextMemory, ResetGivesTheMemoryBack) {
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  size_t free1 = 0, free2 = 0, total = 0;
  ASSERT_EQ(cuMemGetInfo_v2(&free1, &total), CUDA_SUCCESS);
  EXPECT_LE(free1, total - kContextReserveBytes);
  ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetInfo_v2(&free2, &total), CUDA_SUCCESS);
  EXPECT_EQ(free2, free1);
}

}  // namespace
}  // namespace minicuda::testing
