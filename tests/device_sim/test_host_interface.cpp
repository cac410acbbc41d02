// Tests of device_sim's host interface, PBDMA and semaphores (host_interface.cpp, pbdma.cpp,
// gpu_semaphore.cpp): channels built by hand, fed through GPFIFO entries, USERD's GPPut and
// the doorbell, as libcuda will feed them.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu_channel_builder.h"
#include "minicuda/device.h"
#include "minicuda/trace.h"
#include "nv_hw_classes.h"

namespace minicuda::gpu {
namespace {

using testing::at;
using testing::Pushbuffer;
using testing::TestChannel;

class HostInterfaceTest : public ::testing::Test {
 protected:
  HostInterfaceTest() { EXPECT_TRUE(device.mmu().map_vidmem(data, 4 * kBigPage, kBigPage)); }
  Device device{Preset::Teaching};
  const uint64_t base = device.mmu().uva_base();
  const uint64_t data = base + 4 * kBigPage;  // semaphores and buffers
  TestChannel a{device, 3, base, 0};
  TestChannel b{device, 4, base + kBigPage, kBigPage};
};

TEST_F(HostInterfaceTest, NothingRunsUntilTheDoorbellRings) {
  a.write(Pushbuffer().release32(data, 7));
  a.publish();
  EXPECT_EQ(device.host().run_pending(), 0u);  // GPPut moved, but the GPU was not told
  EXPECT_EQ(*at<uint32_t>(data), 0u);
  EXPECT_EQ(a.status(), ChannelStatus::Idle);

  a.ring();
  EXPECT_EQ(a.status(), ChannelStatus::Pending);
  EXPECT_EQ(device.host().run_pending(), 2u);  // the extended-base entry and the segment
  EXPECT_EQ(*at<uint32_t>(data), 7u);
  EXPECT_EQ(a.gp_get(), 2u);
  EXPECT_EQ(a.gp_get(), a.gp_put());
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(HostInterfaceTest, UnknownDoorbellTokenIsIgnored) {
  device.host().doorbell(0xdead);
  EXPECT_EQ(device.host().run_pending(), 0u);
  EXPECT_EQ(device.host().channel_status(99), std::nullopt);
}

TEST_F(HostInterfaceTest, ReleaseWritesThirtyTwoOrSixtyFourBits) {
  *at<uint64_t>(data) = ~0ull;
  *at<uint64_t>(data + 8) = ~0ull;
  a.submit(Pushbuffer().release32(data, 0x11223344).release64(data + 8, 0x0102030405060708ull));
  device.host().run_pending();
  EXPECT_EQ(*at<uint64_t>(data), 0xFFFFFFFF'11223344ull);  // only the low word written
  EXPECT_EQ(*at<uint64_t>(data + 8), 0x0102030405060708ull);
}

TEST_F(HostInterfaceTest, ReleaseWithTimestampWritesTheGpuTimeAtPlusEight) {
  a.submit(Pushbuffer().release64(data, 1, /*timestamp=*/true));
  device.host().run_pending();
  uint64_t first = at<uint64_t>(data)[1];
  EXPECT_EQ(at<uint64_t>(data)[0], 1u);
  EXPECT_GT(first, 0u);
  EXPECT_EQ(first, device.now_ns());

  a.submit(Pushbuffer().release64(data + 16, 2, /*timestamp=*/true));
  device.host().run_pending();
  EXPECT_EQ(at<uint64_t>(data + 16)[0], 2u);
  EXPECT_GT(at<uint64_t>(data + 16)[1], first);  // a later entry, a later time
}

TEST_F(HostInterfaceTest, AcquireWaitsUntilAnotherChannelReleases) {
  const uint64_t flag = data, done = data + 8;
  a.submit(Pushbuffer()
               .acquire(flag, 5, NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ)
               .release32(done, 1));
  EXPECT_EQ(device.host().run_pending(), 1u);  // the extended-base entry only
  EXPECT_EQ(a.status(), ChannelStatus::Waiting);
  EXPECT_EQ(*at<uint32_t>(done), 0u);
  EXPECT_EQ(a.gp_get(), 1u);  // stopped inside the second entry

  EXPECT_EQ(device.host().run_pending(), 0u);  // still nothing to satisfy it
  EXPECT_EQ(a.status(), ChannelStatus::Waiting);

  b.submit(Pushbuffer().release32(flag, 4));  // not enough
  device.host().run_pending();
  EXPECT_EQ(a.status(), ChannelStatus::Waiting);

  b.submit(Pushbuffer().release32(flag, 5));
  device.host().run_pending();  // b releases, then a goes on in the same call
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(*at<uint32_t>(done), 1u);
  EXPECT_EQ(a.gp_get(), 2u);
}

TEST_F(HostInterfaceTest, AcquireOperations) {
  struct Case {
    uint32_t operation;
    uint32_t value, payload;
    bool satisfied;
  };
  const Case cases[] = {
      {NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE, 5, 5, true},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE, 6, 5, false},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ, 6, 5, true},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ, 0x10, 0xFFFFFFF0, false},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ, 0x10, 0xFFFFFFF0, true},  // wrapped past it
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ, 4, 5, false},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_AND, 0b0110, 0b0100, true},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_AND, 0b0110, 0b1001, false},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_NOR, 0xFFFF0000, 0x0000FFFF, false},
      {NVC56F_SEM_EXECUTE_OPERATION_ACQ_NOR, 0xFFFF0000, 0x0000FFF0, true},
  };
  uint32_t chid = 10;
  for (const Case& c : cases) {
    TestChannel channel(device, chid, base + (chid - 4) * kBigPage, (chid - 4) * kBigPage);
    *at<uint32_t>(data) = c.value;
    channel.submit(Pushbuffer().acquire(data, c.payload, c.operation));
    device.host().run_pending();
    EXPECT_EQ(channel.status(), c.satisfied ? ChannelStatus::Idle : ChannelStatus::Waiting)
        << "operation " << c.operation << " value " << c.value << " payload " << c.payload;
    device.host().remove_channel(chid);
    device.mmu().unmap(base + (chid - 4) * kBigPage, kBigPage);
  }
}

