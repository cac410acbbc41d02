// Tests of device_sim's copy engine (copy_engine.cpp): copies, multi-line copies, memsets and
// remaps, semaphore releases, faults, all submitted through a channel as libcuda will.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "gpu_channel_builder.h"
#include "minicuda/device.h"
#include "minicuda/trace.h"
#include "nv_hw_classes.h"

namespace minicuda::gpu {
namespace {

using testing::at;
using testing::Pushbuffer;
using testing::TestChannel;

// A device with one channel whose subchannel 4 is bound to the copy class, two 2 MiB vidmem
// buffers (src, dst) and one page-aligned pinned host buffer mapped as sysmem.
class CopyEngineTest : public ::testing::Test {
 protected:
  CopyEngineTest() {
    EXPECT_TRUE(device.mmu().map_vidmem(src, 2 * kBigPage, kBigPage));
    EXPECT_TRUE(device.mmu().map_vidmem(dst, 3 * kBigPage, kBigPage));
    EXPECT_TRUE(device.mmu().map_vidmem(sem, 4 * kBigPage, kBigPage));
    host = static_cast<uint8_t*>(std::aligned_alloc(kSmallPage, kHostBytes));
    EXPECT_TRUE(device.mmu().map_sysmem(reinterpret_cast<uint64_t>(host), kHostBytes));
    channel.submit(Pushbuffer().set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A));
    device.host().run_pending();
  }
  ~CopyEngineTest() override {
    device.mmu().unmap(reinterpret_cast<uint64_t>(host), kHostBytes);
    std::free(host);
  }
  // Submits pb and runs it; returns the entries consumed.
  size_t run(const Pushbuffer& pb) {
    channel.submit(pb);
    return device.host().run_pending();
  }
  void fill(uint64_t va, uint64_t bytes, uint8_t seed) {
    for (uint64_t i = 0; i < bytes; ++i) at<uint8_t>(va)[i] = static_cast<uint8_t>(seed + i * 7);
  }

