// sm_block: the block an SM runs on a host thread (BlockRun) and what its threads share -
// private to the SM: sm.cpp runs blocks (loop mode, fibers, barriers, warp operations, faults),
// sm_isa.cpp holds the intrinsics kernel code calls into it. See sm.h for the model.
#pragma once

#include <boost/context/detail/fcontext.hpp>
#include <csetjmp>
#include <optional>
#include <string>
#include <vector>

#include "sm.h"
#include "sm_signals.h"

// The writable names of blockIdx/blockDim/gridDim (defined in sm.cpp; see device_code.h).
extern thread_local constinit uint3 sm_block_idx __asm__("blockIdx") MINICUDA_TLS;
extern thread_local constinit uint3 sm_block_dim __asm__("blockDim") MINICUDA_TLS;
extern thread_local constinit uint3 sm_grid_dim __asm__("gridDim") MINICUDA_TLS;

namespace minicuda::gpu::sm {

namespace fctx = boost::context::detail;

constexpr unsigned kWarp = 32;

// Barriers, thread exits and the step to the next block run with the alignment check left on
// (no popf) only when optimised: at -O0 g++ copies small structs through 8-byte moves at
// 4-byte-aligned stack slots, and each would be an alignment trap (a signal) there.
#if defined(__OPTIMIZE__)
inline constexpr bool kSwitchesUnderAlignmentCheck = true;
#else
inline constexpr bool kSwitchesUnderAlignmentCheck = false;
#endif

// An intrinsic called from kernel code: the SM's own code (and any fiber switch) runs with AC
// off, the kernel's resumes with it on. (Each switch of the flag is a slow popf, part of what a
// barrier costs; with AC left on, the scheduler's own struct copies would trap instead.)
class SmCode {
 public:
  SmCode() { alignment_check(false); }
  ~SmCode() {
    if (t_fault_jump != nullptr) alignment_check(true);
  }
};

class StackPool;  // sm.cpp

// --- the block being run ------------------------------------------------------------------

enum class ThreadState : uint8_t { Runnable, AtBarrier, AtWarp, Done };

struct ThreadSlot {
  fctx::fcontext_t context = nullptr;
  void* stack = nullptr;
  sigjmp_buf* jump = nullptr;  // where a fault leaves this thread (its fiber's entry)
  uint3 index{0, 0, 0};        // its threadIdx (no division at each switch)
  ThreadState state = ThreadState::Runnable;
  bool spinning = false;  // in a wait loop of kernel code (spin_wait), its condition not yet met
};

// What a warp operation computes (sm_warp.cpp). Compute (wmma's mma_sync): the operation's
// `complete` runs once over every lane's value, and each lane gets the lanes that took part.
// Converge is __activemask: it completes when
// every live lane of the warp waits somewhere (at a warp operation, a barrier) or has exited, and
// gives each lane the lanes that wait at the same call site (mask names the site there).
enum class WarpOpKind : uint8_t { Sync, Shuffle, Vote, Match, Reduce, Converge, Compute };
enum class VoteMode : uint8_t { Ballot, Any, All };
enum class MatchMode : uint8_t { Any, All };
enum class ReduceMode : uint8_t { Add, MinU, MaxU, MinS, MaxS, And, Or, Xor };

// Neighbouring 4-byte fields come in pairs at 8-byte-aligned offsets: a shuffle fills them with
// the alignment check on, and g++ may store a pair with one 8-byte move.
struct WarpOp {
  WarpOpKind kind;
  unsigned mask;
  uint64_t site = 0;  // Converge: the call site
  isa::WarpComputation complete = nullptr;  // Compute
  int mode = 0, width = kWarp;
  unsigned arrived = 0;
  uint64_t values[kWarp] = {};
  int args[kWarp] = {};
};

struct Warp {
  unsigned exited = 0;  // lanes whose thread has returned
  unsigned present = 0; // lanes that exist (the last warp of a block may be partial)
  std::vector<WarpOp> pending;
  uint64_t results[kWarp] = {};
};

struct Jump {
  sigjmp_buf buf;
};


class BlockRun;
extern thread_local constinit BlockRun* t_block MINICUDA_TLS;  // the block running on this host thread

inline uint3 unflatten(unsigned linear, dim3 dims) {
  return uint3{linear % dims.x, (linear / dims.x) % dims.y, linear / (dims.x * dims.y)};
}

class BlockRun {
 public:
  BlockRun(StackPool& stacks, std::vector<uint8_t>& shared) : stacks_(stacks), shared_(shared) {}

