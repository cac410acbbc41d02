// Tests of how work reaches the host interface without a doorbell: HostInterface::poll() (the
// GPU noticing a published GPPut) and the device's worker thread (Device::start_worker /
// stop_worker, device.cpp) that polls on its own.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "gpu_channel_builder.h"
#include "minicuda/device.h"
#include "nv_hw_classes.h"
#include "eventually.h"

namespace minicuda::gpu {
namespace {

using testing::at;
using testing::Pushbuffer;
using testing::TestChannel;

uint32_t load32(uint64_t va) { return std::atomic_ref<uint32_t>(*at<uint32_t>(va)).load(std::memory_order_acquire); }

using testing_util::eventually;

class WorkerTest : public ::testing::Test {
 protected:
  WorkerTest() { EXPECT_TRUE(device.mmu().map_vidmem(data, 4 * kBigPage, kBigPage)); }
  Device device{Preset::Teaching};
  const uint64_t base = device.mmu().uva_base();
  const uint64_t data = base + 4 * kBigPage;  // semaphores
  TestChannel a{device, 3, base, 0};
  TestChannel b{device, 4, base + kBigPage, kBigPage};
};

TEST_F(WorkerTest, PollRunsPublishedWorkWithoutADoorbell) {
  a.write(Pushbuffer().release32(data, 7));
  a.publish();  // GPPut moved; nobody rings
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(device.host().run_pending(), 0u);  // run_pending alone only runs rung channels
  EXPECT_EQ(device.host().poll(), 2u);         // the extended-base entry and the segment
  EXPECT_EQ(load32(data), 7u);
  EXPECT_EQ(a.gp_get(), a.gp_put());
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(device.host().poll(), 0u);  // nothing new
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(WorkerTest, PollMarksTheChannelPending) {
  // An acquire that cannot be satisfied yet keeps the channel where poll() put it in motion.
  a.write(Pushbuffer().acquire(data, 1, NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE).release32(data + 4, 9));
  a.publish();
  device.host().poll();
  EXPECT_EQ(a.status(), ChannelStatus::Waiting);
  EXPECT_EQ(load32(data + 4), 0u);
  // The release arrives on another channel, also only published; one poll runs both.
  b.write(Pushbuffer().release32(data, 1));
  b.publish();
  EXPECT_GT(device.host().poll(), 0u);
  EXPECT_EQ(load32(data + 4), 9u);
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(b.status(), ChannelStatus::Idle);
}

TEST_F(WorkerTest, PollLeavesChannelsWithNothingPublishedIdle) {
  a.write(Pushbuffer().release32(data, 5));  // written but not published: GPPut == GPGet
  EXPECT_EQ(device.host().poll(), 0u);
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  EXPECT_EQ(b.status(), ChannelStatus::Idle);
  EXPECT_EQ(load32(data), 0u);
  EXPECT_EQ(a.gp_get(), 0u);
}

TEST_F(WorkerTest, PollDoesNotRestartAFaultedChannel) {
  a.write(Pushbuffer().release32(base + 100 * kBigPage, 1));  // unmapped semaphore
  a.publish();
  device.host().poll();
  ASSERT_EQ(a.status(), ChannelStatus::Faulted);
  ASSERT_EQ(device.host().faults().size(), 1u);
  a.write(Pushbuffer().release32(data, 3));
  a.publish();
  EXPECT_EQ(device.host().poll(), 0u);
  EXPECT_EQ(load32(data), 0u);
  EXPECT_EQ(device.host().faults().size(), 1u);
}

TEST_F(WorkerTest, PollSkipsAChannelWhoseUserdIsNotMapped) {
  TestChannel c{device, 5, base + 2 * kBigPage, 2 * kBigPage};
  c.write(Pushbuffer().release32(data, 4));
  c.publish();
  ASSERT_EQ(device.mmu().unmap(base + 2 * kBigPage, kBigPage), 1u);
  EXPECT_EQ(device.host().poll(), 0u);
  EXPECT_EQ(c.status(), ChannelStatus::Idle);
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(WorkerTest, WorkerRunsWorkPublishedAfterItStarted) {
  device.start_worker();
  a.write(Pushbuffer().release32(data, 11));
  a.publish();
  ASSERT_TRUE(eventually([&] { return load32(data) == 11u; }));
  EXPECT_TRUE(eventually([&] { return a.gp_get() == a.gp_put(); }));
  // Again, after the worker has had time to back off to its longest sleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  b.write(Pushbuffer().release32(data + 4, 12));
  b.publish();
  ASSERT_TRUE(eventually([&] { return load32(data + 4) == 12u; }));
  // Work rung as well as published runs once.
  a.submit(Pushbuffer().semaphore(data + 8, 1,
                                  nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_REDUCTION,
                                                 NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT) |
                                      nv_drf_num(NVC56F_SEM_EXECUTE_REDUCTION, NVC56F_SEM_EXECUTE_REDUCTION_IADD)));
  ASSERT_TRUE(eventually([&] { return a.gp_get() == a.gp_put(); }));
  EXPECT_EQ(load32(data + 8), 1u);
  device.stop_worker();
}

TEST_F(WorkerTest, StopJoinsAndNothingRunsAfterwards) {
  device.start_worker();
  device.stop_worker();
  a.write(Pushbuffer().release32(data, 1));
  a.publish();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(load32(data), 0u);
  EXPECT_EQ(a.status(), ChannelStatus::Idle);
  device.stop_worker();  // stopping a stopped worker is harmless
  EXPECT_EQ(device.host().poll(), 2u);
  EXPECT_EQ(load32(data), 1u);
  // And it can be started again.
  device.start_worker();
  a.write(Pushbuffer().release32(data, 2));
  a.publish();
  ASSERT_TRUE(eventually([&] { return load32(data) == 2u; }));
  device.stop_worker();
}

TEST_F(WorkerTest, StartingTwiceIsHarmless) {
  device.start_worker();
  device.start_worker();
  for (uint32_t i = 1; i <= 20; ++i) {
    a.write(Pushbuffer().release32(data, i));
    a.publish();
    ASSERT_TRUE(eventually([&] { return load32(data) == i; })) << i;
  }
  device.stop_worker();
  EXPECT_TRUE(device.host().faults().empty());
}

TEST_F(WorkerTest, AcquireOnOneChannelIsFreedByTheWorkerRunningAnother) {
  device.start_worker();
  a.write(Pushbuffer().acquire(data, 1, NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE).release32(data + 4, 9));
  a.publish();
  ASSERT_TRUE(eventually([&] { return a.status() == ChannelStatus::Waiting; }));
  b.write(Pushbuffer().release32(data, 1));
  b.publish();
  ASSERT_TRUE(eventually([&] { return load32(data + 4) == 9u; }));
  device.stop_worker();
}

TEST(Worker, DestructorJoinsARunningWorker) {
  for (int round = 0; round < 4; ++round) {
    auto device = std::make_unique<Device>(Preset::Teaching);
    const uint64_t base = device->mmu().uva_base();
    const uint64_t data = base + 4 * kBigPage;
    ASSERT_TRUE(device->mmu().map_vidmem(data, 4 * kBigPage, kBigPage));
    TestChannel a{*device, 1, base, 0};
    device->start_worker();
    a.write(Pushbuffer().release32(data, 5));
    a.publish();
    ASSERT_TRUE(eventually([&] { return load32(data) == 5u; }));
    // Leave it busy: a channel waiting on an acquire that never comes.
    a.write(Pushbuffer().acquire(data, 6, NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE));
    a.publish();
    if (round % 2) {
      ASSERT_TRUE(eventually([&] { return a.status() == ChannelStatus::Waiting; }));
    }
    device.reset();  // joins the worker before the host interface goes
  }
}

TEST(Worker, ADeviceThatNeverStartedItsWorkerDestructsCleanly) {
  Device device{Preset::Teaching};
  device.stop_worker();
}

}  // namespace
}  // namespace minicuda::gpu