TEST_F(HostInterfaceTest, SixtyFourBitAcquire) {
  *at<uint64_t>(data) = 0x1'00000000ull;
  a.submit(Pushbuffer().acquire(data, 0xFFFFFFFF, NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ,
                                NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT));
  device.host().run_pending();
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
}

TEST_F(HostInterfaceTest, ReductionAddsAtomically) {
  const uint32_t iadd =
      nv_drf_num(NVC56F_SEM_EXECUTE_OPERATION, NVC56F_SEM_EXECUTE_OPERATION_REDUCTION) |
      nv_drf_num(NVC56F_SEM_EXECUTE_REDUCTION, NVC56F_SEM_EXECUTE_REDUCTION_IADD);
  const uint32_t inc =
      nv_drf_num(NVC56F_SEM_EXECUTE_OPERATION, NVC56F_SEM_EXECUTE_OPERATION_REDUCTION) |
      nv_drf_num(NVC56F_SEM_EXECUTE_REDUCTION, NVC56F_SEM_EXECUTE_REDUCTION_INC);
  *at<uint32_t>(data) = 10;
  *at<uint32_t>(data + 4) = 2;
  a.submit(
      Pushbuffer().semaphore(data, 3, iadd).semaphore(data, 3, iadd).semaphore(data + 4, 2, inc));
  device.host().run_pending();
  EXPECT_EQ(*at<uint32_t>(data), 16u);
  EXPECT_EQ(*at<uint32_t>(data + 4), 0u);  // INC wraps to 0 once the value reaches the payload
}

