// activity: the engines' busy-time counters (EngineActivity, minicuda/device.h), the simulator's
// performance monitor. The compute engine calls begin/end around each grid and the copy engine
// around each transfer; nvidia.ko samples them for its status file (minicuda smi's GPU-Util and
// the running kernel).
//
// The clock is CLOCK_MONOTONIC_COARSE: the kernel's tick, read without a system call (a few ns,
// where the precise clock costs about 200 ns on the project's VM, docs/performance.md), with a
// resolution of one tick (4 ms here). A piece of work shorter than a tick counts as 0 or one tick;
// as its start falls anywhere within a tick, the sum over many pieces is right on average, and a
// utilisation over an interval of many ticks (500 ms by default) is what the engines did.
#include <time.h>

#include "minicuda/device.h"

namespace minicuda::gpu {

namespace {
uint64_t wall_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

void EngineActivity::begin(TimelineUnit unit, uint32_t chid, const char* kernel) {
  if (!enabled_.load(std::memory_order_relaxed)) return;
  const int u = static_cast<int>(unit);
  const uint64_t now = wall_now_ns();
  std::lock_guard lock(mutex_);
  started_ns_[u] = now;
  items_[u] += 1;
  if (kernel != nullptr) {
    kernel_ = kernel;
    kernel_chid_ = chid;
  }
}

void EngineActivity::end(TimelineUnit unit) {
  if (!enabled_.load(std::memory_order_relaxed)) return;
  const int u = static_cast<int>(unit);
  const uint64_t now = wall_now_ns();
  std::lock_guard lock(mutex_);
  if (started_ns_[u] != 0 && now > started_ns_[u]) busy_ns_[u] += now - started_ns_[u];
  started_ns_[u] = 0;
  if (unit == TimelineUnit::Compute) kernel_.clear();
}

EngineActivity::Sample EngineActivity::sample() const {
  Sample s;
  s.wall_ns = wall_now_ns();
  std::lock_guard lock(mutex_);
  for (int u = 0; u < kTimelineUnits; ++u) {
    s.busy_ns[u] = busy_ns_[u];
    if (started_ns_[u] != 0 && s.wall_ns > started_ns_[u]) s.busy_ns[u] += s.wall_ns - started_ns_[u];
    s.work_items[u] = items_[u];
  }
  s.kernel = kernel_;
  s.kernel_chid = kernel_chid_;
  return s;
}

}  // namespace minicuda::gpu
