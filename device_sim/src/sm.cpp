// sm: runs thread blocks (see sm.h for the model: loop mode, fiber mode, faults).
#include "sm.h"
#include "sm_signals.h"

#include <boost/context/detail/fcontext.hpp>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#include <csetjmp>
#include <csignal>
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <link.h>
#include <mutex>
#include <sys/mman.h>
#include <ucontext.h>
#include <vector>

#include <fmt/format.h>

// The built-in variables of device_code.h. Kernel code sees blockIdx, blockDim and gridDim as
// const; the SM defines them here under other names, writable, bound by asm label to the symbols
// kernel code links against. This file reads and writes them only through these names.
thread_local constinit uint3 threadIdx MINICUDA_TLS{};
thread_local constinit uint3 sm_block_idx __asm__("blockIdx") MINICUDA_TLS{};
thread_local constinit uint3 sm_block_dim __asm__("blockDim") MINICUDA_TLS{};
thread_local constinit uint3 sm_grid_dim __asm__("gridDim") MINICUDA_TLS{};

namespace minicuda::gpu {
namespace {

namespace fctx = boost::context::detail;

// AddressSanitizer must be told when execution moves to another stack (a fiber switch), or it
// mistakes the switch for a stack overflow. start_switch names the stack about to run; the code
// that runs next calls finish_switch (and learns which stack it came from).
#if defined(__SANITIZE_ADDRESS__)
void start_switch(void** fake_stack, const void* bottom, size_t size) {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}
void finish_switch(void* fake_stack, const void** bottom, size_t* size) {
  __sanitizer_finish_switch_fiber(fake_stack, bottom, size);
}
#else
void start_switch(void**, const void*, size_t) {}
void finish_switch(void*, const void**, size_t*) {}
#endif

constexpr size_t kStackBytes = 256 << 10;  // per CUDA thread in fiber mode (virtual; touched lazily)
constexpr size_t kGuardBytes = 4096;
constexpr unsigned kWarp = 32;

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


// --- stacks ---------------------------------------------------------------------------------

// Fiber stacks of one host thread: mapped once with a guard page below, reused for every block.
class StackPool {
 public:
  ~StackPool() {
    for (void* base : all_) munmap(base, kStackBytes + kGuardBytes);
  }
  void* take() {  // the lowest usable address
    if (!free_.empty()) {
      void* s = free_.back();
      free_.pop_back();
#if defined(__SANITIZE_ADDRESS__)
      // Frames left on it by a fiber that never returned (a block that faulted, or a thread
      // that finished inside the SM's loop) keep their redzones poisoned: clear them.
      __asan_unpoison_memory_region(s, kStackBytes);
#endif
      return s;
    }
    void* base = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return nullptr;
    mprotect(base, kGuardBytes, PROT_NONE);
    all_.push_back(base);
    return static_cast<char*>(base) + kGuardBytes;
  }
  void give_back(void* stack) { free_.push_back(stack); }
  // Is addr inside some stack's guard page (a stack overflow)?
  bool in_guard(uint64_t addr) const {
    for (void* base : all_) {
      auto b = reinterpret_cast<uint64_t>(base);
      if (addr >= b && addr < b + kGuardBytes) return true;
    }
    return false;
  }

 private:
  std::vector<void*> all_, free_;
};

// --- the block being run ------------------------------------------------------------------

enum class ThreadState : uint8_t { Runnable, AtBarrier, AtWarp, Done };

struct ThreadSlot {
  fctx::fcontext_t context = nullptr;
  void* stack = nullptr;
  sigjmp_buf* jump = nullptr;  // where a fault leaves this thread (its fiber's entry)
  ThreadState state = ThreadState::Runnable;
};

enum class WarpOpKind : uint8_t { Sync, Shuffle, Ballot };

struct WarpOp {
  WarpOpKind kind;
  unsigned mask;
  unsigned arrived = 0;
  int mode = 0, width = kWarp;
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
thread_local BlockRun* t_block = nullptr;        // the block running on this host thread

uint3 unflatten(unsigned linear, dim3 dims) {
  return uint3{linear % dims.x, (linear / dims.x) % dims.y, linear / (dims.x * dims.y)};
}

class BlockRun {
 public:
  BlockRun(StackPool& stacks, std::vector<uint8_t>& shared) : stacks_(stacks), shared_(shared) {}