  static constexpr uint64_t kHostBytes = 16 * kSmallPage;
  Device device{Preset::Teaching};
  const uint64_t base = device.mmu().uva_base();
  TestChannel channel{device, 1, base, 0};
  const uint64_t src = base + kBigPage;
  const uint64_t dst = base + 2 * kBigPage;
  const uint64_t sem = base + 3 * kBigPage;
  uint8_t* host = nullptr;
};

TEST_F(CopyEngineTest, CopiesVidmemToVidmem) {
  fill(src, 262144, 1);
  const uint64_t before = device.now_ns();
  EXPECT_EQ(run(Pushbuffer().copy(src, dst, 262144)), 1u);
  EXPECT_EQ(std::memcmp(at<void>(src), at<void>(dst), 262144), 0);
  EXPECT_EQ(at<uint8_t>(dst)[262144], 0);  // not one byte more
  EXPECT_EQ(channel.gp_get(), channel.gp_put());
  // 100 ns to fetch the segment, then a device-to-device copy on ce2: 4700 ns to launch,
  // 262144 B at 2120 B/ns (docs/timing.md).
  EXPECT_EQ(device.now_ns() - before, 100u + 4700u + 124u);
  EXPECT_EQ(device.timeline().unit_time(TimelineUnit::Copy2), device.now_ns());
  EXPECT_EQ(device.timeline().unit_time(TimelineUnit::Copy0), 0u);
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(CopyEngineTest, CopiesBetweenSysmemAndVidmem) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  fill(pinned, 3 * kSmallPage + 5, 9);                           // across 4 KiB PTEs
  const uint64_t t0 = device.now_ns();
  run(Pushbuffer().copy(pinned, dst + 12, 3 * kSmallPage + 5));  // H2D, unaligned destination
  EXPECT_EQ(std::memcmp(host, at<void>(dst + 12), 3 * kSmallPage + 5), 0);
  // Host to device is ce0's: 2400 ns to launch, 12293 B at 55 B/ns (docs/timing.md).
  EXPECT_EQ(device.timeline().unit_time(TimelineUnit::Copy0), t0 + 100u + 2400u + 224u);
  EXPECT_EQ(device.timeline().unit_time(TimelineUnit::Copy1), 0u);

  std::memset(host, 0, kHostBytes);
  run(Pushbuffer().copy(dst + 12, pinned + 1, 3 * kSmallPage + 5));  // D2H
  EXPECT_EQ(std::memcmp(host + 1, at<void>(dst + 12), 3 * kSmallPage + 5), 0);
  // Device to host is ce1's, after the channel's earlier copy: 1300 ns to launch.
  EXPECT_EQ(device.timeline().unit_time(TimelineUnit::Copy1), t0 + 100u + 2400u + 224u + 100u + 1300u + 224u);
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(CopyEngineTest, MultiLineCopyUsesBothPitches) {
  fill(src, 4096, 3);
  std::memset(at<void>(dst), 0xEE, 4096);
  run(Pushbuffer()
          .inc(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_IN_UPPER,
               {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src),
                static_cast<uint32_t>(dst >> 32), static_cast<uint32_t>(dst),
                /*PITCH_IN=*/128, /*PITCH_OUT=*/256, /*LINE_LENGTH_IN=*/100, /*LINE_COUNT=*/4})
          .inc(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
               {nv_launch_dma_copy(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE, /*multi_line=*/true)}));
  for (int line = 0; line < 4; ++line) {
    EXPECT_EQ(std::memcmp(at<uint8_t>(dst) + line * 256, at<uint8_t>(src) + line * 128, 100), 0)
        << line;
    EXPECT_EQ(at<uint8_t>(dst)[line * 256 + 100], 0xEE) << "the gap between lines is left alone";
  }
  EXPECT_EQ(at<uint8_t>(dst)[4 * 256], 0xEE);
}

TEST_F(CopyEngineTest, WithoutMultiLineOnlyOneLineMoves) {
  fill(src, 1024, 5);
  run(Pushbuffer().inc(NV_SUBCHANNEL_COPY, NVC8B5_LINE_COUNT, {8}).copy(src, dst, 64));
  EXPECT_EQ(std::memcmp(at<void>(src), at<void>(dst), 64), 0);
  EXPECT_EQ(at<uint8_t>(dst)[64], 0);
}

TEST_F(CopyEngineTest, MemsetOneTwoAndFourByteComponents) {
  std::memset(at<void>(dst), 0xEE, 1024);
  run(Pushbuffer()
          .memset(dst, 0xAB, 1, 100)               // cudaMemsetD8: 100 bytes
          .memset(dst + 256, 0xBEEF, 2, 50)        // cudaMemsetD16: 50 halves
          .memset(dst + 512, 0xDEADBEEF, 4, 25));  // cudaMemsetD32: 25 words
  for (int i = 0; i < 100; ++i) ASSERT_EQ(at<uint8_t>(dst)[i], 0xAB) << i;
  EXPECT_EQ(at<uint8_t>(dst)[100], 0xEE);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(at<uint16_t>(dst + 256)[i], 0xBEEF) << i;
  EXPECT_EQ(at<uint8_t>(dst)[256 + 100], 0xEE);
  for (int i = 0; i < 25; ++i) ASSERT_EQ(at<uint32_t>(dst + 512)[i], 0xDEADBEEFu) << i;
  EXPECT_EQ(at<uint8_t>(dst)[512 + 100], 0xEE);
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(CopyEngineTest, LargeMemsetFillsEveryByte) {
  run(Pushbuffer().memset(dst, 0x01020304, 4, kBigPage / 4));
  for (uint64_t i = 0; i < kBigPage / 4; i += 4099)
    ASSERT_EQ(at<uint32_t>(dst)[i], 0x01020304u) << i;
  EXPECT_EQ(at<uint32_t>(dst)[kBigPage / 4 - 1], 0x01020304u);
}

TEST_F(CopyEngineTest, RemapSwapsComponentsAndSkipsNoWrite) {
  // Source elements of two 2-byte components (X, Y); destination elements (Y, X, untouched).
  for (uint32_t i = 0; i < 8; ++i) at<uint32_t>(src)[i] = ((i + 1) * 0x100u) << 16 | (i + 1);
  std::memset(at<void>(dst), 0xEE, 64);
  const uint32_t components =
      nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_DST_X, NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_Y) |
      nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_DST_Y, NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_X) |
      nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_DST_Z, NVC8B5_SET_REMAP_COMPONENTS_DST_NO_WRITE) |
      nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE,
                 NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE_TWO) |
      nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, 1) |
      nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, 2);
  run(Pushbuffer()
          .inc(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_COMPONENTS, {components})
          .inc(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_IN_UPPER,
               {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src),
                static_cast<uint32_t>(dst >> 32), static_cast<uint32_t>(dst)})
          .inc(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {8})
          .inc(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
               {nv_launch_dma_copy(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE, false, /*remap=*/true)}));
  ASSERT_TRUE(device.host().faults().empty());
  for (int i = 0; i < 8; ++i) {
    const uint16_t* element = at<uint16_t>(dst) + 3 * i;
    EXPECT_EQ(element[0], at<uint16_t>(src)[2 * i + 1]) << i;
    EXPECT_EQ(element[1], at<uint16_t>(src)[2 * i]) << i;
    EXPECT_EQ(element[2], 0xEEEE) << i;
  }
}

