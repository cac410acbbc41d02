// Copies and memsets (driver/user/src/copy.cpp): cuMemcpy{HtoD,DtoH,DtoD}_v2, cuMemcpy, cuMemsetD*_v2.
// Exact codes and data: round trips of every size (one piece, the staging buffer's size, several
// pieces) and memory kind, bad ranges and pointers, memsets, ordering, zero syscalls, threads.
#include <sys/mman.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <tuple>
#include <vector>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

constexpr size_t kMiB = 1 << 20;

// n bytes, different for every seed and position.
std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 9));
  return v;
}
CUdeviceptr dev(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

class CopyTest : public Ready {
 protected:
  CUdeviceptr alloc(size_t n, uint8_t fill) {
    CUdeviceptr d = 0;
    EXPECT_EQ(cuMemAlloc_v2(&d, n), CUDA_SUCCESS);
    EXPECT_EQ(cuMemsetD8_v2(d, fill, n), CUDA_SUCCESS);
    return d;
  }
  std::vector<uint8_t> read(CUdeviceptr d, size_t n) {
    std::vector<uint8_t> out(n, 0xEE);
    EXPECT_EQ(cuMemcpyDtoH_v2(out.data(), d, n), CUDA_SUCCESS);
    return out;
  }
  void* pinned(size_t n) {
    void* p = nullptr;
    EXPECT_EQ(cuMemHostAlloc(&p, n, 0), CUDA_SUCCESS);
    return p;
  }
};

class RoundTrip : public CopyTest, public ::testing::WithParamInterface<std::tuple<size_t, bool>> {};

TEST_P(RoundTrip, DataSurvives) {
  auto [n, use_pinned] = GetParam();
  std::vector<uint8_t> src = pattern(n, 3);
  uint8_t *in = nullptr, *out = nullptr;
  std::vector<uint8_t> in_pageable, out_pageable(n, 0);
  if (use_pinned) {
    in = static_cast<uint8_t*>(pinned(n)), out = static_cast<uint8_t*>(pinned(n));
    ASSERT_TRUE(in != nullptr && out != nullptr);
    std::memcpy(in, src.data(), n);
    std::memset(out, 0, n);
  } else {
    in_pageable = src;
    in = in_pageable.data();
    out = out_pageable.data();
  }
  CUdeviceptr a = alloc(n, 0x11), b = alloc(n, 0x22);
  ASSERT_EQ(cuMemcpyHtoD_v2(a, in, n), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoD_v2(b, a, n), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(out, b, n), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(out, src.data(), n), 0);
  EXPECT_EQ(std::memcmp(in, src.data(), n), 0);  // the source is untouched
  // The unified form, the other way round: host -> b, b -> a, a -> host.
  std::vector<uint8_t> src2 = pattern(n, 99);
  std::memcpy(in, src2.data(), n);
  ASSERT_EQ(cuMemcpy(b, dev(in), n), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpy(a, b, n), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpy(dev(out), a, n), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(out, src2.data(), n), 0);
  EXPECT_EQ(cuMemFree_v2(a) | cuMemFree_v2(b), CUDA_SUCCESS);
  EXPECT_EQ(use_pinned ? cuMemFreeHost(in) | cuMemFreeHost(out) : 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RoundTrip,
                         ::testing::Combine(::testing::Values(size_t{1}, size_t{3}, size_t{4096}, 2 * kMiB,
                                                              2 * kMiB + 1, 5 * kMiB),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return "n" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_pinned" : "_pageable");
                         });

TEST_F(CopyTest, InteriorPointers) {
  CUdeviceptr a = alloc(4096, 0), b = alloc(4096, 0);
  std::vector<uint8_t> src = pattern(200, 5);
  ASSERT_EQ(cuMemcpyHtoD_v2(a + 100, src.data(), 200), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoD_v2(b + 3001, a + 150, 150), CUDA_SUCCESS);  // ends at a+300
  std::vector<uint8_t> ga = read(a, 4096), gb = read(b, 4096);
  for (size_t i = 0; i < 4096; ++i) {
    ASSERT_EQ(ga[i], i >= 100 && i < 300 ? src[i - 100] : 0) << "a+" << i;
    ASSERT_EQ(gb[i], i >= 3001 && i < 3151 ? src[i - 3001 + 50] : 0) << "b+" << i;
  }
  std::vector<uint8_t> part = read(a + 295, 10);  // straddles the data's end
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(part[i], i < 5 ? src[195 + i] : 0);
  // The last byte of an allocation is inside it.
  const uint8_t last = 0x5A;
  EXPECT_EQ(cuMemcpyHtoD_v2(a + 4095, &last, 1), CUDA_SUCCESS);
  EXPECT_EQ(read(a + 4095, 1)[0], 0x5A);
}

TEST_F(CopyTest, OneBytePastTheEndIsRefusedAndWritesNothing) {
  CUdeviceptr a = alloc(4096, 0x33), b = alloc(4096, 0x44);
  std::vector<uint8_t> src = pattern(4097, 1), dst(4097, 0xEE);
  EXPECT_EQ(cuMemcpyHtoD_v2(a, src.data(), 4097), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoD_v2(a + 1, src.data(), 4096), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoH_v2(dst.data(), a + 4000, 97), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoD_v2(b, a, 4097), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoD_v2(b + 4095, a, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy(a + 2048, dev(src.data()), 2049), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy(b, a + 1, 4096), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(read(a, 4096), std::vector<uint8_t>(4096, 0x33));
  EXPECT_EQ(read(b, 4096), std::vector<uint8_t>(4096, 0x44));
  EXPECT_EQ(dst, std::vector<uint8_t>(4097, 0xEE));
}

TEST_F(CopyTest, NullUnknownAndFreedDevicePointers) {
  CUdeviceptr a = alloc(4096, 0x55), freed = alloc(4096, 0x66);
  ASSERT_EQ(cuMemFree_v2(freed), CUDA_SUCCESS);
  std::vector<uint8_t> h(16, 0xEE);
  for (CUdeviceptr bad : {CUdeviceptr{0}, CUdeviceptr{0x1000}, freed, freed + 64}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(cuMemcpyHtoD_v2(bad, h.data(), 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyDtoH_v2(h.data(), bad, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyDtoD_v2(bad, a, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyDtoD_v2(a, bad, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpy(bad, a, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpy(a, bad, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpy(dev(h.data()), bad, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemsetD8_v2(bad, 1, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemsetD32_v2(bad, 1, 4), CUDA_ERROR_INVALID_VALUE);
  }
  EXPECT_EQ(h, std::vector<uint8_t>(16, 0xEE));
  EXPECT_EQ(read(a, 4096), std::vector<uint8_t>(4096, 0x55));
}

TEST_F(CopyTest, BadHostPointersFailWithoutCrashing) {
  CUdeviceptr a = alloc(4096, 0x77);
  // A page with no access, kept mapped while it is used: an unmapped one could be taken by another
  // thread's mmap (the engines', the sanitizer's) between the munmap and the copies.
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  for (void* bad : {reinterpret_cast<void*>(0x1000), page}) {
    EXPECT_EQ(cuMemcpyHtoD_v2(a, bad, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyDtoH_v2(bad, a, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpy(a, dev(bad), 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpy(dev(bad), a, 16), CUDA_ERROR_INVALID_VALUE);
  }
  ASSERT_EQ(munmap(page, 4096), 0);
  void* ro = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);  // readable only
  EXPECT_EQ(ro == MAP_FAILED ? CUDA_ERROR_UNKNOWN : cuMemcpyDtoH_v2(ro, a, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoD_v2(a, ro, 16), CUDA_SUCCESS);  // reading it is fine: zeros
  EXPECT_EQ(read(a, 16), std::vector<uint8_t>(16, 0));
  EXPECT_EQ(cuMemsetD8_v2(a, 0x77, 16), CUDA_SUCCESS);
  ASSERT_EQ(munmap(ro, 4096), 0);
  EXPECT_EQ(cuMemcpyHtoD_v2(a, nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoH_v2(nullptr, a, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(read(a, 4096), std::vector<uint8_t>(4096, 0x77));
  std::vector<uint8_t> src = pattern(4096, 9);  // the context still works
  EXPECT_EQ(cuMemcpyHtoD_v2(a, src.data(), 4096), CUDA_SUCCESS);
  EXPECT_EQ(read(a, 4096), src);
}

TEST_F(CopyTest, ZeroBytesSucceedsWhateverThePointers) {
  CUdeviceptr a = alloc(4096, 0);
  EXPECT_EQ(cuMemcpyHtoD_v2(a, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoH_v2(nullptr, a, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoD_v2(a, a, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpy(0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD8_v2(a, 1, 0) | cuMemsetD16_v2(a, 1, 0) | cuMemsetD32_v2(a, 1, 0), CUDA_SUCCESS);
  EXPECT_EQ(read(a, 16), std::vector<uint8_t>(16, 0));
}

using CopyNoContextTest = FreshProcess;

TEST_F(CopyNoContextTest, NoContextIsInvalidContext) {
  uint8_t h[4] = {};
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(0x1000, h, 4), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpyDtoH_v2(h, 0x1000, 4), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpyDtoD_v2(0x1000, 0x2000, 4), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpy(dev(h), dev(h + 2), 2), CUDA_ERROR_INVALID_CONTEXT);
  for (CUresult r : {cuMemsetD8_v2(0x1000, 0, 4), cuMemsetD16_v2(0x1000, 0, 4), cuMemsetD32_v2(0x1000, 0, 4)}) {
    EXPECT_EQ(r, CUDA_ERROR_INVALID_CONTEXT);
  }
  EXPECT_EQ(cuMemcpyHtoD_v2(0x1000, h, 0), CUDA_ERROR_INVALID_CONTEXT);  // even for 0 bytes
}

// cuMemcpy between every pair of pageable, pinned and device memory.
TEST_F(CopyTest, UnifiedCopyEveryCombination) {
  constexpr size_t n = 3 * kMiB + 5;  // more than the staging buffer
  std::vector<uint8_t> pageable(n);
  void* pin = pinned(n);
  ASSERT_NE(pin, nullptr);
  CUdeviceptr d = alloc(n, 0);
  const CUdeviceptr where[3] = {dev(pageable.data()), dev(pin), d};
  const char* names[3] = {"pageable", "pinned", "device"};
  std::vector<uint8_t> got(n);
  uint8_t seed = 0;
  for (int from = 0; from < 3; ++from) {
    for (int to = 0; to < 3; ++to) {
      if (from == to) continue;
      SCOPED_TRACE(std::string(names[from]) + " -> " + names[to]);
      std::vector<uint8_t> src = pattern(n, ++seed);
      ASSERT_EQ(cuMemcpy(where[from], dev(src.data()), n), CUDA_SUCCESS);
      ASSERT_EQ(cuMemcpy(where[to], where[from], n), CUDA_SUCCESS);
      ASSERT_EQ(cuMemcpy(dev(got.data()), where[to], n), CUDA_SUCCESS);
      EXPECT_EQ(got, src);
    }
  }
  // Host to host between two pageable buffers, and within one allocation.
  std::vector<uint8_t> src = pattern(n, 77), dst(n, 0);
  EXPECT_EQ(cuMemcpy(dev(dst.data()), dev(src.data()), n), CUDA_SUCCESS);
  EXPECT_EQ(dst, src);
  std::vector<uint8_t> small = pattern(64, 1);
  EXPECT_EQ(cuMemcpy(d + 100, d, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpy(d, dev(small.data()), 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpy(d + 1000, d, 64), CUDA_SUCCESS);
  EXPECT_EQ(read(d + 1000, 64), small);
  EXPECT_EQ(cuMemFreeHost(pin), CUDA_SUCCESS);
}

TEST_F(CopyTest, MemsetValuesAndCounts) {
  CUdeviceptr d = alloc(4096, 0);
  ASSERT_EQ(cuMemsetD8_v2(d + 1, 0xAB, 5), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD16_v2(d + 8, 0xBEEF, 3), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(d + 16, 0xDEADBEEF, 2), CUDA_SUCCESS);
  std::vector<uint8_t> expect(4096, 0);
  for (int i = 1; i <= 5; ++i) expect[i] = 0xAB;
  for (int i = 0; i < 3; ++i) expect[8 + 2 * i] = 0xEF, expect[9 + 2 * i] = 0xBE;
  for (int i = 0; i < 8; ++i) expect[16 + i] = (0xDEADBEEFu >> (8 * (i % 4))) & 0xFF;
  EXPECT_EQ(read(d, 4096), expect);
  // Whole allocations, large ones too (several chunks, a dedicated allocation).
  constexpr size_t n = 5 * kMiB;
  CUdeviceptr big = alloc(n, 0);
  ASSERT_EQ(cuMemsetD32_v2(big, 0x01020304, n / 4), CUDA_SUCCESS);
  std::vector<uint8_t> got = read(big, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 4 - i % 4) << i;
  ASSERT_EQ(cuMemsetD16_v2(big + 2, 0x0A0B, n / 2 - 1), CUDA_SUCCESS);
  got = read(big, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i < 2 ? 4 - i : (i % 2 == 0 ? 0x0B : 0x0A)) << i;
  ASSERT_EQ(cuMemsetD8_v2(big, 0xFF, n), CUDA_SUCCESS);
  EXPECT_EQ(read(big, n), std::vector<uint8_t>(n, 0xFF));
  // The value is truncated to the element size by the API's types; the high bytes do not leak.
  ASSERT_EQ(cuMemsetD8_v2(d, 0x00, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD16_v2(d, 0x1234, 1), CUDA_SUCCESS);
  EXPECT_EQ(read(d, 4), (std::vector<uint8_t>{0x34, 0x12, 0, 0}));
}

TEST_F(CopyTest, MemsetOfPinnedMemory) {
  auto* p = static_cast<uint8_t*>(pinned(8192));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0, 8192);
  ASSERT_EQ(cuMemsetD32_v2(dev(p) + 4, 0xCAFEF00D, 3), CUDA_SUCCESS);  // the host waits: visible now
  std::vector<uint32_t> words(5);
  std::memcpy(words.data(), p, 20);
  EXPECT_EQ(words, (std::vector<uint32_t>{0, 0xCAFEF00D, 0xCAFEF00D, 0xCAFEF00D, 0}));
  EXPECT_EQ(cuMemsetD8_v2(dev(p) + 8190, 1, 3), CUDA_ERROR_INVALID_VALUE);  // past the end
  EXPECT_EQ(cuMemFreeHost(p), CUDA_SUCCESS);
}

TEST_F(CopyTest, MemsetRefusals) {
  CUdeviceptr d = alloc(4096, 0x5C);
  EXPECT_EQ(cuMemsetD16_v2(d + 1, 1, 4), CUDA_ERROR_INVALID_VALUE);  // misaligned
  EXPECT_EQ(cuMemsetD32_v2(d + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD32_v2(d + 1, 1, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD8_v2(d, 1, 4097), CUDA_ERROR_INVALID_VALUE);  // past the end
  EXPECT_EQ(cuMemsetD8_v2(d + 4095, 1, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD16_v2(d, 1, 2049), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD32_v2(d + 4, 1, 1024), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD32_v2(d, 1, SIZE_MAX / 2), CUDA_ERROR_INVALID_VALUE);  // N * 4 overflows
  std::vector<uint8_t> pageable(64, 0xEE);
  EXPECT_EQ(cuMemsetD8_v2(dev(pageable.data()), 1, 64), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD32_v2(dev(pageable.data()), 1, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(pageable, std::vector<uint8_t>(64, 0xEE));
  EXPECT_EQ(read(d, 4096), std::vector<uint8_t>(4096, 0x5C));
  EXPECT_EQ(cuMemsetD8_v2(d + 4095, 1, 1), CUDA_SUCCESS);  // the last byte is fine
  EXPECT_EQ(cuMemsetD32_v2(d + 4088, 0x02020202, 1), CUDA_SUCCESS);
  EXPECT_EQ(read(d + 4086, 10), (std::vector<uint8_t>{0x5C, 0x5C, 2, 2, 2, 2, 0x5C, 0x5C, 0x5C, 1}));
}

// A process that exits with device work queued: the exit frees its RM client, which stops the
// channel (waiting out the memset in flight) before it unmaps the memory the memset writes.
TEST(CopyExit, ExitWithQueuedMemset) {
  size_t first_free = 0;
  for (int round = 0; round < 12; ++round) {
    auto process = kernel::spawn_process();
    kernel::ProcessScope scope(*process);
    CUcontext ctx = nullptr;
    CUdeviceptr d = 0;
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(cuInit(0) | cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    ASSERT_EQ(cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
    if (round == 0) first_free = free_bytes;
    EXPECT_EQ(free_bytes, first_free) << "round " << round << ": the last exit leaked device memory";
    ASSERT_EQ(cuMemAlloc_v2(&d, 64 * kMiB), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8_v2(d, 1, 64 * kMiB), CUDA_SUCCESS);  // does not wait
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 4));  // let the GPU start on it
  }
}

// A device-to-device copy does not make the host wait, but freeing its source does.
TEST_F(CopyTest, FreeRightAfterDtoDWaitsForIt) {
  constexpr size_t n = 4 * kMiB;  // dedicated chunks: freeing unmaps them
  for (int round = 0; round < 5; ++round) {
    CUdeviceptr a = alloc(n, static_cast<uint8_t>(0x40 + round)), b = 0;
    ASSERT_EQ(cuMemAlloc_v2(&b, n), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoD_v2(b, a, n), CUDA_SUCCESS);
    ASSERT_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
    EXPECT_EQ(read(b, n), std::vector<uint8_t>(n, static_cast<uint8_t>(0x40 + round)));
    ASSERT_EQ(cuMemFree_v2(b), CUDA_SUCCESS);
  }
}

TEST_F(CopyTest, MemsetThenDtoDThenDtoHSeesTheMemset) {
  for (int round = 0; round < 20; ++round) {
    size_t n = round % 2 ? 3 * kMiB : 4096;
    CUdeviceptr a = 0, b = 0;
    ASSERT_EQ(cuMemAlloc_v2(&a, n) | cuMemAlloc_v2(&b, n), CUDA_SUCCESS);
    uint8_t v = static_cast<uint8_t>(round * 13 + 1);
    ASSERT_EQ(cuMemsetD8_v2(a, v, n), CUDA_SUCCESS);  // neither of these two waits
    ASSERT_EQ(cuMemcpyDtoD_v2(b, a, n), CUDA_SUCCESS);
    EXPECT_EQ(read(b, n), std::vector<uint8_t>(n, v)) << "round " << round;
    ASSERT_EQ(cuMemFree_v2(a) | cuMemFree_v2(b), CUDA_SUCCESS);
  }
}

TEST_F(CopyTest, CopiesAndMemsetsMakeNoSystemCalls) {
  constexpr size_t n = 5 * kMiB;
  CUdeviceptr a = alloc(n, 0), b = alloc(n, 0);
  void* pin = pinned(n);
  ASSERT_NE(pin, nullptr);
  std::vector<uint8_t> src = pattern(n, 4), dst(n), bad(16);
  trace::Recorder recorder;
  EXPECT_EQ(cuMemsetD8_v2(a, 1, n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD16_v2(a, 2, n / 2), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD32_v2(dev(pin), 3, n / 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(a, src.data(), n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(b, pin, n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoD_v2(b, a, n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoH_v2(dst.data(), b, n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoH_v2(pin, a, n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpy(dev(dst.data()), dev(pin), n), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoD_v2(a + n - 8, bad.data(), 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoD_v2(a, reinterpret_cast<void*>(0x1000), 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(syscalls(recorder), 0u) << recorder.tree().substr(0, 4000);
  EXPECT_EQ(dst, src);
  EXPECT_EQ(cuMemFreeHost(pin), CUDA_SUCCESS);
}

// Far more work than the 1 MiB pushbuffer and the 1024-entry GPFIFO hold: both wrap, several
// times, with every kind of method sequence ending at every offset; still no system call.
TEST_F(CopyTest, PushbufferAndRingWrapAround) {
  CUdeviceptr a = alloc(4096, 0), b = alloc(4096, 0);
  trace::Recorder recorder;
  uint32_t seen = 0;
  for (uint32_t i = 0; i < 20000; ++i) {
    ASSERT_EQ(cuMemsetD32_v2(a, i, 1 + i % 7), CUDA_SUCCESS) << i;
    ASSERT_EQ(cuMemcpyDtoD_v2(b, a, 4), CUDA_SUCCESS) << i;
    if (i % 1000 == 999) {
      ASSERT_EQ(cuMemcpyDtoH_v2(&seen, b, 4), CUDA_SUCCESS) << i;
      ASSERT_EQ(seen, i);
    }
  }
  EXPECT_EQ(syscalls(recorder), 0u);
  EXPECT_EQ(cuMemcpyDtoH_v2(&seen, b, 4), CUDA_SUCCESS);
  EXPECT_EQ(seen, 19999u);
}

TEST_F(CopyTest, TwoThreadsCopyOnOneContext) {
  constexpr size_t n = 3 * kMiB + 17;
  constexpr int kRounds = 6;
  CUresult failures[2] = {CUDA_SUCCESS, CUDA_SUCCESS};
  int mismatches[2] = {0, 0};
  auto worker = [&](int t) {
    kernel::ProcessScope same_process(*process_);
    if ((failures[t] = cuCtxSetCurrent(primary_)) != CUDA_SUCCESS) return;
    CUdeviceptr a = 0, b = 0;
    if ((failures[t] = cuMemAlloc_v2(&a, n)) != CUDA_SUCCESS) return;
    if ((failures[t] = cuMemAlloc_v2(&b, n)) != CUDA_SUCCESS) return;
    for (int r = 0; r < kRounds; ++r) {
      std::vector<uint8_t> src = pattern(n, static_cast<uint8_t>(t * 100 + r)), dst(n, 0);
      CUresult rs[3] = {cuMemcpyHtoD_v2(a, src.data(), n), cuMemcpyDtoD_v2(b, a, n), cuMemcpyDtoH_v2(dst.data(), b, n)};
      for (CUresult x : rs) {
        if (x != CUDA_SUCCESS) failures[t] = x;
      }
      if (dst != src) ++mismatches[t];
    }
    cuMemFree_v2(a);
    cuMemFree_v2(b);
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(failures[0] | failures[1], CUDA_SUCCESS);
  EXPECT_EQ(mismatches[0] + mismatches[1], 0);
}

}  // namespace
}  // namespace minicuda::testing
