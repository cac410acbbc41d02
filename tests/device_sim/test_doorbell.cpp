// Tests of how work reaches the GPU: only through the doorbell. A store to the usermode page's
// NOTIFY_CHANNEL_PENDING register goes over the bus (minicuda/bus.h) to Device::usermode_write32
// and HostInterface::doorbell, which schedules the channel named by the token; once the GPU is
// started (Device::start_worker), its own threads run the channel. Nothing looks at a channel
// that was not rung; the one thing the GPU polls is a semaphore acquire, as the hardware does.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "eventually.h"
#include "gpu_channel_builder.h"
#include "minicuda/bus.h"
#include "minicuda/device.h"
#include "minicuda/trace.h"
#include "class/clc361.h"
#include "class/clc56f.h"
#include "class/clc86f.h"

namespace minicuda::gpu {
namespace {

using testing::at;
using testing::Pushbuffer;
using testing::TestChannel;
using testing_util::eventually;

uint32_t load32(uint64_t va) { return std::atomic_ref<uint32_t>(*at<uint32_t>(va)).load(std::memory_order_acquire); }
void store32(uint64_t va, uint32_t v) { std::atomic_ref<uint32_t>(*at<uint32_t>(va)).store(v, std::memory_order_release); }

class DoorbellTest : public ::testing::Test {
 protected:
  DoorbellTest() { EXPECT_TRUE(device.mmu().map_vidmem(data, 4 * kBigPage, kBigPage)); }
  Device device{Preset::Teaching};
  const uint64_t base = device.mmu().uva_base();
  const uint64_t data = base + 4 * kBigPage;  // semaphores
  TestChannel a{device, 3, base, 0};
  TestChannel b{device, 4, base + kBigPage, kBigPage};
};

// The GPU is running, a channel's GPPut moved, and nobody rang: the channel is not run, however
// long the GPU's threads keep working on another channel that was rung. Its doorbell runs it.
TEST_F(DoorbellTest, PublishedWorkIsNotRunUntilTheDoorbellRings) {
  device.start_worker();
  a.write(Pushbuffer().release32(data, 7));
  a.publish();  // GPPut moved; no doorbell
  for (uint32_t i = 1; i <= 20; ++i) {
    b.submit(Pushbuffer().release32(data + 4, i));
    ASSERT_TRUE(eventually([&] { return load32(data + 4) == i; })) << i;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(load32(data), 0u);
  EXPECT_EQ(a.gp_get(), 0u);
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  a.ring();
  ASSERT_TRUE(eventually([&] { return load32(data) == 7u; }));
  EXPECT_TRUE(eventually([&] { return a.gp_get() == a.gp_put(); }));
  device.stop_worker();
  EXPECT_TRUE(device.host().faults().empty());
}

// A token that names no channel is dropped, with a trace note, whether it arrives by the
// register or by the handler; nothing changes and the GPU goes on serving the good tokens.
TEST_F(DoorbellTest, ABadTokenIsIgnored) {
  device.start_worker();
  trace::Recorder recorder;
  a.write(Pushbuffer().release32(data, 1));
  a.publish();
  device.host().doorbell(0xdead);
  device.usermode_write32(NVC361_NOTIFY_CHANNEL_PENDING, 0xffffffffu);
  device.host().doorbell(b.config().token + 1000);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(b.status(), ChannelStatus::Idle);
  EXPECT_EQ(load32(data), 0u);
  EXPECT_TRUE(device.host().faults().empty());
  const auto notes = recorder.texts(trace::Layer::Gpu);
  EXPECT_NE(std::find(notes.begin(), notes.end(), "doorbell(token=0xdead): no channel has this token: ignored"),
            notes.end());
  a.ring();
  EXPECT_TRUE(eventually([&] { return load32(data) == 1u; }));
  device.stop_worker();
}

// The doorbell of a faulted channel is dropped: it never runs again.
TEST_F(DoorbellTest, TheDoorbellOfAFaultedChannelIsIgnored) {
  a.submit(Pushbuffer().release32(base + 100 * kBigPage, 1));  // unmapped semaphore
  device.host().run_pending();
  ASSERT_EQ(a.status(), ChannelStatus::Faulted);
  device.start_worker();
  a.submit(Pushbuffer().release32(data, 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(load32(data), 0u);
  EXPECT_EQ(a.status(), ChannelStatus::Faulted);
  EXPECT_EQ(device.host().faults().size(), 1u);
  device.stop_worker();
}

// The trace shows the doorbell on the GPU's side, with the channel it schedules.
TEST_F(DoorbellTest, TheTraceShowsTheDoorbellAndItsChannel) {
  trace::Recorder recorder;
  a.write(Pushbuffer().release32(data, 1));
  a.publish();
  device.usermode_write32(NVC361_NOTIFY_CHANNEL_PENDING, a.config().token);
  EXPECT_EQ(a.status(), ChannelStatus::Pending);
  const auto notes = recorder.texts(trace::Layer::Gpu);
  EXPECT_NE(std::find(notes.begin(), notes.end(), "doorbell(token=0x103) -> ch 3"), notes.end());
}

// Writes to other usermode registers are not the doorbell: dropped.
TEST_F(DoorbellTest, OtherUsermodeRegistersDoNotRing) {
  a.write(Pushbuffer().release32(data, 1));
  a.publish();
  device.usermode_write32(NVC361_NOTIFY_CHANNEL_PENDING - 4, a.config().token);
  device.usermode_write32(NVC361_NOTIFY_CHANNEL_PENDING + 4, a.config().token);
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(device.host().poll(), 0u);
  EXPECT_EQ(load32(data), 0u);
}

// The whole path from the CPU's side: a plain 32-bit store to a register of a page routed to
// the device (what nvidia.ko's mmap of the usermode page does) rings the doorbell. Once the route
// is gone, the same store is only a store.
TEST_F(DoorbellTest, AStoreToTheRoutedPageRingsTheDoorbell) {
  void* page = mmap(nullptr, NVC361_NV_USERMODE__SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  int owner = 0;
  const uint64_t routes = bus::routes();
  bus::map(page, NVC361_NV_USERMODE__SIZE,
           [](void* dev, uint64_t offset, uint32_t value) { static_cast<Device*>(dev)->usermode_write32(offset, value); },
           &device, &owner);
  EXPECT_EQ(bus::routes(), routes + 1);
  auto* regs = static_cast<bus::Reg32*>(page);
  a.write(Pushbuffer().release32(data, 5));
  a.publish();
  regs[NVC361_NOTIFY_CHANNEL_PENDING / 4] = a.config().token;
  EXPECT_EQ(a.status(), ChannelStatus::Pending);
  EXPECT_EQ(static_cast<uint32_t>(regs[NVC361_NOTIFY_CHANNEL_PENDING / 4]), a.config().token);  // the page keeps it
  EXPECT_EQ(device.host().poll(), 2u);
  EXPECT_EQ(load32(data), 5u);

  bus::unmap_owner(&owner);
  EXPECT_EQ(bus::routes(), routes);
  b.write(Pushbuffer().release32(data + 4, 6));
  b.publish();
  regs[NVC361_NOTIFY_CHANNEL_PENDING / 4] = b.config().token;
  EXPECT_EQ(b.status(), ChannelStatus::Idle);
  EXPECT_EQ(device.host().poll(), 0u);
  munmap(page, NVC361_NV_USERMODE__SIZE);
}

// A route over an address range that an older route covered replaces it (the old mapping went
// away and the host reused its addresses).
TEST(Bus, ANewRouteReplacesAnOverlappingOne) {
  static uint32_t seen_a = 0, seen_b = 0;
  alignas(4096) static uint32_t page[2048];
  int owner_a = 0, owner_b = 0;
  const uint64_t routes = bus::routes();
  bus::map(page, sizeof page, [](void*, uint64_t, uint32_t v) { seen_a = v; }, nullptr, &owner_a);
  bus::map(page + 512, 4096, [](void*, uint64_t offset, uint32_t v) { seen_b = v + static_cast<uint32_t>(offset); },
           nullptr, &owner_b);
  EXPECT_EQ(bus::routes(), routes + 1);
  bus::write32(page + 513, 10);
  EXPECT_EQ(seen_a, 0u);
  EXPECT_EQ(seen_b, 14u);  // offset 4 into the new route
  EXPECT_EQ(page[513], 10u);
  bus::unmap_owner(&owner_a);  // gone already: nothing happens
  EXPECT_EQ(bus::routes(), routes + 1);
  bus::unmap_owner(&owner_b);
  EXPECT_EQ(bus::routes(), routes);
}

TEST_F(DoorbellTest, PollRunsRungChannelsOnly) {
  a.write(Pushbuffer().release32(data, 7));
  a.publish();
  EXPECT_EQ(device.host().poll(), 0u);  // published, not rung
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  a.ring();
  EXPECT_EQ(device.host().poll(), 2u);  // the extended-base entry and the segment
  EXPECT_EQ(load32(data), 7u);
  EXPECT_EQ(a.gp_get(), a.gp_put());
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(device.host().poll(), 0u);  // nothing new
}

// An acquire of a semaphore the host writes (a host function's release, a CPU store) is the one
// thing the GPU polls, as the hardware does: no doorbell follows the store.
TEST_F(DoorbellTest, AnAcquireOfAHostWrittenSemaphoreIsPolled) {
  device.start_worker();
  a.submit(Pushbuffer().acquire(data, 1, NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE).release32(data + 4, 9));
  ASSERT_TRUE(eventually([&] { return a.status() == ChannelStatus::Waiting; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // gpu-host is in its back-off by now
  EXPECT_EQ(load32(data + 4), 0u);
  store32(data, 1);
  ASSERT_TRUE(eventually([&] { return load32(data + 4) == 9u; }));
  EXPECT_TRUE(eventually([&] { return a.status() == ChannelStatus::Idle; }));
  device.stop_worker();
}

TEST_F(DoorbellTest, AcquireOnOneChannelIsFreedByTheGpuRunningAnother) {
  device.start_worker();
  a.submit(Pushbuffer().acquire(data, 1, NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE).release32(data + 4, 9));
  ASSERT_TRUE(eventually([&] { return a.status() == ChannelStatus::Waiting; }));
  b.submit(Pushbuffer().release32(data, 1));
  ASSERT_TRUE(eventually([&] { return load32(data + 4) == 9u; }));
  device.stop_worker();
}

TEST_F(DoorbellTest, WorkRungAfterTheStartRuns) {
  device.start_worker();
  a.submit(Pushbuffer().release32(data, 11));
  ASSERT_TRUE(eventually([&] { return load32(data) == 11u; }));
  EXPECT_TRUE(eventually([&] { return a.gp_get() == a.gp_put(); }));
  // Again, after the GPU's threads have had time to go to sleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  b.submit(Pushbuffer().release32(data + 4, 12));
  ASSERT_TRUE(eventually([&] { return load32(data + 4) == 12u; }));
  device.stop_worker();
}

// Stopped, a doorbell only schedules: the channel is Pending until someone runs it (poll), or
// until the GPU starts again, when the channels rung meanwhile run first.
TEST_F(DoorbellTest, StoppedTheGpuRunsNothingAndStartedAgainItRunsWhatWasRung) {
  device.start_worker();
  device.stop_worker();
  a.submit(Pushbuffer().release32(data, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(load32(data), 0u);
  EXPECT_EQ(a.status(), ChannelStatus::Pending);
  device.stop_worker();  // stopping a stopped GPU is harmless
  EXPECT_EQ(device.host().poll(), 2u);
  EXPECT_EQ(load32(data), 1u);
  b.submit(Pushbuffer().release32(data + 4, 2));
  device.start_worker();
  ASSERT_TRUE(eventually([&] { return load32(data + 4) == 2u; }));
  device.stop_worker();
}

TEST_F(DoorbellTest, StartingTwiceIsHarmless) {
  device.start_worker();
  device.start_worker();
  for (uint32_t i = 1; i <= 20; ++i) {
    a.submit(Pushbuffer().release32(data, i));
    ASSERT_TRUE(eventually([&] { return load32(data) == i; })) << i;
  }
  device.stop_worker();
  EXPECT_TRUE(device.host().faults().empty());
}

// With MINICUDA_ENGINE_THREADS=0 the doorbell wakes gpu-host, which runs everything.
TEST(DoorbellThreadsOff, TheDoorbellWakesTheHostThread) {
  setenv("MINICUDA_ENGINE_THREADS", "0", 1);
  Device device{Preset::Teaching};
  unsetenv("MINICUDA_ENGINE_THREADS");
  const uint64_t base = device.mmu().uva_base();
  const uint64_t data = base + 4 * kBigPage;
  ASSERT_TRUE(device.mmu().map_vidmem(data, 4 * kBigPage, kBigPage));
  TestChannel a{device, 3, base, 0};
  device.start_worker();
  for (uint32_t i = 1; i <= 5; ++i) {
    a.submit(Pushbuffer().set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A).copy(data, data + 4096, 4096).release32(data + 8192, i));
    ASSERT_TRUE(eventually([&] { return load32(data + 8192) == i; })) << i;
  }
  EXPECT_EQ(device.host().engine_completions(), 0u);  // no engine thread ran anything
  device.stop_worker();
}

TEST(Doorbell, DestructorJoinsARunningGpu) {
  for (int round = 0; round < 4; ++round) {
    auto device = std::make_unique<Device>(Preset::Teaching);
    const uint64_t base = device->mmu().uva_base();
    const uint64_t data = base + 4 * kBigPage;
    ASSERT_TRUE(device->mmu().map_vidmem(data, 4 * kBigPage, kBigPage));
    TestChannel a{*device, 1, base, 0};
    device->start_worker();
    a.submit(Pushbuffer().release32(data, 5));
    ASSERT_TRUE(eventually([&] { return load32(data) == 5u; }));
    // Leave it waiting: an acquire that never comes, which gpu-host keeps retrying.
    a.submit(Pushbuffer().acquire(data, 6, NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE));
    if (round % 2) {
      ASSERT_TRUE(eventually([&] { return a.status() == ChannelStatus::Waiting; }));
    }
    device.reset();  // joins the GPU's threads before the host interface goes
  }
}

TEST(Doorbell, ADeviceThatNeverStartedDestructsCleanly) {
  Device device{Preset::Teaching};
  device.stop_worker();
}

}  // namespace
}  // namespace minicuda::gpu
