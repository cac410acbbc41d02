// The device heap's allocator (device_sim/src/device_heap.cpp) on a heap in host memory, and the
// SIMT executor's HEAP instruction on nvcc's PTX of tests/data/ptx/src/device_heap.cu, with the
// heap turn that makes the addresses the same at every host thread count.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "device_heap.h"
#include "minicuda/ptx/ptx.h"
#include "ptx_module.h"
#include "sass_builder.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::HeapFree;
using minicuda::gpu::heap_format;
using minicuda::gpu::heap_free;
using minicuda::gpu::heap_malloc;
using minicuda::gpu::testing::address_of;
using minicuda::gpu::testing::SassGrid;

namespace {

// A heap of `bytes` bytes in host memory, 16-byte aligned, formatted as libcuda formats it.
struct TestHeap {
  explicit TestHeap(uint64_t bytes) : storage(bytes / 8 + 2, 0) {
    base = reinterpret_cast<uint8_t*>(storage.data());
    heap_format(base, bytes);
  }
  const NvMinicudaDeviceHeap& header() const { return *reinterpret_cast<const NvMinicudaDeviceHeap*>(base); }
  uint64_t offset(const void* p) const { return static_cast<const uint8_t*>(p) - base; }
  std::vector<uint64_t> storage;  // 16-byte aligned (operator new), so payloads are too
  uint8_t* base = nullptr;
};

TEST(DeviceHeap, FreshHeapIsOneFreeBlockAfterTheHeader) {
  TestHeap h(4096);
  EXPECT_EQ(h.header().magic, NV_MINICUDA_DEVICE_HEAP_MAGIC);
  EXPECT_EQ(h.header().size, 4096u);
  EXPECT_EQ(h.header().free_head, 64u);
  EXPECT_EQ(h.header().touched, 0u);
}

TEST(DeviceHeap, BlocksAreWhole80ByteGranulesAnd16ByteAligned) {
  TestHeap h(4096);
  // The payload plus the 16-byte header, rounded up to 80 bytes: malloc(1..64) are 80 bytes apart
  // and malloc(100..144) 160, as on the H200 (device_heap/out/heap.txt align.size_*).
  void* a = heap_malloc(h.base, 1);
  void* b = heap_malloc(h.base, 64);
  void* c = heap_malloc(h.base, 65);
  void* d = heap_malloc(h.base, 129);
  void* e = heap_malloc(h.base, 1);
  EXPECT_EQ(h.offset(a), 80u);
  EXPECT_EQ(h.offset(b), 80u + 80);
  EXPECT_EQ(h.offset(c), 80u + 160);
  EXPECT_EQ(h.offset(d), 80u + 320);
  EXPECT_EQ(h.offset(e), 80u + 480);
  for (void* p : {a, b, c, d, e}) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u);
  EXPECT_EQ(h.header().live_blocks, 5u);
  EXPECT_EQ(h.header().used_bytes, 80u + 80 + 160 + 160 + 80);
  EXPECT_EQ(h.header().touched, 1u);
}

TEST(DeviceHeap, ZeroBytesGetABlockMoreThanTheHeapReturnsNull) {
  TestHeap h(4096);
  void* zero = heap_malloc(h.base, 0);  // the H200's malloc(0) is not NULL (exhaust.0.count)
  EXPECT_EQ(h.offset(zero), 80u);
  EXPECT_EQ(h.offset(heap_malloc(h.base, 0)), 160u);
  EXPECT_EQ(heap_malloc(h.base, 4096), nullptr);
  EXPECT_EQ(heap_malloc(h.base, ~uint64_t{0}), nullptr);
  EXPECT_EQ(h.header().failed, 2u);
  EXPECT_EQ(h.header().live_blocks, 2u);
}

TEST(DeviceHeap, ExhaustedHeapReturnsNullUntilABlockIsFreed) {
  // 64 bytes of header, then room for exactly four blocks of 1024 + 16 bytes.
  TestHeap h(64 + 4 * 1040);
  std::vector<void*> got;
  for (int i = 0; i < 4; ++i) got.push_back(heap_malloc(h.base, 1024));
  for (void* p : got) EXPECT_NE(p, nullptr);
  EXPECT_EQ(heap_malloc(h.base, 1024), nullptr);
  EXPECT_EQ(heap_malloc(h.base, 1), nullptr);
  EXPECT_EQ(heap_free(h.base, got[2]), HeapFree::Freed);
  EXPECT_EQ(heap_malloc(h.base, 1024), got[2]);  // the freed block, reused whole
}

TEST(DeviceHeap, FreeOfNullIsNothingAndBadPointersAreIgnoredAndCounted) {
  TestHeap h(4096);
  void* a = heap_malloc(h.base, 64);
  uint64_t outside = 0;
  EXPECT_EQ(heap_free(h.base, nullptr), HeapFree::Null);
  EXPECT_EQ(heap_free(h.base, static_cast<uint8_t*>(a) + 16), HeapFree::Interior);
  EXPECT_EQ(heap_free(h.base, &outside), HeapFree::OutsideHeap);
  EXPECT_EQ(heap_free(h.base, h.base + 8), HeapFree::Interior);  // the header
  EXPECT_EQ(h.header().live_blocks, 1u);
  EXPECT_EQ(heap_free(h.base, a), HeapFree::Freed);
  EXPECT_EQ(heap_free(h.base, a), HeapFree::NotInUse);  // a double free (a merged with the free rest)
  EXPECT_EQ(h.header().bad_frees, 4u);
  EXPECT_EQ(h.header().live_blocks, 0u);
  EXPECT_EQ(h.header().used_bytes, 0u);
}

