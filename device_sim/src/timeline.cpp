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

// A channel not added with add_channel() starts at 0 (the unit tests' channels).
uint64_t& Timeline::channel_locked(uint32_t chid) { return channels_[chid]; }

TimeSpan Timeline::run(uint32_t chid, TimelineUnit unit, uint64_t ns) {
  std::lock_guard lock(mutex_);
  uint64_t& channel = channel_locked(chid);
  UnitSpans& spans = units_[static_cast<int>(unit)];
  // The first gap from the channel's time on that holds ns: past every span that overlaps
  // [start, start + ns), in start order.
  uint64_t start = std::max(channel, spans.floor);
  auto it = spans.busy.upper_bound(start);
  if (it != spans.busy.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
  while (it != spans.busy.end() && it->first < start + ns) {
    start = std::max(start, it->second);
    ++it;
  }
  TimeSpan span{start, start + ns};
  if (ns != 0) {
    spans.busy[span.start] = span.end;
    if (spans.busy.size() > kUnitSpans) {  // forget the oldest: the time before it stays busy
      spans.floor = std::max(spans.floor, spans.busy.begin()->second);
      spans.busy.erase(spans.busy.begin());
    }
  }
  spans.end = std::max(spans.end, span.end);
  channel = span.end;
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
  return units_[static_cast<int>(unit)].end;
}

void Timeline::add_channel(uint32_t chid) {
  std::lock_guard lock(mutex_);
  channels_[chid] = latest_;
}

uint64_t Timeline::hold(uint32_t chid, uint64_t t) {
  std::lock_guard lock(mutex_);
  uint64_t& channel = channel_locked(chid);
  channel = std::max(channel, t);
  latest_ = std::max(latest_, channel);
  return channel;
}

void Timeline::set_origin(uint32_t chid, uint64_t origin) {
  std::lock_guard lock(mutex_);
  origins_[chid] = origin;
}

uint64_t Timeline::origin(uint32_t chid) const {
  std::lock_guard lock(mutex_);
  auto it = origins_.find(chid);
  return it == origins_.end() ? 0 : it->second;
}

uint64_t Timeline::release(uint32_t chid, uint64_t va, uint64_t payload) {
  std::lock_guard lock(mutex_);
  uint64_t t = channel_locked(chid);
  std::deque<Release>& history = releases_[va];
  history.push_back(Release{payload, t});
  if (history.size() > kReleaseHistory) history.pop_front();
  return t;
}

void Timeline::acquired(uint32_t chid, uint64_t va, uint64_t value) {
  std::lock_guard lock(mutex_);
  auto it = releases_.find(va);
  if (it == releases_.end() || it->second.empty()) return;
  // The release that made the value reach `value`: walking back from the newest, the oldest of
  // the releases >= value since the payloads last went down (a semaphore's memory may be reused
  // by a new channel, whose fences start again at 1).
  const std::deque<Release>& history = it->second;
  uint64_t when = history.back().time;
  for (size_t i = history.size(); i-- > 0;) {
    if (history[i].payload < value) break;
    when = history[i].time;
    if (i > 0 && history[i - 1].payload > history[i].payload) break;
  }
  uint64_t& channel = channel_locked(chid);
  channel = std::max(channel, when);
}

uint64_t Timeline::now() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void Timeline::remove_channel(uint32_t chid) {
  std::lock_guard lock(mutex_);
  channels_.erase(chid);
  origins_.erase(chid);
}

}  // namespace minicuda::gpu
