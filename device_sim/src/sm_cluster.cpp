// sm_cluster: the cluster barrier and distributed shared memory as a block's threads use them
// (cluster_group, the __cluster_* built-ins; sm_cluster.h has the model).
//
// The barrier: each thread's arrival is counted in its block; when every live thread of the block
// has arrived, the block arrives at its cluster's barrier (ClusterRun::arrive, which never blocks).
// A wait first meets the block's other threads at a block barrier (each has arrived before it
// waits), then the first of them to leave it waits, blocking the host thread, for the cluster's
// phase to open, and a second block barrier holds the rest until it is back (as grid.sync does in
// sm_grid.cpp). So a block's arrival is seen by the other blocks as soon as its last thread
// arrives, and the cluster's blocks, each on a host thread of its own, never wait for a block that
// cannot run. A launch without a cluster is a cluster of one block: the barrier is the block's.
#include <fmt/format.h>

#include "sm_block.h"
#include "sm_cluster.h"

namespace minicuda::gpu::sm {

void BlockRun::cluster_misuse(std::string message) {
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  e.message = std::move(message);
  raise_kernel_error(std::move(e));
}

void BlockRun::cluster_block_arrives() {
  cluster_arrivals_ = 0;
  cluster_arrived_ = true;
  if (launch_->cluster_run != nullptr) cluster_phase_ = launch_->cluster_run->arrive();
}

void BlockRun::cluster_arrive() {
  if (region_mode_) region_violation("the cluster barrier (barrier.cluster.arrive)");
  // In loop mode exited_ lags (it counts the threads that finished only at the first barrier),
  // which can only delay the block's arrival to its wait below.
  if (++cluster_arrivals_ + exited_ >= threads_) cluster_block_arrives();
}

void BlockRun::cluster_wait() {
  if (region_mode_) region_violation("the cluster barrier (barrier.cluster.wait)");
  const uint64_t round = cluster_waits_;
  syncthreads(0, 0, nullptr);
  alignment_check(false);
  if (cluster_waits_ == round) {
    cluster_waits_ = round + 1;
    // Every live thread is here, so every one arrived (or waits without having arrived, which
    // the GPU leaves undefined: it counts as arrived here).
    if (!cluster_arrived_) cluster_block_arrives();
    cluster_arrived_ = false;
    if (launch_->cluster_run != nullptr && !launch_->cluster_run->wait(cluster_phase_)) {
      stopped_by_grid_ = true;
      cluster_misuse("the cluster stopped at its barrier after another block's error");
    }
  }
  syncthreads(0, 0, nullptr);
  alignment_check(false);
}

namespace {

// Where p lies in a block's shared memory (window w): its offset in the dynamic part, or its
// distance from the thread pointer in the static part. False if neither holds it.
struct SharedOffset {
  bool dynamic = false;
  intptr_t offset = 0;
};
std::optional<SharedOffset> shared_offset(const SharedWindow& w, const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const auto d = reinterpret_cast<uintptr_t>(w.dynamic);
  if (w.dynamic != nullptr && a >= d && a < d + w.dynamic_bytes) return SharedOffset{true, static_cast<intptr_t>(a - d)};
  const intptr_t from_tp = static_cast<intptr_t>(a - w.thread_pointer);
  if (from_tp != 0 && from_tp > -static_cast<intptr_t>(kStaticSharedReach) &&
      from_tp < static_cast<intptr_t>(kStaticSharedReach))
    return SharedOffset{false, from_tp};
  return std::nullopt;
}

SharedWindow own_window(unsigned char* dynamic, size_t bytes) {
  return SharedWindow{dynamic, bytes, reinterpret_cast<uintptr_t>(__builtin_thread_pointer())};
}

}  // namespace

void* BlockRun::cluster_map_shared(const void* p, unsigned rank) {
  ClusterRun* run = launch_->cluster_run;
  const unsigned size = run != nullptr ? run->blocks() : 1;
  if (rank >= size)
    cluster_misuse(fmt::format("map_shared_rank: rank {} is outside the cluster of {} block(s) (kernel {})", rank, size,
                               launch_->kernel_name));
  const std::optional<SharedOffset> at = shared_offset(own_window(shared_.data(), launch_->dynamic_shared), p);
  if (!at)
    cluster_misuse(fmt::format("map_shared_rank: {} is not an address of the block's shared memory (kernel {})", p,
                               launch_->kernel_name));
  if (run == nullptr || rank == launch_->cluster_rank) return const_cast<void*>(p);
  const std::optional<SharedWindow> w = run->window(rank);
  if (!w) cluster_misuse("map_shared_rank: the cluster stopped after another block's error");
  if (at->dynamic) return w->dynamic + at->offset;
  return reinterpret_cast<void*>(w->thread_pointer + static_cast<uintptr_t>(at->offset));
}

unsigned BlockRun::cluster_shared_rank(const void* p) {
  ClusterRun* run = launch_->cluster_run;
  if (run == nullptr)
    return shared_offset(own_window(shared_.data(), launch_->dynamic_shared), p) ? 0 : 1;
  for (unsigned r = 0; r < run->blocks(); ++r) {
    const std::optional<SharedWindow> w =
        r == launch_->cluster_rank ? own_window(shared_.data(), launch_->dynamic_shared) : run->window(r);
    if (w && shared_offset(*w, p)) return r;
  }
  return run->blocks();
}

}  // namespace minicuda::gpu::sm

namespace minicuda::gpu::isa {

using sm::BlockRun;
using sm::current_block;
using sm::SmCode;

ClusterInfo cluster_info() {
  ClusterInfo info{{1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 1, false};
  BlockRun* b = current_block("this_cluster");
  if (b == nullptr) return info;
  const GridLaunch& launch = b->launch();
  const ClusterShape shape{launch.grid, launch.cluster};
  const uint3 block = sm_block_idx;
  const uint3 cluster = shape.cluster_of(block);
  const dim3 clusters = shape.clusters();
  info = ClusterInfo{{launch.cluster.x, launch.cluster.y, launch.cluster.z},
                     {cluster.x, cluster.y, cluster.z},
                     {block.x % launch.cluster.x, block.y % launch.cluster.y, block.z % launch.cluster.z},
                     {clusters.x, clusters.y, clusters.z},
                     shape.rank_of(block),
                     shape.size(),
                     launch.cluster_explicit};
  return info;
}
void cluster_arrive() {
  SmCode sm_code;
  if (BlockRun* b = current_block("cluster barrier_arrive")) b->cluster_arrive();
}
void cluster_wait() {
  SmCode sm_code;
  if (BlockRun* b = current_block("cluster barrier_wait")) b->cluster_wait();
}
void* cluster_map_shared(const void* p, unsigned rank) {
  SmCode sm_code;
  BlockRun* b = current_block("map_shared_rank");
  return b == nullptr ? nullptr : b->cluster_map_shared(p, rank);
}
unsigned cluster_shared_rank(const void* p) {
  SmCode sm_code;
  BlockRun* b = current_block("query_shared_rank");
  return b == nullptr ? 1 : b->cluster_shared_rank(p);
}

}  // namespace minicuda::gpu::isa
