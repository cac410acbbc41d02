// timeline: the GPU's simulated clock, one timeline per unit and per channel (see Timeline in
// minicuda/device.h; the costs the engines charge are in docs/timing.md).
#include <algorithm>

#include "minicuda/device.h"

namespace minicuda::gpu {

const char* timeline_unit_name(TimelineUnit unit) {
  switch (unit) {
    case TimelineUnit::Compute: return "compute";
    case TimelineUnit::Copy0: return "ce0";
    case TimelineUnit::Copy1: return "ce1";
    case TimelineUnit::Copy2: return "ce2";
  }
  return "?";
}

// A channel first seen starts at 0: the model has no host timeline yet (docs/timing.md), so
// nothing holds a channel's first work back but the engines it needs.
uint64_t& Timeline::channel_locked(uint32_t chid) { return channels_[chid]; }

TimeSpan Timeline::run(uint32_t chid, TimelineUnit unit, uint64_t ns) {
  std::lock_guard lock(mutex_);
  uint64_t& channel = channel_locked(chid);
  uint64_t& busy = units_[static_cast<int>(unit)];
  TimeSpan span;
  span.start = std::max(channel, busy);
  span.end = span.start + ns;
  channel = busy = span.end;
  latest_ = std::max(latest_, span.end);
  return span;
}

uint64_t Timeline::advance(uint32_t chid, uint64_t ns) {
  std::lock_guard lock(mutex_);
  uint64_t& channel = channel_locked(chid);
  channel += ns;
  latest_ = std::max(latest_, channel);
  return channel;
}

uint64_t Timeline::channel_time(uint32_t chid) const {
  std::lock_guard lock(mutex_);
  auto it = channels_.find(chid);
  return it == channels_.end() ? 0 : it->second;
}

uint64_t Timeline::unit_time(TimelineUnit unit) const {
  std::lock_guard lock(mutex_);
  return units_[static_cast<int>(unit)];
}

uint64_t Timeline::release(uint32_t chid, uint64_t va) {
  std::lock_guard lock(mutex_);
  uint64_t t = channel_locked(chid);
  releases_[va] = t;
  return t;
}

void Timeline::acquired(uint32_t chid, uint64_t va) {
  std::lock_guard lock(mutex_);
  auto it = releases_.find(va);
  if (it == releases_.end()) return;
  uint64_t& channel = channel_locked(chid);
  channel = std::max(channel, it->second);
}

uint64_t Timeline::now() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void Timeline::remove_channel(uint32_t chid) {
  std::lock_guard lock(mutex_);
  channels_.erase(chid);
}

}  // namespace minicuda::gpu