TEST_F(HostInterfaceTest, NonIncOneIncAndImmediateMethods) {
  // NON_INC: three data dwords, all to NON_STALL_INTERRUPT.
  // ONE_INC: the first to SEM_PAYLOAD_LO, the others to SEM_PAYLOAD_HI (the last one stays).
  // IMMD: 13 bits of data inside the header.
  a.submit(Pushbuffer()
               .non_inc(NV_SUBCHANNEL_HOST, NVC56F_NON_STALL_INTERRUPT, {0, 0, 0})
               .inc(NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
                    {static_cast<uint32_t>(data), static_cast<uint32_t>(data >> 32)})
               .one_inc(NV_SUBCHANNEL_HOST, NVC56F_SEM_PAYLOAD_LO, {0xAAAA, 0x1111, 0x2222})
               .inc(NV_SUBCHANNEL_HOST, NVC56F_SEM_EXECUTE,
                    {nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE,
                                    NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT)})
               .immd(NV_SUBCHANNEL_HOST, NVC56F_SEM_PAYLOAD_LO, 0x123)
               .inc(NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO, {static_cast<uint32_t>(data + 8)})
               .inc(NV_SUBCHANNEL_HOST, NVC56F_SEM_EXECUTE,
                    {nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE,
                                    NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT)})
               .immd(NV_SUBCHANNEL_HOST, NVC56F_NON_STALL_INTERRUPT, 0));
  device.host().run_pending();
  EXPECT_TRUE(device.host().faults().empty());
  EXPECT_EQ(device.host().nonstall_interrupts(), 4u);
  EXPECT_EQ(*at<uint64_t>(data), 0x00002222'0000AAAAull);
  EXPECT_EQ(*at<uint32_t>(data + 8), 0x123u);
}

TEST_F(HostInterfaceTest, MethodDataMayContinueInTheNextSegment) {
  // One INC header of 5 (SEM_ADDR_LO..SEM_EXECUTE) whose last three dwords are in the next
  // GPFIFO entry: the PBDMA keeps the header's state across segments.
  std::vector<uint32_t> all = Pushbuffer().release32(data, 42).dwords;
  Pushbuffer first, second;
  first.dwords.assign(all.begin(), all.begin() + 3);
  second.dwords.assign(all.begin() + 3, all.end());
  a.write(first);
  a.write(second);
  a.publish();
  a.ring();
  EXPECT_EQ(device.host().run_pending(), 3u);
  EXPECT_EQ(*at<uint32_t>(data), 42u);
}

TEST_F(HostInterfaceTest, SetReferenceIsVisibleInUserd) {
  a.submit(Pushbuffer().inc(NV_SUBCHANNEL_HOST, NVC56F_SET_REFERENCE, {77}));
  device.host().run_pending();
  EXPECT_EQ(*at<uint32_t>(a.userd() + NVC56F_USERD_REFERENCE), 77u);
}

TEST_F(HostInterfaceTest, RingWrapsAround) {
  TestChannel small(device, 9, base + 5 * kBigPage, 5 * kBigPage, /*entries=*/4);
  // 1 extended-base entry + 9 segments = 10 entries through a ring of 4, one or two at a time.
  for (uint32_t i = 1; i <= 9; ++i) {
    small.write(Pushbuffer().release32(data, i));
    if (i % 2 == 0) continue;  // publish two at once every other time
    small.publish();
    small.ring();
    device.host().run_pending();
    EXPECT_EQ(*at<uint32_t>(data), i);
    EXPECT_EQ(small.gp_get(), small.gp_put());
  }
  EXPECT_EQ(small.gp_get(), 10u % 4);
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(HostInterfaceTest, SetObjectBindsAClassToASubchannel) {
  // A copy method before any SET_OBJECT: no engine takes it.
  a.submit(Pushbuffer().inc(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {16}));
  device.host().run_pending();
  ASSERT_EQ(device.host().faults().size(), 1u);
  EXPECT_EQ(device.host().faults()[0].kind, FaultKind::IllegalMethod);
  EXPECT_EQ(device.host().faults()[0].method, NVC8B5_LINE_LENGTH_IN);
  EXPECT_EQ(a.status(), ChannelStatus::Faulted);

  // Bound on any subchannel, the copy class takes its methods there.
  std::memset(at<void>(data), 0x5A, 64);
  b.submit(Pushbuffer()
               .set_object(2, HOPPER_DMA_COPY_A)
               .set_object(1, HOPPER_COMPUTE_A)
               .inc(2, NVC8B5_OFFSET_IN_UPPER,
                    {static_cast<uint32_t>(data >> 32), static_cast<uint32_t>(data),
                     static_cast<uint32_t>((data + 64) >> 32), static_cast<uint32_t>(data + 64)})
               .inc(2, NVC8B5_LINE_LENGTH_IN, {64})
               .inc(2, NVC8B5_LAUNCH_DMA, {nv_launch_dma_copy()}));
  device.host().run_pending();
  EXPECT_EQ(b.status(), ChannelStatus::Idle);
  EXPECT_EQ(at<uint8_t>(data)[64 + 63], 0x5A);
  EXPECT_EQ(device.host().faults().size(), 1u);
}

// A LAUNCH_DMA that moves data runs on the copy engine's thread; the channel is Busy meanwhile
// and goes on after it. poll() does not wait for it, run_pending() does.
TEST_F(HostInterfaceTest, ACopyRunsOnItsEnginesThreadAndTheChannelGoesOnAfterIt) {
  constexpr uint32_t kBytes = 8 << 20;
  ASSERT_TRUE(device.mmu().map_vidmem(data + kBigPage, 6 * kBigPage, 8 * kBigPage));
  std::memset(at<void>(data + kBigPage), 0x3C, kBytes / 2);
  a.submit(Pushbuffer()
               .set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A)
               .copy(data + kBigPage, data + kBigPage + kBytes / 2, kBytes / 2)
               .release32(data, 9));
  device.host().poll();
  const ChannelStatus status = a.status();
  EXPECT_TRUE(status == ChannelStatus::Busy || status == ChannelStatus::Pending || status == ChannelStatus::Idle)
      << static_cast<int>(status);
  device.host().run_pending();
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(*at<uint32_t>(data), 9u);  // the release after the copy
  EXPECT_EQ(at<uint8_t>(data + kBigPage + kBytes / 2)[kBytes / 2 - 1], 0x3C);
  EXPECT_GE(device.host().engine_completions(), 1u);
}