TEST(DeviceHeap, FreedNeighboursMergeAndTheLowestFitIsTaken) {
  TestHeap h(4096);
  void* a = heap_malloc(h.base, 48);  // blocks of 64 bytes
  void* b = heap_malloc(h.base, 48);
  void* c = heap_malloc(h.base, 48);
  void* d = heap_malloc(h.base, 48);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(heap_free(h.base, c), HeapFree::Freed);
  EXPECT_EQ(heap_free(h.base, a), HeapFree::Freed);
  EXPECT_EQ(heap_malloc(h.base, 48), a);  // first fit in address order: a before c
  EXPECT_EQ(heap_free(h.base, a), HeapFree::Freed);
  EXPECT_EQ(heap_free(h.base, b), HeapFree::Freed);  // a, b and c merge into one 192-byte block
  EXPECT_EQ(heap_malloc(h.base, 176), a);
  EXPECT_EQ(heap_malloc(h.base, 1), static_cast<uint8_t*>(d) + 80);  // after d: the top block
}

TEST(DeviceHeap, FreeingEverythingLeavesOneFreeBlock) {
  TestHeap h(8192);
  std::vector<void*> got;
  for (uint64_t n = 1; n < 40; ++n) got.push_back(heap_malloc(h.base, n * 7));
  for (size_t i = 0; i < got.size(); i += 2) EXPECT_EQ(heap_free(h.base, got[i]), HeapFree::Freed);
  for (size_t i = 1; i < got.size(); i += 2) EXPECT_EQ(heap_free(h.base, got[i]), HeapFree::Freed);
  EXPECT_EQ(h.header().free_head, 64u);
  EXPECT_EQ(h.header().used_bytes, 0u);
  EXPECT_EQ(heap_malloc(h.base, 8064), h.base + 80);  // the whole heap again: 101 granules of 8128 bytes
}

// --- the PTX path -------------------------------------------------------------------------------

const ptx::CompileResult& module() {
  static const ptx::CompileResult r = [] {
    return minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/device_heap.ptx");
  }();
  return r;
}
const NvSassProgram& program(const std::string& name) {
  for (const ptx::CompiledKernel& k : module().kernels)
    if (k.name == name) return *static_cast<const NvSassProgram*>(k.sass.get());
  ADD_FAILURE() << "no kernel " << name << ": " << module().error_log;
  static const NvSassProgram none{};
  return none;
}

TEST(DeviceHeapPtx, TheJitLowersMallocAndFreeToHeapInstructions) {
  ASSERT_EQ(module().status, ptx::Status::Ok) << module().error_log;
  for (const ptx::CompiledKernel& k : module().kernels) {
    const std::string sass = ptx::disassemble(k);
    EXPECT_NE(sass.find("heap."), std::string::npos) << k.name << "\n" << sass;
  }
  EXPECT_NE(ptx::disassemble(module().kernels.at(0)).find("heap.malloc"), std::string::npos);
}

// heap_each over 8 blocks of 64 threads, then heap_check_free; the pointers with `threads` host threads.
std::vector<uint64_t> run_each(unsigned threads, uint64_t bytes, TestHeap& h, std::vector<uint64_t>* checked) {
  std::vector<uint64_t> ptrs(512, 0), res(512, 0);
  SassGrid g;
  g.grid = dim3(8), g.block = dim3(64);
  g.heap = h.base;
  g.params = {address_of(ptrs), bytes};
  auto e = g.run(program("heap_each"), threads);
  EXPECT_FALSE(e.has_value()) << e->error.message;
  g.params = {address_of(res), address_of(ptrs)};
  e = g.run(program("heap_check_free"), threads);
  EXPECT_FALSE(e.has_value()) << e->error.message;
  if (checked) *checked = res;
  return ptrs;
}

class DeviceHeapThreads : public ::testing::TestWithParam<unsigned> {};

TEST_P(DeviceHeapThreads, ConcurrentMallocsGetDistinctBlocksInBlockAndLaneOrder) {
  TestHeap h(1 << 20);
  std::vector<uint64_t> checked;
  const std::vector<uint64_t> ptrs = run_each(GetParam(), 16, h, &checked);
  // Block by block, lane by lane: thread t's block is the t-th 80-byte block of the heap.
  for (unsigned t = 0; t < 512; ++t) {
    EXPECT_EQ(ptrs[t] - reinterpret_cast<uint64_t>(h.base), 80u + 80u * t) << t;
    EXPECT_EQ(checked[t], 1u) << t;
  }
  EXPECT_EQ(h.header().live_blocks, 0u);  // heap_check_free freed them all
  EXPECT_EQ(h.header().free_head, 64u);
}

