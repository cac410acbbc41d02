// device_launch_queue: the child grids a running grid launched from device code (CUDA dynamic
// parallelism, docs/dynamic-parallelism.md), waiting for the compute engine.
//
// Model: every grid the compute engine runs has a queue. The device runtime (device_runtime.cpp)
// appends a launch record to the queue of the grid whose block calls it; the compute engine,
// once the grid's blocks have all run, takes the records in a fixed order and runs each child
// grid, with a queue of its own, to completion (its children included) before the next; then
// the parent grid is complete. That is one schedule CDP2 allows (a child may start any time
// after its launch, and a parent completes only after its children), and it is deterministic:
// the order does not depend on which host thread ran which block:
//   - records are ordered by launching block (linear index), then by the order the block made
//     them (a block runs on one host thread, in the same order every time), so each stream's
//     launches keep their order and a launch after a __syncthreads follows those before it;
//   - tail launches (cudaStreamTailLaunch) come after every other child, as CDP2 requires
//     (they start only once the grid and all its other work are complete).
//
// Limits: the device-wide count of pending child grids (launched, not yet complete) is held in
// DeviceRuntimeLimits, shared by every queue of one compute engine; the nesting depth is the
// queue's. Thread-safe: blocks of a grid append from several host threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "minicuda/device.h"
#include "minicuda/device_code.h"
#include "minicuda/device_runtime.h"

namespace minicuda::gpu {

// The device runtime's limits (cudaLimitDevRuntimePendingLaunchCount, the nesting depth) and the
// count of pending child grids, for one GPU.
struct DeviceRuntimeLimits {
  // The deepest a grid may nest here: a host-launched grid is depth 0, its children 1, ...; a
  // launch whose child would be deeper fails with cudaErrorLaunchMaxDepthExceeded. The H200
  // accepted launches at depth 24 to 29 and beyond (tests/data/h200/cdp/out/probe_cdp.txt): CDP2
  // keeps no per-level state, so its nesting is bounded by the pending launches (each level's
  // grid stays pending while its subtree runs). The simulator runs a subtree as a nested call on
  // the engine's host thread, and caps the depth where that stack stays safe.
  static constexpr unsigned kMaxDepth = 256;
  // cudaLimitDevRuntimePendingLaunchCount's default.
  static constexpr uint64_t kDefaultPendingLaunches = 2048;
  std::atomic<uint64_t> pending_limit{kDefaultPendingLaunches};  // set by each host launch (QMD bank 3)
  std::atomic<uint64_t> pending{0};  // child grids launched and not yet complete
};

// One child grid as the device runtime recorded it.
struct DeviceLaunchRecord {
  devrt::KernelCode code;
  dim3 grid, block;
  uint32_t shared = 0;
  std::vector<uint64_t> params;  // the parameter buffer, 8-byte aligned
  uintptr_t stream = 0;          // 0 (NULL), tail launch, fire-and-forget, or a created stream
  uint64_t block_linear = 0;     // who launched it
  uint3 from_block{0, 0, 0}, from_thread{0, 0, 0};
  uint64_t sequence = 0;         // the order its block made it in
};

class DeviceLaunchQueue {
 public:
  DeviceLaunchQueue(DeviceRuntimeLimits& limits, const DeviceProperties& props, unsigned depth, const char* kernel)
      : limits_(limits), props_(props), depth_(depth), kernel_(kernel) {}
  DeviceLaunchQueue(const DeviceLaunchQueue&) = delete;
  DeviceLaunchQueue& operator=(const DeviceLaunchQueue&) = delete;
  // Child grids never taken (the grid stopped at an error) are no longer pending.
  ~DeviceLaunchQueue() { discard(); }

  unsigned depth() const { return depth_; }
  const char* kernel_name() const { return kernel_; }
  const DeviceProperties& properties() const { return props_; }
  DeviceRuntimeLimits& limits() { return limits_; }

  // Appends a record (its sequence is set here); false when the pending count is at its limit.
  bool push(DeviceLaunchRecord record);
  // The records in the order to run them (see above); the queue is then empty. Each stays
  // pending until the caller calls complete().
  std::vector<DeviceLaunchRecord> take();
  // One child grid taken from a queue has completed (or will never run).
  void complete() { limits_.pending.fetch_sub(1, std::memory_order_relaxed); }
  // Drops every record not taken (a grid that is run again from the start: MINICUDA_FISSION=check).
  void discard();

  // Per-thread last error of the device runtime, keyed by block and thread linear indices.
  void set_error(uint64_t thread_key, int error);
  int error(uint64_t thread_key, bool reset);

  // Device-side streams: each belongs to the block that created it.
  uintptr_t create_stream(uint64_t block_linear);
  bool destroy_stream(uint64_t block_linear, uintptr_t stream);
  bool stream_usable(uint64_t block_linear, uintptr_t stream);

 private:
  DeviceRuntimeLimits& limits_;
  const DeviceProperties& props_;
  const unsigned depth_;
  const char* kernel_;
  std::mutex mutex_;
  std::vector<DeviceLaunchRecord> records_;
  std::map<uint64_t, uint64_t> next_sequence_;  // per launching block
  std::map<uint64_t, int> errors_;
  std::set<std::pair<uint64_t, uintptr_t>> streams_;  // (block, handle) of live streams
  uintptr_t next_stream_ = 0x1000;
};

}  // namespace minicuda::gpu