// An engine's fault on its thread stops the channel and reaches the fault handler, as a fault
// found by the PBDMA does.
TEST_F(HostInterfaceTest, AFaultOnAnEnginesThreadStopsTheChannel) {
  std::vector<ChannelFault> heard;
  device.host().set_fault_handler([&](const ChannelFault& f) { heard.push_back(f); });
  const uint64_t unmapped = base + 64 * kBigPage;
  a.submit(Pushbuffer()
               .set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A)
               .copy(data, unmapped, 4096)
               .release32(data, 5));
  device.host().run_pending();
  EXPECT_EQ(a.status(), ChannelStatus::Faulted);
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].kind, FaultKind::MmuUnmapped);
  EXPECT_EQ(heard[0].va, unmapped);
  EXPECT_EQ(*at<uint32_t>(data), 0u);  // nothing after the faulting method ran
  device.host().set_fault_handler({});
}

// A channel removed while its engine work runs: the work finishes and resumes nothing, and a new
// channel with the same chid is not mistaken for it.
TEST_F(HostInterfaceTest, EngineWorkOfARemovedChannelResumesNothing) {
  ASSERT_TRUE(device.mmu().map_vidmem(data + kBigPage, 6 * kBigPage, 8 * kBigPage));
  const uint64_t before = device.host().engine_completions();
  a.submit(Pushbuffer()
               .set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A)
               .copy(data + kBigPage, data + 5 * kBigPage, 4 * kBigPage)
               .release32(data, 1));
  device.host().poll();
  device.host().remove_channel(a.chid());
  device.host().add_channel(ChannelConfig{a.chid(), 0x999, base + 2 * kBigPage, 16, base + 2 * kBigPage + TestChannel::kUserd});
  for (int i = 0; i < 5000 && device.host().engine_completions() == before; ++i)
    device.host().wait_for_engine(before, std::chrono::microseconds(1000));
  EXPECT_EQ(device.host().engine_completions(), before + 1);
  device.host().run_pending();
  EXPECT_EQ(a.status(), ChannelStatus::Idle);  // the new channel, untouched by the old one's work
  EXPECT_EQ(*at<uint32_t>(data), 0u);          // the removed channel never went on to its release
}

// MINICUDA_ENGINE_THREADS=0: every method runs on the PBDMA's thread as it is fetched, so the
// work is done when poll() returns.
TEST(HostInterfaceThreadsOff, EveryMethodRunsAsItIsFetched) {
  setenv("MINICUDA_ENGINE_THREADS", "0", 1);
  Device device{Preset::Teaching};
  unsetenv("MINICUDA_ENGINE_THREADS");
  const uint64_t base = device.mmu().uva_base();
  const uint64_t data = base + 4 * kBigPage;
  ASSERT_TRUE(device.mmu().map_vidmem(data, 4 * kBigPage, kBigPage));
  TestChannel a{device, 3, base, 0};
  std::memset(at<void>(data), 0x77, 4096);
  a.submit(Pushbuffer().set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A).copy(data, data + 4096, 4096).release32(data + 8192, 4));
  device.host().poll();
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(*at<uint32_t>(data + 8192), 4u);
  EXPECT_EQ(at<uint8_t>(data + 4096)[4095], 0x77);
  EXPECT_EQ(device.host().engine_completions(), 0u);  // no engine thread ran anything
}

