// sm_clock: the SM's cycle counter, as kernel code reads it through clock64().
//
// A real SM counts cycles of its own clock; code that spins on it ("wait 200 M cycles") waits
// a real span of time. Here the host's monotonic clock stands in, scaled to 1.98 GHz (the
// H200's SM clock, cudaDeviceProp::clockRate), so such a spin lasts about as long on minicuda
// as on the H200. The counter tells how long a kernel ran on the host; it is not the
// simulated timeline (docs/timing.md), which does not see what a kernel does.
#include <chrono>

#include "sm_block.h"

namespace minicuda::gpu::isa {

long long clock64() {
  sm::SmCode sm_code;  // clock_gettime runs with the alignment check off, as any SM code does
  constexpr long long kCyclesPerMicrosecond = 1980;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch()).count();
  return ns / 1000 * kCyclesPerMicrosecond + ns % 1000 * kCyclesPerMicrosecond / 1000;
}

}  // namespace minicuda::gpu::isa