  std::optional<BlockError> run_blocks(const GridLaunch& launch, BlockQueue& queue);

  // The intrinsics (device_code.h, isa::*).
  void syncthreads(int op, int predicate, int* result);
  uint64_t warp_op(WarpOpKind kind, unsigned mask, uint64_t value, int mode, int arg, int width, uint64_t site = 0,
                   isa::WarpComputation complete = nullptr);
  // __activemask: the lanes of the caller's warp that reach the same call site together.
  unsigned activemask(uint64_t site) {
    return static_cast<unsigned>(warp_op(WarpOpKind::Converge, ~0u, 0, 0, 0, kWarp, site));
  }
  // A thread whose wait condition is unmet lets the block's other threads run (isa::spin_wait).
  // False when the wait can never end: no other thread can run, or every runnable thread spins
  // and none has made progress for two rounds.
  bool spin_wait();
  // The caller's wait condition is met (isa::spin_done).
  void spin_done();
  // A grid-wide barrier (grid_group::sync): false when the launch is not cooperative.
  bool grid_sync();
  // The cluster barrier and distributed shared memory (sm_cluster.cpp): the calling thread's
  // arrival; its wait for the phase it arrived in; another block's address of the shared byte at p;
  // the rank of the block whose shared memory holds p (the cluster's size if none does).
  void cluster_arrive();
  void cluster_wait();
  void* cluster_map_shared(const void* p, unsigned rank);
  unsigned cluster_shared_rank(const void* p);
  // In loop mode: the running thread's index, from threadIdx.
  unsigned loop_thread() const {
    return threadIdx.x + launch_->block.x * (threadIdx.y + launch_->block.y * threadIdx.z);
  }
  // The lanes of warp w that exist (the last warp of a block may be partial).
  unsigned present_lanes(unsigned w) const {
    unsigned lanes = std::min(kWarp, threads_ - w * kWarp);
    return lanes == kWarp ? ~0u : (1u << lanes) - 1;
  }
  unsigned char* dynamic_shared() { return shared_.data(); }
  const GridLaunch& launch() const { return *launch_; }
  uint3 thread_index(unsigned t) const { return unflatten(t, launch_->block); }
  // The thread running now: threadIdx, or in a block function (whose regions may shadow
  // threadIdx with a local) the thread its region loop last announced (fission.h at_thread).
  uint3 running_thread() const { return region_mode_ ? thread_index(t_region_thread) : threadIdx; }
  bool region_mode() const { return region_mode_; }
  // For gdb (mc-block): the block, its mode and each CUDA thread's state, one per line.
  std::string describe() const;

