// sm: one streaming multiprocessor's execution of a thread block, on the host worker thread
// that the compute engine lends it.
//
// A block's CUDA threads run one after another on that host thread. Most kernels never reach a
// barrier or a warp operation, so a block starts in *loop mode*: one fiber calls the kernel's
// entry for thread 0, 1, 2, ... with threadIdx set, and pays nothing per thread but the call.
// The first thread that reaches __syncthreads, __syncwarp, a shuffle or a vote turns the block
// into *fiber mode*: it keeps the fiber it runs on, the threads before it have already finished
// (they never reached a barrier), and every later thread gets a fiber of its own (Boost.Context
// fcontext: a register swap, no system call). A thread that must wait switches straight to the
// next runnable thread; a barrier releases its waiters when the last live thread arrives, a warp
// operation when every lane of its mask has arrived (or exited). A block in loop mode that ends
// is followed at once, on the same fiber, by the next block the host thread has claimed.
//
// Faults: kernel code touches global memory through plain pointers (device pointers are host
// addresses, see mmu in device.h), so an access the GPU's page tables do not allow is a host
// SIGSEGV on this thread. A signal handler, armed only while kernel code runs, records the
// address and leaves the block through siglongjmp to the faulting fiber's entry. On x86-64 the
// alignment-check flag (EFLAGS.AC) is set while kernel code runs, so a misaligned access in the
// kernel's own code is a SIGBUS (BUS_ADRALN) - the GPU's misaligned-address error; misaligned
// accesses inside C library routines are let through (AC is cleared for that instruction).
// assert() and __trap() leave the block the same way.
//
// Who talks to it: the compute engine (compute_engine.cpp) runs blocks through run_blocks(); the
// intrinsics of device_code.h (isa::*) call into the block running on the calling thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "minicuda/device_code.h"
#include "nv_kernel_code.h"
#include "nv_sass.h"

namespace minicuda::gpu {

class GridCounters;  // simt_counters.h
class DeviceLaunchQueue;  // device_launch_queue.h
class HeapTurn;  // device_heap.h
class ClusterRun;  // sm_cluster.h

// The grid-wide barrier of a cooperative launch (grid_group::sync). Every block of such a grid
// runs on a host thread of its own, all at once (compute_engine.cpp), so a block that arrives
// simply blocks its host thread until every block that has not exited has arrived. Thread-safe.
class GridBarrier {
 public:
  explicit GridBarrier(uint64_t blocks) : blocks_(blocks) {}
  // False when the grid stopped (another block raised an error) instead of the barrier opening.
  bool arrive_and_wait() {
    std::unique_lock lock(mutex_);
    if (broken_) return false;
    const uint64_t generation = generation_;
    if (++arrived_ + exited_ >= blocks_) {
      open_locked();
      return true;
    }
    opened_.wait(lock, [&] { return broken_ || generation_ != generation; });
    return generation_ != generation;
  }
  // A block has finished: the barrier no longer waits for it.
  void block_exited() {
    std::lock_guard lock(mutex_);
    ++exited_;
    if (arrived_ > 0 && arrived_ + exited_ >= blocks_) open_locked();
  }
  // A block raised an error: every block waiting (or arriving later) leaves the barrier.
  void stop() {
    std::lock_guard lock(mutex_);
    broken_ = true;
    opened_.notify_all();
  }