TEST_F(HostInterfaceTest, SetObjectOfAnUnknownClassFaults) {
  a.submit(Pushbuffer().set_object(4, 0xC7B5u));  // AMPERE_DMA_COPY_B: not a class of this GPU
  device.host().run_pending();
  ASSERT_EQ(device.host().faults().size(), 1u);
  EXPECT_EQ(device.host().faults()[0].kind, FaultKind::IllegalMethod);
  EXPECT_EQ(device.host().faults()[0].method, NVC56F_SET_OBJECT);
}

TEST_F(HostInterfaceTest, UnmappedPushbufferIsAnMmuFaultThatStopsTheChannel) {
  std::vector<ChannelFault> heard;
  device.host().set_fault_handler([&](const ChannelFault& fault) { heard.push_back(fault); });
  const uint64_t nowhere = base + 100 * kBigPage;  // in the window, never mapped
  a.write_entry(nv_gp_entry_pb_extended_base(nowhere));
  a.write_entry(nv_gp_entry(nowhere, 8));
  a.publish();
  a.ring();
  EXPECT_EQ(device.host().run_pending(), 1u);
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].chid, a.chid());
  EXPECT_EQ(heard[0].kind, FaultKind::MmuUnmapped);
  EXPECT_EQ(heard[0].engine, Engine::Host);
  EXPECT_EQ(heard[0].access, Access::Read);
  EXPECT_EQ(heard[0].va, nowhere);
  EXPECT_EQ(a.status(), ChannelStatus::Faulted);
  EXPECT_EQ(a.gp_get(), 1u);

  // A faulted channel stays stopped; the other channels run on.
  a.ring();
  b.submit(Pushbuffer().release32(data, 3));
  device.host().run_pending();
  EXPECT_EQ(a.status(), ChannelStatus::Faulted);
  EXPECT_EQ(*at<uint32_t>(data), 3u);
  EXPECT_EQ(device.host().faults().size(), 1u);
}

TEST_F(HostInterfaceTest, UnmappedSemaphoreIsAnMmuWriteFault) {
  const uint64_t nowhere = base + 100 * kBigPage;
  a.submit(Pushbuffer().release32(nowhere, 1).release32(data, 1));
  device.host().run_pending();
  ASSERT_EQ(device.host().faults().size(), 1u);
  EXPECT_EQ(device.host().faults()[0].kind, FaultKind::MmuUnmapped);
  EXPECT_EQ(device.host().faults()[0].access, Access::Write);
  EXPECT_EQ(device.host().faults()[0].method, NVC56F_SEM_EXECUTE);
  EXPECT_EQ(*at<uint32_t>(data), 0u);  // nothing after the fault ran
}

TEST_F(HostInterfaceTest, BadMethodHeaderFaults) {
  Pushbuffer pb;
  pb.dwords = {0xC0000000u};  // SEC_OP 6: reserved
  a.submit(pb);
  device.host().run_pending();
  ASSERT_EQ(device.host().faults().size(), 1u);
  EXPECT_EQ(device.host().faults()[0].kind, FaultKind::BadMethodHeader);
}

TEST_F(HostInterfaceTest, TraceShowsEntriesAndSemaphores) {
  trace::Recorder recorder;
  uint64_t pb = a.submit(Pushbuffer().release32(data, 7));
  device.host().run_pending();
  std::vector<std::string> lines = recorder.texts(trace::Layer::Gpu);
  auto has = [&](const std::string& text) {
    return std::find(lines.begin(), lines.end(), text) != lines.end();
  };
  EXPECT_TRUE(has(fmt::format("pbdma: ch 3 GPFIFO[1] 6 dwords at {:#x}", pb)));
  EXPECT_TRUE(has(fmt::format("host: ch 3 sem release {:#x} = 7", data)));
}

}  // namespace
}  // namespace minicuda::gpu
