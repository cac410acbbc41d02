// The host timeline: one simulated clock per host thread (see host_clock.h). The trace reads it
// too, so that API calls carry their simulated host times (the Chrome trace places them there).
#include "host_clock.h"

#include "minicuda/trace.h"

namespace minicuda::libcuda::host_clock {

namespace {

thread_local uint64_t t_now = 0;

// The pageable-copy rates of the CPU's memcpy, in bytes per ns. On the H200 a 64 MiB pageable
// copy took 9151 us to the device (7.3 GB/s) and 6377 us back (10.5 GB/s) end to end. The copy
// engine's share of that is modelled on ce0/ce1 (32 pieces of 2 MiB, waited for one by one:
// 1297 and 1262 us), and the call costs 2.3 us, so the CPU's share is the rest: 7852 us and
// 5113 us for 64 MiB.
constexpr double kStageToDeviceBytesPerNs = 8.55;
constexpr double kStageFromDeviceBytesPerNs = 13.13;

// Registered with the trace at start-up, so that every event carries this thread's host time.
[[maybe_unused]] const bool g_registered = (trace::set_host_clock(&now), true);

}  // namespace

uint64_t now() { return t_now; }

void spend(uint64_t ns) { t_now += ns; }

void reach(uint64_t t) {
  if (t > t_now) t_now = t;
}

uint64_t staging_ns(uint64_t bytes, bool to_device) {
  const double rate = to_device ? kStageToDeviceBytesPerNs : kStageFromDeviceBytesPerNs;
  return static_cast<uint64_t>(static_cast<double>(bytes) / rate + 0.5);
}

}  // namespace minicuda::libcuda::host_clock
