// timeline: the GPU's simulated clock, one timeline per unit and per channel (see Timeline in
// minicuda/device.h; the costs the engines charge are in docs/timing.md).
#include <algorithm>
#include <cstdint>
#include <vector>

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

namespace {

bool fits(const SmResources& used, const SmResources& more, const SmResources& capacity) {
  return uint64_t{used.blocks} + more.blocks <= capacity.blocks && uint64_t{used.warps} + more.warps <= capacity.warps &&
         uint64_t{used.partition_registers} + more.partition_registers <= capacity.partition_registers &&
         uint64_t{used.shared} + more.shared <= capacity.shared;
}
void add(SmResources& to, const SmResources& r) {
  to.blocks += r.blocks, to.warps += r.warps, to.partition_registers += r.partition_registers, to.shared += r.shared;
}
void keep_max(SmResources& to, const SmResources& r) {
  to.blocks = std::max(to.blocks, r.blocks), to.warps = std::max(to.warps, r.warps);
  to.partition_registers = std::max(to.partition_registers, r.partition_registers);
  to.shared = std::max(to.shared, r.shared);
}

}  // namespace

// The earliest start from the channel's time on at which grid.sms SMs have room for the grid
// over the whole of [start, start + ns). Room only grows where a placed grid ends, so the
// candidates are the channel's time and the ends of the grids in the way, in order. At each
// candidate, an SM's use is its peak over the window: the most each resource reaches at the
// window's start or at any grid's start inside it. The grid takes the first SMs (by index)
// with room: the same choice whatever thread asks, so the times are deterministic.
TimeSpan Timeline::run_grid(uint32_t chid, const GridFootprint& grid, uint64_t ns) {
  std::lock_guard lock(mutex_);
  uint64_t& channel = channel_locked(chid);
  const uint32_t sm_count = std::max<uint32_t>(1, grid.sm_count);
  const uint32_t wanted = std::clamp<uint32_t>(grid.sms, 1, sm_count);
  const uint64_t length = std::max<uint64_t>(ns, 1);  // a window of 0 ns still holds its SMs
  uint64_t start = std::max(channel, grid_floor_);
  // Scratch space reused from launch to launch (a launch's latency is the host's cost).
  thread_local std::vector<const GridSpan*> in_way;
  thread_local std::vector<uint64_t> points;
  thread_local std::vector<SmResources> peak, at;
  peak.resize(sm_count);
  at.resize(sm_count);
  std::vector<bool> chosen(sm_count, false);
  for (;;) {
    const uint64_t end = start + length;
    in_way.clear();
    for (auto it = grids_.lower_bound(start > longest_grid_ ? start - longest_grid_ : 0);
         it != grids_.end() && it->first < end; ++it)
      if (it->second.end > start) in_way.push_back(&it->second);
    if (in_way.empty()) {  // alone, a grid always fits (its footprint is at most one SM's)
      std::fill(chosen.begin(), chosen.begin() + wanted, true);  // SMs 0 .. wanted-1 (the rest stay false)
      break;
    }
    std::fill(peak.begin(), peak.end(), SmResources{});
    points.assign(1, start);
    for (const GridSpan* g : in_way)
      if (g->start > start) points.push_back(g->start);
    for (uint64_t p : points) {
      std::fill(at.begin(), at.end(), SmResources{});
      for (const GridSpan* g : in_way) {
        if (g->start > p || g->end <= p) continue;
        for (uint32_t s = 0; s < sm_count && s < g->sms.size(); ++s)
          if (g->sms[s]) add(at[s], g->per_sm);
      }
      for (uint32_t s = 0; s < sm_count; ++s) keep_max(peak[s], at[s]);
    }
    uint32_t room = 0;
    std::fill(chosen.begin(), chosen.end(), false);
    for (uint32_t s = 0; s < sm_count && room < wanted; ++s)
      if (fits(peak[s], grid.per_sm, grid.capacity)) chosen[s] = true, ++room;
    if (room == wanted) break;
    uint64_t next = UINT64_MAX;
    for (const GridSpan* g : in_way) next = std::min(next, g->end);
    start = next;
  }
  TimeSpan span{start, start + ns};
  grids_.emplace(start, GridSpan{start, span.end, std::move(chosen), grid.per_sm});
  longest_grid_ = std::max(longest_grid_, length);
  if (grids_.size() > kGridSpans) {  // forget the oldest: the time before its end stays full
    grid_floor_ = std::max(grid_floor_, grids_.begin()->second.end);
    grids_.erase(grids_.begin());
  }
  UnitSpans& unit = units_[static_cast<int>(TimelineUnit::Compute)];
  unit.end = std::max(unit.end, span.end);
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
