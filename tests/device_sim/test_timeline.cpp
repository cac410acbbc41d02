// Tests of the GPU's simulated clock (Timeline in minicuda/device.h, timeline.cpp; the costs in
// docs/timing.md): work of two channels on two units overlaps, work on one unit queues, a
// channel's work runs in order, an acquire holds its channel until the release's time - first
// on the Timeline itself, then through channels fed as libcuda feeds them.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gpu_channel_builder.h"
#include "minicuda/device.h"
#include "minicuda/trace.h"
#include "nv_hw_classes.h"

namespace minicuda::gpu {
namespace {

using testing::at;
using testing::Pushbuffer;
using testing::TestChannel;

TEST(Timeline, TwoChannelsOnTwoUnitsOverlap) {
  Timeline t;
  TimeSpan copy = t.run(1, TimelineUnit::Copy0, 1000);
  TimeSpan kernel = t.run(2, TimelineUnit::Compute, 1500);
  EXPECT_EQ(copy.start, 0u);
  EXPECT_EQ(copy.end, 1000u);
  EXPECT_EQ(kernel.start, 0u);  // not after the copy: another channel, another unit
  EXPECT_EQ(kernel.end, 1500u);
  EXPECT_EQ(t.now(), 1500u);
}

TEST(Timeline, WorkOnOneUnitQueues) {
  Timeline t;
  t.run(1, TimelineUnit::Copy0, 1000);
  TimeSpan second = t.run(2, TimelineUnit::Copy0, 1000);  // another channel, the same engine
  EXPECT_EQ(second.start, 1000u);
  EXPECT_EQ(second.end, 2000u);
}

TEST(Timeline, OneChannelRunsInOrderAcrossUnits) {
  Timeline t;
  t.run(1, TimelineUnit::Copy0, 1000);
  TimeSpan kernel = t.run(1, TimelineUnit::Compute, 500);  // the compute engine is free, the stream is not
  TimeSpan back = t.run(1, TimelineUnit::Copy1, 200);
  EXPECT_EQ(kernel.start, 1000u);
  EXPECT_EQ(back.start, 1500u);
  EXPECT_EQ(t.channel_time(1), 1700u);
}

TEST(Timeline, AcquireHoldsTheChannelUntilTheRelease) {
  Timeline t;
  t.run(1, TimelineUnit::Compute, 5000);
  EXPECT_EQ(t.release(1, 0x1000, 1), 5000u);  // at channel 1's time
  t.run(2, TimelineUnit::Copy0, 100);          // channel 2 is at 100
  t.acquired(2, 0x1000, 1);
  EXPECT_EQ(t.channel_time(2), 5000u);
  EXPECT_EQ(t.run(2, TimelineUnit::Copy1, 10).start, 5000u);
  t.acquired(3, 0x2000, 1);  // never released (the host wrote it): holds nothing
  EXPECT_EQ(t.channel_time(3), 0u);
}

// The acquire takes the time of the release that satisfied it, not of a later one that the
// releasing channel happened to have made by then.
TEST(Timeline, AcquireTakesTheTimeOfTheReleaseItWaitedFor) {
  Timeline t;
  t.run(1, TimelineUnit::Copy0, 1000);
  t.release(1, 0x1000, 1);  // at 1000
  t.run(1, TimelineUnit::Copy0, 9000);
  t.release(1, 0x1000, 2);  // at 10000
  t.acquired(2, 0x1000, 1);
  EXPECT_EQ(t.channel_time(2), 1000u);
  t.acquired(3, 0x1000, 2);
  EXPECT_EQ(t.channel_time(3), 10000u);
  // The semaphore's memory reused by a new channel, whose fences start again at 1.
  t.run(4, TimelineUnit::Copy0, 100);
  t.release(4, 0x1000, 1);  // at 10100
  t.acquired(5, 0x1000, 1);
  EXPECT_EQ(t.channel_time(5), 10100u);
}

TEST(Timeline, AChannelStartsAtTheDevicesPresent) {
  Timeline t;
  t.run(1, TimelineUnit::Compute, 700);
  t.add_channel(2);
  EXPECT_EQ(t.channel_time(2), 700u);
}

TEST(Timeline, HoldKeepsTheChannelUntilTheHostSubmitted) {
  Timeline t;
  t.run(1, TimelineUnit::Copy0, 1000);
  EXPECT_EQ(t.hold(1, 600), 1000u);  // the channel is later already
  EXPECT_EQ(t.hold(1, 4000), 4000u);  // the host submitted at 4000: nothing before then
  EXPECT_EQ(t.run(1, TimelineUnit::Copy0, 10).start, 4000u);
  EXPECT_EQ(t.now(), 4010u);
  t.set_origin(1, 42);
  EXPECT_EQ(t.origin(1), 42u);
  EXPECT_EQ(t.origin(2), 0u);
  t.remove_channel(1);
  EXPECT_EQ(t.origin(1), 0u);
}

// The unit serves work in the order it became ready, not the order it was asked for: work asked
// for later but ready earlier takes a gap before the work already placed, if it fits there.
TEST(Timeline, WorkReadyEarlierTakesAGapThatHoldsIt) {
  Timeline t;
  t.hold(1, 5000);
  TimeSpan late = t.run(1, TimelineUnit::Copy0, 1000);  // ready at 5000: 5000..6000
  TimeSpan early = t.run(2, TimelineUnit::Copy0, 3000);  // ready at 0, fits before it
  EXPECT_EQ(late.start, 5000u);
  EXPECT_EQ(early.start, 0u);
  EXPECT_EQ(early.end, 3000u);
  TimeSpan too_long = t.run(3, TimelineUnit::Copy0, 2500);  // 3000..5500 would overlap: after 6000
  EXPECT_EQ(too_long.start, 6000u);
  TimeSpan fits = t.run(4, TimelineUnit::Copy0, 2000);  // 3000..5000 is free
  EXPECT_EQ(fits.start, 3000u);
  EXPECT_EQ(t.unit_time(TimelineUnit::Copy0), 8500u);  // the latest end
}

// Beyond kUnitSpans the oldest spans are forgotten and the time before them counts as busy, so
// the memory stays bounded and nothing is ever placed over forgotten work.
TEST(Timeline, ForgottenSpansStayBusy) {
  Timeline t;
  for (uint32_t i = 0; i < Timeline::kUnitSpans + 10; ++i) {
    t.hold(1, 10 * i + 10);  // spans 10i+10 .. 10i+15, gaps of 5 between them
    t.run(1, TimelineUnit::Compute, 5);
  }
  EXPECT_EQ(t.run(2, TimelineUnit::Compute, 5).start, 10u * 10 + 5);  // the first gap still known
  EXPECT_GE(t.run(3, TimelineUnit::Compute, 1).start, 10u * 10);     // never before the forgotten spans
}

TEST(Timeline, UnitNames) {
  EXPECT_STREQ(timeline_unit_name(TimelineUnit::Compute), "compute");
  EXPECT_STREQ(timeline_unit_name(TimelineUnit::Copy2), "ce2");
}

// Two channels bound to the copy class, vidmem buffers and a pinned host buffer.
class TimelineChannels : public ::testing::Test {
 protected:
  TimelineChannels() {
    EXPECT_TRUE(device.mmu().map_vidmem(vid, 4 * kBigPage, 2 * kBigPage));
    host = static_cast<uint8_t*>(std::aligned_alloc(kSmallPage, kHostBytes));
    EXPECT_TRUE(device.mmu().map_sysmem(reinterpret_cast<uint64_t>(host), kHostBytes));
    for (TestChannel* c : {&a, &b}) c->submit(Pushbuffer().set_object(NV_SUBCHANNEL_COPY, HOPPER_DMA_COPY_A));
    device.host().run_pending();
  }
  ~TimelineChannels() override {
    device.mmu().unmap(reinterpret_cast<uint64_t>(host), kHostBytes);
    std::free(host);
  }
  // The time of a four-word release at va (written by the GPU after the copy before it).
  uint64_t stamp(uint64_t va) { return at<uint64_t>(va)[1]; }

