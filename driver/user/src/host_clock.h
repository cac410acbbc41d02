// Private to libcuda: the host timeline (docs/timing.md). Each host thread has a simulated clock
// of its own, in nanoseconds, that never reads the host's real clock:
//   - an API call that submits work costs the host what it cost on an H200 (the constants below,
//     from docs/data/h200_timing.txt), and so does the CPU's memcpy of a pageable copy through
//     the staging buffer;
//   - the work it submits carries the clock's time to the GPU in the pushbuffer
//     (NVC56F_MINICUDA_SET_HOST_TIME, Channel::submit), and cannot start before it;
//   - when the thread waits for the GPU, its clock moves on to the simulated time at which the
//     work it waited for completed (Channel::wait reads the fence's timestamp).
// So the same program gets the same host times on every run, and work submitted after a wait
// starts no earlier than the wait ended.
#pragma once

#include <cstdint>

namespace minicuda::libcuda::host_clock {

// Measured host costs of one call on the H200 (h200_timing.txt: host_cudaLaunchKernel_call
// 4.276 us, host_cudaEventRecord_call 1.388 us, host_cudaMemcpyAsync_4B_pinned_call 2.257 us),
// as docs/timing.md rounds them. A memset and a synchronous copy submit as a cudaMemcpyAsync
// does, so they cost the same; every other call costs nothing but its waits.
inline constexpr uint64_t kLaunchNs = 4300;
inline constexpr uint64_t kEventRecordNs = 1400;
inline constexpr uint64_t kCopyNs = 2300;
// Prebuilt work (an executable graph's, prebuilt.h), as the H200 costs a graph of N empty
// kernels (tests/data/h200/graph_launch/probe_graph_launch.txt): cudaGraphLaunch 2.06 us for
// N = 1, 1.98 for 10, 2.07 for 100, 6.48 for 1000, so a launch costs 2 us and 4.5 ns a step
// (kPrebuiltLaunchNs + steps * kPrebuiltLaunchPerTwoStepsNs / 2); cudaGraphUpload 144 us for 100,
// 1141 for 1000, so recording a step costs 1.1 us instead of the call's own cost.
inline constexpr uint64_t kPrebuiltLaunchNs = 2000;
inline constexpr uint64_t kPrebuiltLaunchPerTwoStepsNs = 9;
inline constexpr uint64_t kPrebuiltRecordNs = 1100;

// This thread's simulated host time (0 when the thread starts).
uint64_t now();
// The host works ns: the clock moves on.
void spend(uint64_t ns);
// The host waited for work that completed at GPU time t: the clock moves on to t if it is later.
void reach(uint64_t t);
// What the CPU's memcpy of bytes into (to_device) or out of the pinned staging buffer costs.
uint64_t staging_ns(uint64_t bytes, bool to_device);

}  // namespace minicuda::libcuda::host_clock