  std::optional<BlockError> run_blocks(const GridLaunch& launch, BlockQueue& queue);

  // The intrinsics (device_code.h, isa::*).
  void syncthreads(int op, int predicate, int* result);
  uint64_t warp_op(WarpOpKind kind, unsigned mask, uint64_t value, int mode, int arg, int width);
  unsigned activemask() const {
    unsigned w = (fiber_mode_ ? current_ : loop_thread()) / kWarp;
    if (!fiber_mode_) return present_lanes(w);  // loop mode: no lane of the warp has exited yet
    return warps_[w].present & ~warps_[w].exited;
  }
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

 private:
  static void loop_main(fctx::transfer_t from);
  static void fiber_main(fctx::transfer_t from);
  void demote();
  void resume(unsigned t);
  void yield();
  [[noreturn]] void exit_fiber();
  void thread_exited(unsigned t);
  void release_barrier();
  void try_complete(Warp& warp);
  void record_fault();
  void exception_escaped() {
    t_kernel_error = KernelError{};
    t_kernel_error.message = "a C++ exception escaped the kernel (device code cannot throw)";
    t_kernel_error_pending = true;
    record_fault();
  }
  void set_thread(unsigned t) {
    current_ = t;
    threadIdx = thread_index(t);
  }
  bool next_block();
  void start_block();