  static constexpr uint64_t kHostBytes = 128 * kSmallPage;  // two halves, for copies at the same time
  Device device{Preset::Teaching};
  const uint64_t base = device.mmu().uva_base();
  const uint64_t vid = base + 4 * kBigPage;        // 2 MiB of data
  const uint64_t sems = vid + kBigPage;            // semaphores
  uint8_t* host = nullptr;
  TestChannel a{device, 3, base, 0};
  TestChannel b{device, 4, base + kBigPage, kBigPage};
};

constexpr uint32_t kFourWord = NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE;

TEST_F(TimelineChannels, CopiesBothWaysOnTwoChannelsOverlap) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  const uint64_t t0 = device.now_ns();
  // The two engines run at once, so they touch disjoint bytes: the H2D reads the first half of
  // the host buffer into the first half of the vidmem, the D2H copies the other halves.
  a.submit(Pushbuffer().copy_semaphore(sems, 1).copy(pinned, vid, 200000, kFourWord));  // H2D: ce0
  b.submit(Pushbuffer()
               .copy_semaphore(sems + 16, 1)
               .copy(vid + kBigPage / 2, pinned + kHostBytes / 2, 200000, kFourWord));  // D2H: ce1
  device.host().run_pending();
  // Each took what it takes alone (fetch + launch + 200000 B at 55 B/ns), at the same time.
  EXPECT_EQ(stamp(sems) - t0, 100u + 2400u + 3636u);
  EXPECT_EQ(stamp(sems + 16) - t0, 100u + 1300u + 3636u);
}

TEST_F(TimelineChannels, CopiesTheSameWayQueueOnOneEngine) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  const uint64_t t0 = device.now_ns();
  a.submit(Pushbuffer().copy_semaphore(sems, 1).copy(pinned, vid, 200000, kFourWord));
  b.submit(Pushbuffer().copy_semaphore(sems + 16, 1).copy(pinned, vid + 262144, 200000, kFourWord));
  device.host().run_pending();
  EXPECT_EQ(stamp(sems) - t0, 100u + 2400u + 3636u);
  EXPECT_EQ(stamp(sems + 16) - stamp(sems), 2400u + 3636u);  // after the first, on ce0
}

