// sm_cluster: thread block clusters (compute capability 9.0), the state the blocks of one cluster
// share while they run. The compute engine (compute_engine.cpp, run_clusters) starts every block of
// a cluster at once, each on a host thread of its own (as the GPU makes a cluster's blocks
// co-resident on the SMs of one GPC), so a block that waits at the cluster barrier may simply block
// its host thread: the blocks it waits for are running. Distributed shared memory: each block
// publishes where its shared memory lies (its dynamic shared memory, and the host thread whose
// thread-local storage holds its static __shared__ variables), and map_shared_rank translates an
// address of one block's shared memory into the same offset in another's.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "minicuda/device_code.h"

namespace minicuda::gpu {

// The blocks of a cluster and the grid in clusters. `cluster` is 1x1x1 for a launch without one.
struct ClusterShape {
  dim3 grid, cluster;
  dim3 clusters() const { return dim3(grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z); }
  unsigned size() const { return cluster.x * cluster.y * cluster.z; }
  // The rank of the block at blockIdx b in its cluster (x fastest), and its cluster's index.
  unsigned rank_of(uint3 b) const {
    return b.x % cluster.x + cluster.x * (b.y % cluster.y + cluster.y * (b.z % cluster.z));
  }
  uint3 cluster_of(uint3 b) const { return uint3{b.x / cluster.x, b.y / cluster.y, b.z / cluster.z}; }
  // The grid-linear index of the block of rank r in cluster number c (clusters in x-fastest order).
  uint64_t block_of(uint64_t c, unsigned r) const {
    const dim3 n = clusters();
    const uint64_t cx = c % n.x, cy = c / n.x % n.y, cz = c / (uint64_t{n.x} * n.y);
    const uint64_t bx = cx * cluster.x + r % cluster.x, by = cy * cluster.y + r / cluster.x % cluster.y,
                   bz = cz * cluster.z + r / (cluster.x * cluster.y);
    return bx + uint64_t{grid.x} * (by + uint64_t{grid.y} * bz);
  }
};

// Where a block's shared memory lies, for map_shared_rank.
struct SharedWindow {
  unsigned char* dynamic = nullptr;  // its extern __shared__ memory
  size_t dynamic_bytes = 0;
  uintptr_t thread_pointer = 0;      // the host thread whose thread-local storage holds its static __shared__
};

// The bound on how far below (x86-64) or above (AArch64) its thread pointer a host thread's static
// thread-local storage, and so a block's static __shared__ memory, may lie. Host threads' thread
// pointers are at least a thread stack (8 MiB) apart.
inline constexpr uintptr_t kStaticSharedReach = 1u << 20;

// One cluster's barrier (barrier.cluster: cluster_group::sync, barrier_arrive/barrier_wait) and
// shared-memory windows. Thread-safe: its blocks run on different host threads.
class ClusterRun {
 public:
  explicit ClusterRun(unsigned blocks) : blocks_(blocks), windows_(blocks), published_(blocks, false) {}

  // The block of rank r has started: where its shared memory is.
  void publish(unsigned rank, const SharedWindow& window) {
    std::lock_guard lock(mutex_);
    windows_[rank] = window;
    published_[rank] = true;
    changed_.notify_all();
  }
  // Rank r's window, waiting until that block has started (every block of a cluster is started
  // together, so the wait is short); nullopt when the cluster stopped first.
  std::optional<SharedWindow> window(unsigned rank) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return broken_ || published_[rank]; });
    if (!published_[rank]) return std::nullopt;
    return windows_[rank];
  }
  // The block's arrival at the barrier (every one of its threads has arrived): returns the phase it
  // arrived in, which opens when every block that has not exited has arrived.
  uint64_t arrive() {
    std::lock_guard lock(mutex_);
    const uint64_t phase = generation_;
    if (++arrived_ + exited_ >= blocks_) open_locked();
    return phase;
  }
  // Waits for `phase` to open; false when the cluster stopped (another block's error) instead.
  bool wait(uint64_t phase) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return broken_ || generation_ != phase; });
    return generation_ != phase;
  }
  // A block has finished: no phase waits for it any more. `pending`: the phase it arrived in and
  // did not wait for (its arrival there is already counted), if any.
  void block_exited(std::optional<uint64_t> pending) {
    std::lock_guard lock(mutex_);
    if (pending && *pending == generation_ && arrived_ > 0) --arrived_;
    ++exited_;
    if (arrived_ > 0 && arrived_ + exited_ >= blocks_) open_locked();
  }
  // A block raised an error: every block waiting (or arriving later) leaves the barrier.
  void stop() {
    std::lock_guard lock(mutex_);
    broken_ = true;
    changed_.notify_all();
  }
  unsigned blocks() const { return blocks_; }

 private:
  void open_locked() {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  const unsigned blocks_;
  unsigned arrived_ = 0, exited_ = 0;
  uint64_t generation_ = 0;
  bool broken_ = false;
  std::vector<SharedWindow> windows_;
  std::vector<bool> published_;
};

}  // namespace minicuda::gpu