 private:
  void open_locked() {
    arrived_ = 0;
    ++generation_;
    opened_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable opened_;
  uint64_t blocks_, arrived_ = 0, exited_ = 0, generation_ = 0;
  bool broken_ = false;
};

// What the compute engine decoded from a QMD: everything an SM needs to run the grid's blocks.
struct GridLaunch {
  const char* kernel_name = "?";
  KernelEntry entry = nullptr;
  KernelBlockEntry block_entry = nullptr;  // optional: the loop-mode fast path
  KernelRegionEntry region_entry = nullptr;  // optional: the block as regions (cu2cxx fission)
  const NvSassProgram* sass = nullptr;  // a kernel compiled from PTX: the SIMT executor runs it (simt.h)
  const void* params = nullptr;    // the parameter buffer (constant bank 0), host copy
  dim3 grid, block;
  uint32_t dynamic_shared = 0;     // bytes of extern __shared__ memory per block
  uint8_t* printf_buffer = nullptr;  // the driver's printf FIFO (NvMinicudaPrintfFifo), or null
  uint32_t printf_bytes = 0;
  GridBarrier* grid_barrier = nullptr;  // a cooperative launch's grid-wide barrier, else null
  uint64_t grid_workspace = 0;
  // Thread block clusters (sm_cluster.h): the blocks per cluster in each dimension (1x1x1: every
  // block is a cluster of its own), whether the launch named a cluster shape at all (%is_explicit_cluster),
  // and for a block of a cluster of more than one block: its cluster's shared state and its rank in it.
  dim3 cluster{1, 1, 1};
  bool cluster_explicit = false;
  ClusterRun* cluster_run = nullptr;
  unsigned cluster_rank = 0;
  // The call stack per thread (the QMD's SHADER_LOCAL_MEMORY_HIGH_SIZE, cudaLimitStackSize): a
  // program's local variables and its recursive calls' frames together must fit (simt.h).
  uint64_t stack_bytes = 1024;  // a cooperative launch: the driver's grid workspace (constant bank 2), else 0
  GridCounters* counters = nullptr;  // SASS kernels: where the SIMT executor counts (simt_counters.h), or null
  DeviceLaunchQueue* children = nullptr;  // where its device-side launches go (device_launch_queue.h)
  // The context's device malloc heap (constant bank 4, nv_device_heap.h), or null; and the order
  // of its blocks' heap calls (device_heap.h; null: the calls are not ordered, as in a cooperative grid).
  uint8_t* heap = nullptr;
  HeapTurn* heap_turn = nullptr;
};

// The errors a kernel can raise; each stops the grid and becomes a channel error.
enum class KernelErrorKind : uint8_t {
  IllegalAddress,     // an access the page tables do not allow (cudaErrorIllegalAddress, 700)
  MisalignedAddress,  // an access not aligned to its size (cudaErrorMisalignedAddress, 716)
  Assert,             // a failed device assert (cudaErrorAssert, 710)
  Trap,               // __trap(), or what a real GPU would only report as a launch failure (719)
  IllegalInstruction, // an undefined instruction (ud2, __builtin_trap) (cudaErrorIllegalInstruction, 715)
  StackOverflow,      // a thread ran off its stack (cudaErrorLaunchFailure, 719)
};

struct KernelError {
  KernelErrorKind kind = KernelErrorKind::Trap;
  uint64_t address = 0;  // IllegalAddress / MisalignedAddress: the address touched
  bool write = false;
  uint3 block{0, 0, 0};
  uint3 thread{0, 0, 0};
  std::string message;   // the line a report and the trace show (assert: CUDA's own form)
};


// Hands a grid's blocks out to the host threads that run them, in order of their linear index
// (x fastest), a few at a time: one atomic add per claim, not per block. Thread-safe. The
// counter has a cache line of its own: every host thread reads the rest (the grid's shape, the
// stop flag) at every block, and a claim's write must not take that line from them.
class BlockQueue {
 public:
  BlockQueue(dim3 grid, uint64_t blocks_per_claim)
      : grid_(grid), blocks_(uint64_t{grid.x} * grid.y * grid.z), per_claim_(blocks_per_claim ? blocks_per_claim : 1) {}
  // Only block `only` of the grid (a cooperative launch gives each block a host thread).
  BlockQueue(dim3 grid, uint64_t only, bool) : BlockQueue(grid, 1) {
    next_ = only;
    blocks_ = only + 1;
  }
  // Claims the next blocks [*begin, *end); false when none is left or the grid has stopped.
  // With a heap turn, the claiming host thread's first unfinished block is published around it.
  bool claim(uint64_t* begin, uint64_t* end) {
    if (stopped_.load(std::memory_order_relaxed)) return false;
    if (heap_turn_ != nullptr) return claim_in_turn(begin, end);
    uint64_t b = next_.fetch_add(per_claim_, std::memory_order_relaxed);
    if (b >= blocks_) return false;
    *begin = b;
    *end = b + per_claim_ < blocks_ ? b + per_claim_ : blocks_;
    return true;
  }
  // Orders the grid's heap calls by block (device_heap.h); set before any claim.
  void set_heap_turn(HeapTurn* turn) { heap_turn_ = turn; }
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  void stop() { stopped_.store(true, std::memory_order_relaxed); }
  uint64_t blocks() const { return blocks_; }
  uint3 index(uint64_t linear) const {
    return uint3{static_cast<unsigned>(linear % grid_.x), static_cast<unsigned>(linear / grid_.x % grid_.y),
                 static_cast<unsigned>(linear / (uint64_t{grid_.x} * grid_.y))};
  }

 private:
  bool claim_in_turn(uint64_t* begin, uint64_t* end);  // device_heap.cpp

  alignas(64) dim3 grid_;
  uint64_t blocks_, per_claim_;
  HeapTurn* heap_turn_ = nullptr;
  std::atomic<bool> stopped_{false};
  alignas(64) std::atomic<uint64_t> next_{0};
  [[maybe_unused]] char after_next_[64 - sizeof(std::atomic<uint64_t>)] = {};  // next_'s line: next_ alone
};

// The first error of a block, with the block's linear index.
struct BlockError {
  uint64_t block = 0;
  KernelError error;
  bool stopped = false;  // the block only left a grid barrier because another block's error stopped the grid
};

// Runs blocks of `launch` claimed from `queue` on the calling host thread until none is left,
// and returns the first error a thread raised (its block stops there; the queue is stopped so
// that every other host thread stops too), or nothing. Blocks that never reach a barrier run
// back to back in one loop fiber, with nothing between them but the claim. Thread-safe: each
// host thread has its own fibers, stacks and signal stack.
std::optional<BlockError> run_blocks(const GridLaunch& launch, BlockQueue& queue);

// Is the calling host thread running kernel code right now?
bool in_kernel();

// Appends `length` bytes of device printf output to the launch's printf FIFO (constant bank 1),
// or counts a dropped record when it does not fit. Thread-safe (the FIFO's offsets are atomic).
void append_printf(const GridLaunch& launch, const char* text, uint32_t length);

}  // namespace minicuda::gpu