TEST_F(TimelineChannels, AnAcquireWaitsForTheReleasesTime) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  const uint64_t t0 = device.now_ns();
  // a: a long H2D, then a release that b waits for; b: a D2H that could have run at once.
  a.submit(Pushbuffer().copy(pinned, vid, 220000).release32(sems + 64, 1));
  b.submit(Pushbuffer()
               .acquire(sems + 64, 1, NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ)
               .copy_semaphore(sems + 16, 1)
               .copy(vid + 4096, pinned, 55000, kFourWord));
  device.host().run_pending();
  const uint64_t released = t0 + 100u + 2400u + 4000u;  // a's copy ended
  EXPECT_EQ(stamp(sems + 16), released + 1300u + 1000u);
}

// libcuda starts each segment with MINICUDA_SET_ORIGIN and MINICUDA_SET_HOST_TIME: the PBDMA
// holds the channel until the host time, and the copy's span names the submitting call.
// Two channels' copies for one engine, rung together: the one the host submitted first gets the
// engine first, whatever the chids (b, chid 4, submitted before a, chid 3).
TEST_F(TimelineChannels, TheWorkSubmittedFirstGetsTheEngineFirst) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  const uint64_t t0 = device.now_ns();
  auto segment = [&](uint64_t submitted, uint64_t sem, uint64_t dst) {
    return Pushbuffer()
        .inc(NV_SUBCHANNEL_HOST, NVC56F_MINICUDA_SET_ORIGIN_LO,
             {0, 0, static_cast<uint32_t>(submitted), static_cast<uint32_t>(submitted >> 32)})
        .copy_semaphore(sem, 1)
        .copy(pinned, dst, 200000, kFourWord);
  };
  a.submit(segment(t0 + 2000, sems, vid));
  b.submit(segment(t0 + 1000, sems + 16, vid + 262144));
  device.host().run_pending();
  EXPECT_EQ(stamp(sems + 16), t0 + 1000 + 2400u + 3636u);                // b first, at its host time
  EXPECT_EQ(stamp(sems), stamp(sems + 16) + 2400u + 3636u);             // then a, after it on ce0
}

TEST_F(TimelineChannels, TheHostTimeMethodHoldsTheSegmentsWork) {
  const uint64_t pinned = reinterpret_cast<uint64_t>(host);
  const uint64_t submitted = device.now_ns() + 50000;
  trace::Recorder rec;
  a.submit(Pushbuffer()
               .inc(NV_SUBCHANNEL_HOST, NVC56F_MINICUDA_SET_ORIGIN_LO,
                    {7, 0, static_cast<uint32_t>(submitted), static_cast<uint32_t>(submitted >> 32)})
               .copy_semaphore(sems, 1)
               .copy(pinned, vid, 200000, kFourWord));
  device.host().run_pending();
  EXPECT_EQ(stamp(sems), submitted + 2400u + 3636u);  // not 100 ns after the fetch: at the host's time
  bool spanned = false;
  for (const trace::Event& e : rec.events()) {
    if (!e.span) continue;
    spanned = true;
    EXPECT_EQ(e.span->unit, "ce0");
    EXPECT_EQ(e.span->name, "copy 200000 B");
    EXPECT_EQ(e.span->start_ns, submitted);
    EXPECT_EQ(e.span->end_ns, submitted + 2400u + 3636u);
    EXPECT_EQ(e.span->origin, 7u);
  }
  EXPECT_TRUE(spanned);
  EXPECT_NE(rec.tree().find(fmt::format("submitted by #7 at host t={} ns: the channel waits from", submitted)),
            std::string::npos);
}

}  // namespace
}  // namespace minicuda::gpu