TEST_P(DeviceHeapThreads, AFullHeapGivesTheFirstThreadsTheirBlocksAndTheRestNull) {
  // Room for 100 blocks of 1024 + 16 bytes: threads 0..99 get one, 100..511 get NULL.
  TestHeap h(64 + 100 * 1040);
  std::vector<uint64_t> checked;
  const std::vector<uint64_t> ptrs = run_each(GetParam(), 1024, h, &checked);
  for (unsigned t = 0; t < 512; ++t) {
    if (t < 100) EXPECT_EQ(ptrs[t] - reinterpret_cast<uint64_t>(h.base), 80u + 1040u * t) << t;
    else EXPECT_EQ(ptrs[t], 0u) << t;
    EXPECT_EQ(checked[t], t < 100 ? 1u : 2u) << t;
  }
  EXPECT_EQ(h.header().failed, 412u);
}

INSTANTIATE_TEST_SUITE_P(HostThreads, DeviceHeapThreads, ::testing::Values(0u, 1u, 4u));

TEST(DeviceHeapPtx, ExhaustionCountsAndFreeingEverything) {
  TestHeap h(64 + 7 * 65600 + 32);  // 65536 + 16 bytes round up to 820 granules
  std::vector<uint64_t> out(3, 0);
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(1);
  g.heap = h.base;
  g.params = {address_of(out), 65536};
  auto e = g.run(program("heap_exhaust"), 1);
  ASSERT_FALSE(e.has_value()) << e->error.message;
  EXPECT_EQ(out[0], 7u);
  EXPECT_EQ(out[1] - reinterpret_cast<uint64_t>(h.base), 80u);
  EXPECT_EQ(out[2] - reinterpret_cast<uint64_t>(h.base), 80u + 6u * 65600);
  EXPECT_EQ(h.header().live_blocks, 0u);
}

TEST(DeviceHeapPtx, NewAndDeleteGoThroughTheHeap) {
  TestHeap h(4096);
  std::vector<uint64_t> out(3, 0);
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(1);
  g.heap = h.base;
  g.params = {address_of(out)};
  auto e = g.run(program("heap_new_delete"), 1);
  ASSERT_FALSE(e.has_value()) << e->error.message;
  EXPECT_EQ(out[0] - reinterpret_cast<uint64_t>(h.base), 80u);       // the Counter (an 80-byte block)
  EXPECT_EQ(out[1] - reinterpret_cast<uint64_t>(h.base), 80u + 80);  // the int[4]
  EXPECT_EQ(out[2], 7u);                                               // constructed
  EXPECT_EQ(h.header().live_blocks, 0u);                               // both deleted
}

// heap_free_ptr(p) on one warp: the error it raised, if any.
std::optional<minicuda::gpu::BlockError> free_in_kernel(TestHeap& h, uint64_t p) {
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(32);
  g.heap = h.base;
  g.params = {p};
  return g.run(program("heap_free_ptr"), 1);
}

TEST(DeviceHeapPtx, FreeOfNullOrOfAnInteriorPointerIsNoError) {
  TestHeap h(4096);
  void* a = heap_malloc(h.base, 256);
  auto e = free_in_kernel(h, 0);
  EXPECT_FALSE(e.has_value()) << e->error.message;
  e = free_in_kernel(h, reinterpret_cast<uint64_t>(a) + 16);  // the H200: free_interior = 0
  EXPECT_FALSE(e.has_value()) << e->error.message;
  EXPECT_EQ(h.header().bad_frees, 32u);
  EXPECT_EQ(h.header().live_blocks, 1u);
}

TEST(DeviceHeapPtx, FreeOfANonHeapPointerIsAnIllegalAddress) {
  TestHeap h(4096);
  uint64_t outside = 0;
  auto e = free_in_kernel(h, reinterpret_cast<uint64_t>(&outside));  // the H200: free_foreign = 700
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, minicuda::gpu::KernelErrorKind::IllegalAddress);
  EXPECT_EQ(e->error.address, reinterpret_cast<uint64_t>(&outside));
  EXPECT_NE(e->error.message.find("not in the device heap"), std::string::npos) << e->error.message;
}

TEST(DeviceHeapPtx, ADoubleFreeIsATrap) {
  TestHeap h(4096);
  void* a = heap_malloc(h.base, 64);
  ASSERT_EQ(heap_free(h.base, a), HeapFree::Freed);
  auto e = free_in_kernel(h, reinterpret_cast<uint64_t>(a));  // the H200: double_free = 719
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, minicuda::gpu::KernelErrorKind::Trap);
  EXPECT_NE(e->error.message.find("double free"), std::string::npos) << e->error.message;
}

TEST(DeviceHeapPtx, WithoutAHeapMallocReturnsNull) {
  std::vector<uint64_t> ptrs(32, 1);
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(32);
  g.params = {address_of(ptrs), 16};
  auto e = g.run(program("heap_each"), 1);
  ASSERT_FALSE(e.has_value()) << e->error.message;
  for (uint64_t p : ptrs) EXPECT_EQ(p, 0u);
}

}  // namespace