 private:
  static void loop_main(fctx::transfer_t from);
  static void fiber_main(fctx::transfer_t from);
  void demote();
  void resume(unsigned t);
  void switch_away();
  [[noreturn]] void exit_fiber();
  unsigned next_runnable() const;
  bool landed(fctx::transfer_t from);
  void* stack_of(unsigned t) const { return slots_[t].stack != nullptr ? slots_[t].stack : loop_stack_; }
  void thread_exited(unsigned t);
  void release_barrier();
  void try_complete(Warp& warp);
  bool ready(const Warp& warp, const WarpOp& op) const;
  static uint64_t lane_result(const WarpOp& op, unsigned lane);
  void record_fault();
  void exception_escaped() {
    t_kernel_error = KernelError{};
    t_kernel_error.message = "a C++ exception escaped the kernel (device code cannot throw)";
    t_kernel_error_pending = true;
    record_fault();
  }
  // Component by component: this runs with the alignment check on (a fiber switch), where a
  // whole-struct copy may become an 8-byte move at a 4-byte-aligned address.
  void set_thread(unsigned t) {
    current_ = t;
    const uint3 idx = fiber_mode_ ? slots_[t].index : thread_index(t);
    __atomic_store_n(&threadIdx.x, idx.x, __ATOMIC_RELAXED);
    __atomic_store_n(&threadIdx.y, idx.y, __ATOMIC_RELAXED);
    __atomic_store_n(&threadIdx.z, idx.z, __ATOMIC_RELAXED);
  }
  bool next_block();
  void start_block();
  // A barrier or warp operation reached inside a block function (which cu2cxx only emits for
  // kernels it judged to have none outside the regions' seams): the grid stops with an error
  // naming the kernel, instead of a wrong result or a hang.
  [[noreturn]] void region_violation(const char* what);


  StackPool& stacks_;
  std::vector<uint8_t>& shared_;
  const GridLaunch* launch_ = nullptr;
  BlockQueue* queue_ = nullptr;
  uint64_t block_ = 0, claimed_end_ = 0;  // the running block, the end of this thread's claim
  unsigned threads_ = 0, current_ = 0, exited_ = 0;
  bool fiber_mode_ = false;
  bool region_mode_ = false;  // the block runs through its block function (launch_->region_entry)
  // A barrier was just released: the next thread to run is the lowest runnable one, so that
  // threads leave a barrier in index order, as a split kernel's regions run them.
  bool from_lowest_ = false;
  std::vector<ThreadSlot> slots_;
  std::vector<Warp> warps_;
  std::vector<Jump> jumps_;  // one per thread fiber (fiber mode only)
  Jump loop_jump_;           // where a fault leaves the loop fiber
  fctx::fcontext_t scheduler_ = nullptr;
  void* loop_stack_ = nullptr;             // the loop fiber's stack
  const void* scheduler_bottom_ = nullptr;  // the scheduler's stack, for AddressSanitizer
  size_t scheduler_size_ = 0;
  unsigned at_barrier_ = 0;
  int barrier_count_ = 0, barrier_and_ = 1, barrier_or_ = 0, barrier_result_[3] = {0, 0, 0};
  std::optional<KernelError> error_;
  uint64_t grid_syncs_ = 0;       // grid barriers the block has passed (grid_sync)
  // The cluster barrier: threads of the block that arrived in its current phase; whether the
  // block as a whole has arrived (and in which phase of the cluster's barrier); waits it has passed.
  unsigned cluster_arrivals_ = 0;
  bool cluster_arrived_ = false;
  uint64_t cluster_phase_ = 0, cluster_waits_ = 0;
  // The block's arrival at its cluster's barrier, once all its live threads have arrived.
  void cluster_block_arrives();
  // Raises the kernel error of a cluster operation the block cannot do.
  [[noreturn]] void cluster_misuse(std::string message);
  uint64_t spin_progress_ = 0, spin_seen_ = 0;  // waits begun or ended; its value at the last check
  unsigned spin_stalled_ = 0;                   // spin_waits since then with every runnable thread spinning
  bool stopped_by_grid_ = false;  // the block left a grid barrier because the grid stopped
};

// The block running on the calling host thread, if the caller is kernel code; otherwise a
// message on stderr (an intrinsic called from host code) and null.
// Inline: every barrier asks.
[[gnu::cold, gnu::noinline]] void called_outside_a_kernel(const char* what);
inline BlockRun* current_block(const char* what) {
  if (t_fault_jump != nullptr && t_block != nullptr) [[likely]]
    return t_block;
  called_outside_a_kernel(what);
  return nullptr;
}

}  // namespace minicuda::gpu::sm
