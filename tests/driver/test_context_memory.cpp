// The context's own device memory (driver/user/src/context_memory.h): what building a primary
// context allocates and maps for libcuda itself, and that a program's first allocation sits right
// above it, as on the H200 (tests/data/h200/va/probe_va_layout.txt). The kernels that read and
// write there are in tests/memcheck (below_first_allocation), with and without memcheck mode.
#include <algorithm>
#include <string>
#include <utility>

#include "context_reserve.h"
#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

// context_memory.h: one buffer, local memory. On the H200 it is the 0x19e00000 bytes its libcuda
// maps right below the first allocation (tests/data/h200/vmm/out/vmm_trace.txt).
constexpr size_t kContextBuffers = 1;
constexpr uint64_t kContextReserveBytes = 0x19e00000;

size_t count_in(const std::vector<std::string>& texts, const std::string& needle) {
  return static_cast<size_t>(std::count_if(texts.begin(), texts.end(),
                                           [&](const std::string& t) { return t.find(needle) != std::string::npos; }));
}

using ContextMemory = Initialized;

// The H200: 64 warps on each of its 132 SMs (THREAD_STACK_SCALING_FACTOR), 51200 bytes a warp
// (32 default 1024-byte stacks + 18432): 412.5 MiB, rounded up to the recorded buffer.
TEST(ContextReserve, OnTheH200ItIsTheRecordedBuffer) {
  const libcuda::ContextReserve r = libcuda::context_reserve(64, 132);
  EXPECT_EQ(r.per_warp, 51200u);
  EXPECT_EQ(r.warps, 8448u);
  EXPECT_EQ(r.bytes, kContextReserveBytes);
}

// What the H200 made at context creation for other stack sizes (tests/data/h200/ctxmem/out/
// ctxmem.txt: stack.after_set.used_delta, relative to the default's 414 MiB; and the 678 MiB
// range of ctxmem_ranges.txt for 2048).
TEST(ContextReserve, ScalesWithTheStackAsTheH200Measured) {
  const std::pair<uint64_t, uint64_t> measured[] = {
      {16, 154}, {1024, 414}, {1040, 418}, {1472, 528}, {2048, 678}, {4096, 1206}};
  for (auto [stack, mib] : measured) EXPECT_EQ(libcuda::context_reserve(64, 132, stack).bytes, mib << 20) << stack;
}

// The teaching GPU (4 SMs): 256 warps of 51200 bytes, 12.5 MiB, rounded up to 14 MiB. It keeps
// nearly all of its 240 MiB.
TEST(ContextReserve, OnTheTeachingGpuItIsFourteenMiB) {
  const libcuda::ContextReserve r = libcuda::context_reserve(64, 4);
  EXPECT_EQ(r.warps, 256u);
  EXPECT_EQ(r.bytes, 14u << 20);
}

// A warp's slot is a whole number of 512-byte units; the whole, of 2 MiB chunks.
TEST(ContextReserve, RoundsTheWarpTo512BytesAndTheWholeTo2MiB) {
  const libcuda::ContextReserve odd = libcuda::context_reserve(64, 1, 1);
  EXPECT_EQ(odd.per_warp, 18944u);  // 32 + 18432 = 18464, up to 37 x 512
  EXPECT_EQ(odd.bytes, 2u << 20);
  const libcuda::ContextReserve r = libcuda::context_reserve(64, 132, 16);
  EXPECT_EQ(r.per_warp, 18944u);  // 512 + 18432, already whole
  EXPECT_EQ(r.bytes % (2u << 20), 0u);
  EXPECT_GE(r.bytes, r.per_warp * r.warps);
  EXPECT_LT(r.bytes - r.per_warp * r.warps, 2u << 20);
}

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