  StackPool& stacks_;
  std::vector<uint8_t>& shared_;
  const GridLaunch* launch_ = nullptr;
  BlockQueue* queue_ = nullptr;
  uint64_t block_ = 0, claimed_end_ = 0;  // the running block, the end of this thread's claim
  unsigned threads_ = 0, current_ = 0, exited_ = 0;
  bool fiber_mode_ = false;
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
};

std::optional<BlockError> BlockRun::run_blocks(const GridLaunch& launch, BlockQueue& queue) {
  launch_ = &launch;
  queue_ = &queue;
  claimed_end_ = block_ = 0;
  threads_ = launch.block.x * launch.block.y * launch.block.z;
  sm_block_dim = launch.block;
  sm_grid_dim = launch.grid;
  if (shared_.size() < launch.dynamic_shared) shared_.resize(launch.dynamic_shared);
  error_.reset();
  install_signal_handlers();
  t_block = this;
  while (!error_ && next_block()) {
    // Loop mode: one fiber runs every thread in turn (no per-thread state is set up for it), and
    // goes on with the next blocks for as long as none reaches a barrier.
    void* loop_stack = stacks_.take();
    loop_stack_ = loop_stack;
    set_thread(0);
    t_fault_jump = &loop_jump_.buf;
    void* fake_stack = nullptr;
    start_switch(&fake_stack, loop_stack, kStackBytes);
    fctx::transfer_t back = fctx::jump_fcontext(
        fctx::make_fcontext(static_cast<char*>(loop_stack) + kStackBytes, kStackBytes, &loop_main), this);
    finish_switch(fake_stack, nullptr, nullptr);
    t_fault_jump = nullptr;
    if (fiber_mode_) slots_[current_].context = back.fctx;  // the loop fiber is now that thread's
    // Fiber mode (a thread reached a barrier): round-robin over the runnable threads.
    while (fiber_mode_ && exited_ < threads_ && !error_) {
      bool progressed = false;
      for (unsigned t = 0; t < threads_ && !error_; ++t) {
        if (slots_[t].state != ThreadState::Runnable) continue;
        resume(t);
        progressed = true;
      }
      if (!progressed && !error_) {
        KernelError e;
        e.kind = KernelErrorKind::Trap;
        e.block = sm_block_idx;
        e.message = fmt::format("deadlock: {} of {} threads wait at __syncthreads and the others at a warp "
                                "operation or barrier they can never complete",
                                at_barrier_, threads_ - exited_);
        error_ = e;
      }
    }
    if (fiber_mode_) {
      for (ThreadSlot& s : slots_)
        if (s.stack != nullptr) stacks_.give_back(s.stack), s.stack = nullptr;
    }
    stacks_.give_back(loop_stack);
    alignment_check(false);  // the engine's own code runs unchecked
  }
  t_block = nullptr;
  if (!error_) return std::nullopt;
  queue.stop();
  return BlockError{block_, std::move(*error_)};
}

// Moves on to the next block of this thread's claim (claiming more when it is used up), and
// resets the per-block state. Runs inside the loop fiber with the alignment check on: every
// store here is an aligned one of its own size.
bool BlockRun::next_block() {
  if (queue_->stopped()) return false;
  if (++block_ >= claimed_end_ && !queue_->claim(&block_, &claimed_end_)) return false;
  uint3 idx = queue_->index(block_);
  __atomic_store_n(&sm_block_idx.x, idx.x, __ATOMIC_RELAXED);  // component by component (no
  __atomic_store_n(&sm_block_idx.y, idx.y, __ATOMIC_RELAXED);  // merged 8-byte store at a
  __atomic_store_n(&sm_block_idx.z, idx.z, __ATOMIC_RELAXED);  // 4-byte-aligned address)
  start_block();
  return true;
}

void BlockRun::start_block() {
  fiber_mode_ = false;
  exited_ = at_barrier_ = 0;
  barrier_count_ = 0, barrier_and_ = 1, barrier_or_ = 0;
}

// Switches to thread t's fiber until it yields or exits.
void BlockRun::resume(unsigned t) {
  set_thread(t);
  t_fault_jump = slots_[t].jump;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, slots_[t].stack != nullptr ? slots_[t].stack : loop_stack_, kStackBytes);
  fctx::transfer_t back = fctx::jump_fcontext(slots_[t].context, this);
  finish_switch(fake_stack, nullptr, nullptr);
  t_fault_jump = nullptr;
  slots_[current_].context = back.fctx;
}

void BlockRun::yield() {
  void* fake_stack = nullptr;
  start_switch(&fake_stack, scheduler_bottom_, scheduler_size_);
  fctx::transfer_t back = fctx::jump_fcontext(scheduler_, nullptr);
  finish_switch(fake_stack, &scheduler_bottom_, &scheduler_size_);
  scheduler_ = back.fctx;
}

void BlockRun::exit_fiber() {
  start_switch(nullptr, scheduler_bottom_, scheduler_size_);  // null: this fiber's stack is done
  fctx::jump_fcontext(scheduler_, nullptr);
  std::abort();  // a finished fiber is never resumed
}

void BlockRun::loop_main(fctx::transfer_t from) {
  auto* self = static_cast<BlockRun*>(from.data);
  finish_switch(nullptr, &self->scheduler_bottom_, &self->scheduler_size_);
  self->scheduler_ = from.fctx;
  sigjmp_buf& jump = self->loop_jump_.buf;
  if (sigsetjmp(jump, 0) != 0) {
    alignment_check(false);
    self->record_fault();
    self->exit_fiber();
  }
  const GridLaunch& launch = *self->launch_;
  try {
    alignment_check(true);
    do {
      if (launch.block_entry != nullptr) {  // the kernel's own loop (device_code.h)
        launch.block_entry(launch.params, &self->fiber_mode_);
      } else {
        unsigned t = 0;
        for (unsigned z = 0; z < launch.block.z && !self->fiber_mode_; ++z) {
          for (unsigned y = 0; y < launch.block.y && !self->fiber_mode_; ++y) {
            for (unsigned x = 0; x < launch.block.x && !self->fiber_mode_; ++x, ++t) {
              self->current_ = t;
              threadIdx.x = x;  // component by component: see KernelTraits::block_entry
              threadIdx.y = y;
              threadIdx.z = z;
              launch.entry(launch.params);
            }
          }
        }
      }
      if (self->fiber_mode_) {  // this fiber became a thread's when it reached a barrier
        alignment_check(false);
        self->thread_exited(self->current_);
        self->exit_fiber();
      }
    } while (self->next_block());  // every thread of the block has run: the next block
  } catch (...) {
    alignment_check(false);
    self->exception_escaped();
    self->exit_fiber();
  }
  self->exited_ = self->threads_;
  alignment_check(false);
  self->exit_fiber();
}

void BlockRun::fiber_main(fctx::transfer_t from) {
  auto* self = static_cast<BlockRun*>(from.data);
  finish_switch(nullptr, &self->scheduler_bottom_, &self->scheduler_size_);
  self->scheduler_ = from.fctx;
  unsigned t = self->current_;
  if (sigsetjmp(self->jumps_[t].buf, 0) != 0) {
    alignment_check(false);
    self->record_fault();
    self->exit_fiber();
  }
  try {
    alignment_check(true);
    self->launch_->entry(self->launch_->params);
  } catch (...) {
    alignment_check(false);
    self->exception_escaped();
    self->exit_fiber();
  }
  alignment_check(false);
  self->thread_exited(self->current_);
  self->exit_fiber();
}

// The first barrier or warp operation: threads before current_ have exited, current_ keeps the
// loop fiber, every later thread gets its own fiber.
void BlockRun::demote() {
  current_ = loop_thread();  // the kernel's own loop does not keep current_
  fiber_mode_ = true;
  slots_.assign(threads_, ThreadSlot{});
  jumps_.resize(threads_);
  warps_.assign((threads_ + kWarp - 1) / kWarp, Warp{});
  for (unsigned w = 0; w < warps_.size(); ++w) warps_[w].present = present_lanes(w);
  for (unsigned t = 0; t < current_; ++t) {
    slots_[t].state = ThreadState::Done;
    warps_[t / kWarp].exited |= 1u << (t % kWarp);
  }
  exited_ = current_;
  slots_[current_].jump = &loop_jump_.buf;
  for (unsigned t = current_ + 1; t < threads_; ++t) {
    ThreadSlot& s = slots_[t];
    s.stack = stacks_.take();
    if (s.stack == nullptr) {
      KernelError e;
  e.kind = KernelErrorKind::StackOverflow;
      e.message = "out of host memory for thread stacks";
      error_ = e;
      s.state = ThreadState::Done;
      continue;
    }
    s.context = fctx::make_fcontext(static_cast<char*>(s.stack) + kStackBytes, kStackBytes, &fiber_main);
    s.jump = &jumps_[t].buf;
  }
}

void BlockRun::thread_exited(unsigned t) {
  slots_[t].state = ThreadState::Done;
  ++exited_;
  Warp& w = warps_[t / kWarp];
  w.exited |= 1u << (t % kWarp);
  if (at_barrier_ > 0 && at_barrier_ == threads_ - exited_) release_barrier();
  try_complete(w);
}

void BlockRun::syncthreads(int op, int predicate, int* result) {
  if (!fiber_mode_) demote();
  barrier_count_ += predicate != 0;
  barrier_and_ &= predicate != 0;
  barrier_or_ |= predicate != 0;
  slots_[current_].state = ThreadState::AtBarrier;
  ++at_barrier_;
  if (at_barrier_ == threads_ - exited_) {
    release_barrier();
  } else {
    yield();
  }
  if (result != nullptr) *result = barrier_result_[op];
}

void BlockRun::release_barrier() {
  barrier_result_[0] = barrier_count_, barrier_result_[1] = barrier_and_, barrier_result_[2] = barrier_or_;
  barrier_count_ = 0, barrier_and_ = 1, barrier_or_ = 0;
  at_barrier_ = 0;
  for (ThreadSlot& s : slots_)
    if (s.state == ThreadState::AtBarrier) s.state = ThreadState::Runnable;
}

uint64_t BlockRun::warp_op(WarpOpKind kind, unsigned mask, uint64_t value, int mode, int arg, int width) {
  if (!fiber_mode_) demote();
  unsigned lane = current_ % kWarp;
  Warp& w = warps_[current_ / kWarp];
  mask |= 1u << lane;  // a lane always takes part in its own operation
  WarpOp* op = nullptr;
  for (WarpOp& o : w.pending)
    if (o.kind == kind && o.mask == mask && !(o.arrived & (1u << lane))) op = &o;
  if (op == nullptr) {
    w.pending.push_back(WarpOp{kind, mask});
    op = &w.pending.back();
  }
  op->mode = mode, op->width = width;
  op->values[lane] = value;
  op->args[lane] = arg;
  op->arrived |= 1u << lane;
  slots_[current_].state = ThreadState::AtWarp;
  try_complete(w);
  if (slots_[current_].state == ThreadState::AtWarp) yield();
  return w.results[lane];
}

// Completes every pending operation of the warp whose lanes have all arrived or exited.
void BlockRun::try_complete(Warp& w) {
  for (size_t i = 0; i < w.pending.size();) {
    WarpOp& op = w.pending[i];
    unsigned needed = op.mask & w.present & ~w.exited;
    if ((op.arrived & needed) != needed) {
      ++i;
      continue;
    }
    unsigned ballot = 0;
    for (unsigned l = 0; l < kWarp; ++l)
      if ((op.arrived >> l) & 1 && op.values[l] != 0) ballot |= 1u << l;
    unsigned base = static_cast<unsigned>(&w - warps_.data()) * kWarp;
    for (unsigned l = 0; l < kWarp; ++l) {
      if (!((op.arrived >> l) & 1)) continue;
      uint64_t result = 0;
      if (op.kind == WarpOpKind::Ballot) {
        result = ballot;
      } else if (op.kind == WarpOpKind::Shuffle) {
        int width = op.width, arg = op.args[l];
        int segment = static_cast<int>(l) / width * width, offset = static_cast<int>(l) % width;
        int src = static_cast<int>(l);
        switch (op.mode) {
          case 0: src = segment + ((arg % width) + width) % width; break;
          case 1: src = offset >= arg ? static_cast<int>(l) - arg : static_cast<int>(l); break;
          case 2: src = offset + arg < width ? static_cast<int>(l) + arg : static_cast<int>(l); break;
          default: {
            // A lane may read from its own or an earlier group of `width` lanes, not a later one.
            int x = static_cast<int>(l) ^ (arg & 31);  // the hardware uses the mask's low 5 bits
            src = (x < static_cast<int>(kWarp) && x / width <= static_cast<int>(l) / width) ? x : static_cast<int>(l);
          }
        }
        // A source lane that did not take part gives an undefined value: its own here.
        result = ((op.arrived >> src) & 1) ? op.values[src] : op.values[l];
      }
      w.results[l] = result;
      ThreadSlot& s = slots_[base + l];
      if (s.state == ThreadState::AtWarp) s.state = ThreadState::Runnable;
    }
    w.pending.erase(w.pending.begin() + static_cast<long>(i));
  }
}

// After a siglongjmp out of kernel code: turn what the handler saw into the block's error.
void BlockRun::record_fault() {
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  if (t_kernel_error_pending) {
    e = t_kernel_error;
    t_kernel_error_pending = false;
  } else {
    const SavedFault& f = t_fault;
    e.address = f.address;
    e.write = f.write;
    if (f.signo == SIGBUS && f.code == BUS_ADRALN) {
      e.kind = KernelErrorKind::MisalignedAddress;
      e.message = f.address != 0 ? fmt::format("misaligned address {:#x} (an access not aligned to its size)", f.address)
                                 : "misaligned address (an access not aligned to its size)";
    } else if (f.signo == SIGSEGV || f.signo == SIGBUS) {
      e.kind = stacks_.in_guard(f.address) ? KernelErrorKind::StackOverflow : KernelErrorKind::IllegalAddress;
      if (f.code == SI_KERNEL) e.message = "illegal address (a non-canonical pointer)";
      if (e.message.empty())
        e.message = e.kind == KernelErrorKind::StackOverflow
                        ? "stack overflow (a thread used more than its stack)"
                        : fmt::format("illegal {} of address {:#x}", f.write ? "write" : "read", f.address);
    } else if (f.signo == SIGILL) {
      e.kind = KernelErrorKind::IllegalInstruction;
      e.message = "illegal instruction";
    } else {
      e.kind = KernelErrorKind::Trap;
      e.message = f.signo == SIGFPE ? "arithmetic exception (integer division by zero?)" : "unexpected signal";
    }
  }
  e.block = sm_block_idx;
  e.thread = threadIdx;
  error_ = e;
}

BlockRun* current_block(const char* what) {
  if (t_block == nullptr || t_fault_jump == nullptr)
    std::fprintf(stderr, "minicuda: %s called outside a kernel; ignored\n", what);
  return t_fault_jump == nullptr ? nullptr : t_block;
}

}  // namespace

std::optional<BlockError> run_blocks(const GridLaunch& launch, BlockQueue& queue) {
  // One of each per host thread, reused block after block (their vectors keep their capacity).
  thread_local StackPool stacks;
  thread_local std::vector<uint8_t> shared;
  thread_local BlockRun run(stacks, shared);
  return run.run_blocks(launch, queue);
}

bool in_kernel() { return t_fault_jump != nullptr; }

// --- the intrinsics ---------------------------------------------------------------------------

namespace isa {

void syncthreads() {
  SmCode sm_code;
  if (BlockRun* b = current_block("__syncthreads")) b->syncthreads(0, 0, nullptr);
}
int syncthreads_reduce(int op, int predicate) {
  SmCode sm_code;
  int result = 0;
  if (BlockRun* b = current_block("__syncthreads_count/and/or")) b->syncthreads(op, predicate, &result);
  return result;
}
void syncwarp(unsigned mask) {
  SmCode sm_code;
  if (BlockRun* b = current_block("__syncwarp")) b->warp_op(WarpOpKind::Sync, mask, 0, 0, 0, kWarp);
}
uint64_t shuffle(unsigned mask, uint64_t value, int mode, int lane_or_delta, int width) {
  SmCode sm_code;
  BlockRun* b = current_block("__shfl_sync");
  if (b == nullptr) return value;
  if (width <= 0 || width > static_cast<int>(kWarp) || (width & (width - 1)) != 0) width = kWarp;
  return b->warp_op(WarpOpKind::Shuffle, mask, value, mode, lane_or_delta, width);
}
unsigned ballot(unsigned mask, int predicate) {
  SmCode sm_code;
  BlockRun* b = current_block("__ballot_sync");
  if (b == nullptr) return 0;
  return static_cast<unsigned>(b->warp_op(WarpOpKind::Ballot, mask, predicate != 0, 0, 0, kWarp));
}
unsigned activemask() {
  BlockRun* b = current_block("__activemask");
  return b == nullptr ? 0 : b->activemask();
}
bool in_kernel_code() { return in_kernel(); }

unsigned char* dynamic_shared() {
  BlockRun* b = current_block("extern __shared__");
  return b == nullptr ? nullptr : b->dynamic_shared();
}
void trap() {
  if (current_block("__trap") == nullptr) std::abort();
  alignment_check(false);
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  e.message = "__trap() executed";
  raise_kernel_error(std::move(e));
}

// Formats into the driver's printf FIFO; the text reaches stdout when the host synchronises.
int vprintf_device(const char* format, va_list args) {
  SmCode unchecked;
  char line[4096];
  int n = std::vsnprintf(line, sizeof line, format, args);
  if (n < 0) return n;
  uint32_t length = std::min<uint32_t>(static_cast<uint32_t>(n), sizeof line - 1);
  const GridLaunch& launch = t_block->launch();
  if (launch.printf_buffer == nullptr) return n;
  auto* fifo = reinterpret_cast<NvMinicudaPrintfFifo*>(launch.printf_buffer);
  uint32_t capacity = launch.printf_bytes - sizeof(NvMinicudaPrintfFifo);
  uint32_t at = __atomic_fetch_add(&fifo->write, length, __ATOMIC_RELAXED);
  if (at + length > capacity) {
    __atomic_fetch_add(&fifo->dropped, 1, __ATOMIC_RELAXED);
    return n;
  }
  std::memcpy(launch.printf_buffer + sizeof(NvMinicudaPrintfFifo) + at, line, length);
  uint32_t end = __atomic_load_n(&fifo->end, __ATOMIC_RELAXED);  // records before a full FIFO are
  while (end < at + length &&                                    // all written: end = the furthest
         !__atomic_compare_exchange_n(&fifo->end, &end, at + length, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
  return n;
}

int printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = t_fault_jump != nullptr && t_block != nullptr ? vprintf_device(format, args) : std::vprintf(format, args);
  va_end(args);
  return n;
}

}  // namespace isa
}  // namespace minicuda::gpu

extern "C" int minicuda_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = minicuda::gpu::in_kernel() ? minicuda::gpu::isa::vprintf_device(format, args) : std::vprintf(format, args);
  va_end(args);
  return n;
}

// glibc's assert() calls this. In kernel code it is CUDA's device assert: the message in CUDA's
// form, then the grid stops with cudaErrorAssert. Elsewhere it is glibc's: message and abort.
extern "C" [[noreturn]] void __assert_fail(const char* expression, const char* file, unsigned int line,
                                           const char* function) noexcept {
  using namespace minicuda::gpu;
  if (in_kernel()) {
    minicuda::gpu::alignment_check(false);
    KernelError e;
  e.kind = KernelErrorKind::Assert;
    e.message = fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.", file, line,
                            function, sm_block_idx.x, sm_block_idx.y, sm_block_idx.z, threadIdx.x, threadIdx.y, threadIdx.z,
                            expression);
    raise_kernel_error(std::move(e));
  }
  std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line,
               function, expression);
  std::abort();
}