TEST_F(CopyEngineTest, CopyThenReleaseOneWordSemaphore) {
  *at<uint64_t>(sem) = ~0ull;
  run(Pushbuffer().copy_semaphore(sem, 7).copy(
      src, dst, 4096, NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE));
  EXPECT_EQ(*at<uint64_t>(sem), 0xFFFFFFFF'00000007ull);  // 4 bytes written
}

TEST_F(CopyEngineTest, FourWordSemaphoreCarriesTheTimeAfterTheCopy) {
  run(Pushbuffer().copy_semaphore(sem, 1).copy(
      src, dst, 50000, NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE));
  const uint64_t first = at<uint64_t>(sem)[1];
  EXPECT_EQ(at<uint64_t>(sem)[0], 1u);
  EXPECT_EQ(first, device.now_ns());

  run(Pushbuffer()
          .copy_semaphore(sem + 16, 2)
          .copy(src, dst, 50000, NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE));
  EXPECT_EQ(at<uint64_t>(sem + 16)[0], 2u);
  EXPECT_EQ(at<uint64_t>(sem + 16)[1] - first, 100u + 4700u + 24u);  // fetch, launch, 50000 B at 2120 B/ns
}

TEST_F(CopyEngineTest, ReleaseWithoutTransfer) {
  run(Pushbuffer().copy_semaphore(sem, 9).inc(
      NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
      {nv_drf_num(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE,
                  NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE)}));
  EXPECT_EQ(*at<uint32_t>(sem), 9u);
}

TEST_F(CopyEngineTest, CopyFromAnUnmappedAddressFaultsAndWritesNothing) {
  const uint64_t nowhere = base + 50 * kBigPage;
  std::memset(at<void>(dst), 0xEE, 4096);
  run(Pushbuffer()
          .copy_semaphore(sem, 1)
          .copy(nowhere, dst, 4096, NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE)
          .copy(src, dst, 16));  // never reached
  std::vector<ChannelFault> faults = device.host().faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].chid, channel.chid());
  EXPECT_EQ(faults[0].kind, FaultKind::MmuUnmapped);
  EXPECT_EQ(faults[0].engine, Engine::Copy);
  EXPECT_EQ(faults[0].access, Access::Read);
  EXPECT_EQ(faults[0].va, nowhere);
  EXPECT_EQ(faults[0].method, NVC8B5_LAUNCH_DMA);
  EXPECT_EQ(channel.status(), ChannelStatus::Faulted);
  EXPECT_EQ(at<uint8_t>(dst)[0], 0xEE);
  EXPECT_EQ(*at<uint32_t>(sem), 0u);  // the release after the copy did not happen
  EXPECT_NE(channel.gp_get(), channel.gp_put());
}

TEST_F(CopyEngineTest, CopyRunningOffTheEndOfAMappingFaultsAtTheFirstUnmappedPage) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  std::memset(host, 0xEE, kHostBytes);
  run(Pushbuffer().copy(src, pinned + kHostBytes - 100, 200));
  std::vector<ChannelFault> faults = device.host().faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::MmuUnmapped);
  EXPECT_EQ(faults[0].access, Access::Write);
  EXPECT_EQ(faults[0].va, pinned + kHostBytes);
  EXPECT_EQ(host[kHostBytes - 100], 0xEE);  // the mapped part was not written either
}

TEST_F(CopyEngineTest, CopyToAReadOnlyPageFaults) {
  const uint64_t read_only = base + 5 * kBigPage;
  ASSERT_TRUE(device.mmu().map_vidmem(read_only, 6 * kBigPage, kBigPage, /*writable=*/false));
  run(Pushbuffer().copy(src, read_only, 64));
  std::vector<ChannelFault> faults = device.host().faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::MmuReadOnly);
  EXPECT_EQ(faults[0].access, Access::Write);
  EXPECT_EQ(faults[0].va, read_only);
}

TEST_F(CopyEngineTest, BlockLinearIsNotModelled) {
  uint32_t launch = nv_launch_dma_copy() & ~nv_drf_num(NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT, 1);
  run(Pushbuffer().copy(src, dst, 64).inc(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA, {launch}));
  std::vector<ChannelFault> faults = device.host().faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::NotModelled);
  EXPECT_EQ(faults[0].engine, Engine::Copy);
}

TEST_F(CopyEngineTest, UnknownCopyMethodIsIllegal) {
  run(Pushbuffer().inc(NV_SUBCHANNEL_COPY, 0x1234 & ~3u, {1}));
  std::vector<ChannelFault> faults = device.host().faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::IllegalMethod);
  EXPECT_EQ(faults[0].method, 0x1234u & ~3u);
}

TEST_F(CopyEngineTest, TraceShowsTheCopy) {
  trace::Recorder recorder;
  run(Pushbuffer().copy(src, dst, 262144));
  std::vector<std::string> lines = recorder.texts(trace::Layer::Gpu);
  const std::string expected =
      fmt::format("ce2: copy 262144 B {:#x} -> {:#x}, t={} ns", src, dst, device.now_ns());
  EXPECT_NE(std::find(lines.begin(), lines.end(), expected), lines.end()) << recorder.tree();
}

}  // namespace
}  // namespace minicuda::gpu
