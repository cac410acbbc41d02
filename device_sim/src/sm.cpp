// sm: runs thread blocks (see sm.h for the model: loop mode, fiber mode, faults).
#include "sm_block.h"
#include "simt.h"
#include "sm_cluster.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif
#include <csetjmp>
#include <csignal>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <link.h>
#include <memory>
#include <mutex>
#include <sys/mman.h>
#include <ucontext.h>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

// The built-in variables of device_code.h. Kernel code sees blockIdx, blockDim and gridDim as
// const; the SM defines them here under other names, writable, bound by asm label to the symbols
// kernel code links against. This file reads and writes them only through these names.
thread_local constinit uint3 threadIdx MINICUDA_TLS{};
thread_local constinit uint3 sm_block_idx MINICUDA_TLS{};
thread_local constinit uint3 sm_block_dim MINICUDA_TLS{};
thread_local constinit uint3 sm_grid_dim MINICUDA_TLS{};

namespace minicuda::gpu {

thread_local constinit unsigned t_region_thread MINICUDA_TLS = 0;

namespace sm {

thread_local constinit BlockRun* t_block MINICUDA_TLS = nullptr;

namespace {

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
// After a fault's siglongjmp into a fiber's entry: the signal handler ran on the alternate
// signal stack, so AddressSanitizer's own longjmp handling cleared that stack, not this one -
// the dead kernel frames below the entry keep their poisoned redzones. Clears them.
[[gnu::noinline]] void unpoison_dead_frames(void* stack_lowest) {
  auto* here = static_cast<char*>(__builtin_frame_address(0));
  __asan_unpoison_memory_region(stack_lowest, static_cast<size_t>(here - static_cast<char*>(stack_lowest)));
}
#elif defined(__SANITIZE_THREAD__)
// ThreadSanitizer must be told of every switch as well (__tsan_switch_to_fiber, just before the
// jump), or it takes all the fibers of a host thread for one stack of calls. Each stack a fiber
// runs on gets a TSan fiber of its own at its first use, reused with the stack; the scheduler is
// the host thread's own (no stack bottom is known for it here: nullptr). Fibers of one host
// thread run one at a time, so every switch orders what came before it (flags 0).
void* tsan_fiber_of(const void* bottom) {
  thread_local void* const own = __tsan_get_current_fiber();
  thread_local std::unordered_map<const void*, void*> fibers;
  if (bottom == nullptr) return own;
  void*& fiber = fibers[bottom];
  if (fiber == nullptr) fiber = __tsan_create_fiber(0);
  return fiber;
}
void start_switch(void**, const void* bottom, size_t) { __tsan_switch_to_fiber(tsan_fiber_of(bottom), 0); }
void finish_switch(void*, const void**, size_t*) {}
void unpoison_dead_frames(void*) {}
#else
void start_switch(void**, const void*, size_t) {}
void finish_switch(void*, const void**, size_t*) {}
void unpoison_dead_frames(void*) {}
#endif

constexpr size_t kStackBytes = 256 << 10;  // per CUDA thread in fiber mode (virtual; touched lazily)
constexpr size_t kGuardBytes = 4096;

}  // namespace

// --- stacks ---------------------------------------------------------------------------------

// Fiber stacks of one host thread: mapped once, reused for every block. Each stack has a guard
// page below it (an overflow faults there and is reported as one) while the process holds fewer
// than kGuardedStacks of them; past that (a cooperative grid runs a host thread per block, each
// with a stack per CUDA thread: 264 x 1024 on the H200) stacks come kSlabStacks to a mapping with
// one guard page below the slab, since every guard page costs the host two memory maps and the
// host allows 65530 (vm.max_map_count). An overflow inside a slab then runs into the stack below.
class StackPool {
 public:
  ~StackPool() {
    for (const Mapping& m : all_) {
#if defined(__SANITIZE_ADDRESS__)
      __asan_unpoison_memory_region(static_cast<char*>(m.base) + kGuardBytes, m.bytes - kGuardBytes);
#endif
      munmap(m.base, m.bytes);
      if (m.stacks == 1) guarded_stacks.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  void* take() {  // the lowest usable address
    if (free_.empty() && !map_stacks()) return nullptr;
    void* s = free_.back();
    free_.pop_back();
#if defined(__SANITIZE_ADDRESS__)
    // Frames left by a fiber that never returned (a block that faulted, or a thread that finished
    // inside the SM's loop) keep their redzones poisoned, on a reused stack and equally on a fresh
    // mapping at the address of a stack another host thread unmapped (munmap leaves the shadow as
    // it was): clear them.
    __asan_unpoison_memory_region(s, kStackBytes);
#endif
    return s;
  }
  void give_back(void* stack) { free_.push_back(stack); }
  // Is addr inside some guard page (a stack overflow)?
  bool in_guard(uint64_t addr) const {
    for (const Mapping& m : all_) {
      auto b = reinterpret_cast<uint64_t>(m.base);
      if (addr >= b && addr < b + kGuardBytes) return true;
    }
    return false;
  }

 private:
  static constexpr size_t kGuardedStacks = 16384, kSlabStacks = 64;
  static inline std::atomic<size_t> guarded_stacks{0};  // stacks with a guard page of their own, process-wide
  struct Mapping {
    void* base;    // the guard page
    size_t bytes;  // guard page included
    size_t stacks;
  };
  // Maps one guarded stack, or a slab of them once the guarded ones reach kGuardedStacks, onto free_.
  bool map_stacks() {
    const bool guarded = guarded_stacks.fetch_add(1, std::memory_order_relaxed) < kGuardedStacks;
    if (!guarded) guarded_stacks.fetch_sub(1, std::memory_order_relaxed);
    const size_t stacks = guarded ? 1 : kSlabStacks;
    const size_t bytes = kGuardBytes + stacks * kStackBytes;
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
      if (guarded) guarded_stacks.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    mprotect(base, kGuardBytes, PROT_NONE);
    all_.push_back({base, bytes, stacks});
    for (size_t i = stacks; i-- > 0;) free_.push_back(static_cast<char*>(base) + kGuardBytes + i * kStackBytes);
    return true;
  }
  std::vector<Mapping> all_;
  std::vector<void*> free_;
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
  grid_syncs_ = 0;
  stopped_by_grid_ = false;
  install_signal_handlers();
  t_block = this;
  if (launch.cluster_run != nullptr)  // a block of a cluster: where the others find its shared memory
    launch.cluster_run->publish(launch.cluster_rank,
                                SharedWindow{shared_.data(), launch.dynamic_shared,
                                             reinterpret_cast<uintptr_t>(__builtin_thread_pointer())});
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
        fctx::make_fcontext(static_cast<char*>(loop_stack) + kStackBytes, kStackBytes, &loop_main), &scheduler_);
    finish_switch(fake_stack, nullptr, nullptr);
    alignment_check(false);  // the engine's own code runs unchecked
    t_fault_jump = nullptr;
    landed(back);  // in fiber mode the loop fiber is now a thread's, waiting
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
  if (launch.grid_barrier != nullptr) {  // a cooperative grid: this host thread ran one block
    if (error_) launch.grid_barrier->stop();
    else launch.grid_barrier->block_exited();
  }
  if (launch.cluster_run != nullptr) {  // a block of a cluster: this host thread ran it alone
    if (error_) launch.cluster_run->stop();
    else launch.cluster_run->block_exited(cluster_arrived_ ? std::optional<uint64_t>(cluster_phase_) : std::nullopt);
  }
  if (!error_) return std::nullopt;
  queue.stop();
  return BlockError{block_, std::move(*error_), stopped_by_grid_};
}

// Moves on to the next block of this thread's claim (claiming more when it is used up), and
// resets the per-block state. Runs inside the loop fiber with the alignment check on: every
// store here is an aligned one of its own size.
bool BlockRun::next_block() {
  if (!kSwitchesUnderAlignmentCheck) alignment_check(false);  // loop_main turns it on again
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
  fiber_mode_ = region_mode_ = false;
  exited_ = at_barrier_ = 0;
  barrier_count_ = 0, barrier_and_ = 1, barrier_or_ = 0;
  cluster_arrivals_ = 0;
  cluster_arrived_ = false;
}

// Fiber switches. Whoever jumps passes where its own suspended context is to be kept (its
// thread's slot, or scheduler_; null for a fiber that has finished), and the code that lands
// stores it there: landed(). Threads hand over to one another directly - a thread that waits
// jumps straight to the next runnable one, with the alignment check left as it is - and only go
// back to the scheduler (run_blocks) when no thread can run. Returns whether the jump came from
// the scheduler.
bool BlockRun::landed(fctx::transfer_t from) {
  if (from.data != nullptr) *static_cast<fctx::fcontext_t*>(from.data) = from.fctx;
  return from.data == &scheduler_;
}

// The next runnable thread after the current one (round-robin; from thread 0 just after a
// barrier was released), or threads_ if none.
unsigned BlockRun::next_runnable() const {
  if (!fiber_mode_ || error_) return threads_;
  if (from_lowest_) {
    for (unsigned t = 0; t < threads_; ++t)
      if (t != current_ && slots_[t].state == ThreadState::Runnable) return t;
    return threads_;
  }
  for (unsigned i = 1; i <= threads_; ++i) {
    unsigned t = current_ + i < threads_ ? current_ + i : current_ + i - threads_;
    if (t != current_ && slots_[t].state == ThreadState::Runnable) return t;
  }
  return threads_;
}

// The scheduler: switches to thread t's fiber until no thread can run.
void BlockRun::resume(unsigned t) {
  set_thread(t);
  t_fault_jump = slots_[t].jump;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, stack_of(t), kStackBytes);
  fctx::transfer_t back = fctx::jump_fcontext(slots_[t].context, &scheduler_);
  finish_switch(fake_stack, nullptr, nullptr);
  alignment_check(false);  // the engine's own code runs unchecked
  t_fault_jump = nullptr;
  landed(back);
}

// The current thread waits (its state says for what): runs the next runnable thread, or the
// scheduler when there is none. Returns when some thread has made this one runnable again.
void BlockRun::switch_away() {
  const unsigned me = current_;
  const unsigned next = next_runnable();
  from_lowest_ = false;
  void* fake_stack = nullptr;
  fctx::transfer_t back;
  if (next == threads_) {
    alignment_check(false);
    start_switch(&fake_stack, scheduler_bottom_, scheduler_size_);
    back = fctx::jump_fcontext(scheduler_, &slots_[me].context);
  } else {
    set_thread(next);
    t_fault_jump = slots_[next].jump;
    start_switch(&fake_stack, stack_of(next), kStackBytes);
    back = fctx::jump_fcontext(slots_[next].context, &slots_[me].context);
  }
  const bool from_scheduler = back.data == &scheduler_;
  finish_switch(fake_stack, from_scheduler ? &scheduler_bottom_ : nullptr, from_scheduler ? &scheduler_size_ : nullptr);
  landed(back);
}

// The caller stays runnable and the next runnable thread runs. A wait is stuck when no other
// thread can run, or when every runnable thread is spinning and no wait has begun or ended for
// two rounds of them (spinning threads only test their conditions, so none can change).
bool BlockRun::spin_wait() {
  if (region_mode_) region_violation("a wait of cuda::barrier or cuda::pipeline");
  if (!fiber_mode_) demote();
  ThreadSlot& me = slots_[current_];
  if (!me.spinning) me.spinning = true, ++spin_progress_;
  if (spin_progress_ != spin_seen_) {
    spin_seen_ = spin_progress_;
    spin_stalled_ = 0;
  } else {
    bool all_spin = true;
    for (const ThreadSlot& s : slots_) all_spin = all_spin && (s.state != ThreadState::Runnable || s.spinning);
    spin_stalled_ = all_spin ? spin_stalled_ + 1 : 0;
    if (spin_stalled_ > 2 * threads_) return false;
  }
  if (next_runnable() == threads_) return false;
  switch_away();
  alignment_check(false);  // still in the SM's code (SmCode)
  return true;
}
void BlockRun::spin_done() {
  if (!fiber_mode_ || !slots_[current_].spinning) return;
  slots_[current_].spinning = false;
  ++spin_progress_;
}

// The current thread has finished (or faulted): on to the next runnable thread, or the
// scheduler. Its fiber is never resumed.
void BlockRun::exit_fiber() {
  const unsigned next = next_runnable();
  from_lowest_ = false;
  if (next == threads_) {
    alignment_check(false);
    start_switch(nullptr, scheduler_bottom_, scheduler_size_);  // null: this fiber's stack is done
    fctx::jump_fcontext(scheduler_, nullptr);
  } else {
    set_thread(next);
    t_fault_jump = slots_[next].jump;
    start_switch(nullptr, stack_of(next), kStackBytes);
    fctx::jump_fcontext(slots_[next].context, nullptr);
  }
  std::abort();  // a finished fiber is never resumed
}

void BlockRun::loop_main(fctx::transfer_t from) {
  BlockRun* self = t_block;
  finish_switch(nullptr, &self->scheduler_bottom_, &self->scheduler_size_);  // run_blocks started it
  self->landed(from);
  sigjmp_buf& jump = self->loop_jump_.buf;
  if (sigsetjmp(jump, 0) != 0) {
    alignment_check(false);
    unpoison_dead_frames(self->loop_stack_);
    self->record_fault();
    self->exit_fiber();
  }
  const GridLaunch& launch = *self->launch_;
  try {
    alignment_check(true);
    do {
      alignment_check(true);  // free, unless the signal handler let an access through (and cleared it)
      bool ran_as_regions = false;
      if (launch.region_entry != nullptr) {  // the kernel's block function: no fibers at all
        self->region_mode_ = true;
        t_region_thread = 0;  // a fault before the first region names thread 0, not a stale one
        ran_as_regions = launch.region_entry(launch.params);
        self->region_mode_ = false;
      }
      if (ran_as_regions) {
        // every thread of the block has run
      } else if (launch.block_entry != nullptr) {  // the kernel's own loop (device_code.h)
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
        if (!kSwitchesUnderAlignmentCheck) alignment_check(false);
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
  BlockRun* self = t_block;
  const bool from_scheduler = from.data == &self->scheduler_;
  finish_switch(nullptr, from_scheduler ? &self->scheduler_bottom_ : nullptr,
                from_scheduler ? &self->scheduler_size_ : nullptr);
  self->landed(from);
  unsigned t = self->current_;
  if (sigsetjmp(self->jumps_[t].buf, 0) != 0) {
    alignment_check(false);
    unpoison_dead_frames(self->slots_[t].stack);
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
  if (!kSwitchesUnderAlignmentCheck) alignment_check(false);
  self->thread_exited(self->current_);
  self->exit_fiber();
}

// The first barrier or warp operation: threads before current_ have exited, current_ keeps the
// loop fiber, every later thread gets its own fiber.
void BlockRun::demote() {
  current_ = loop_thread();  // the kernel's own loop does not keep current_
  fiber_mode_ = true;
  spin_progress_ = spin_seen_ = 0, spin_stalled_ = 0;
  slots_.assign(threads_, ThreadSlot{});
  jumps_.resize(threads_);
  warps_.assign((threads_ + kWarp - 1) / kWarp, Warp{});
  for (unsigned w = 0; w < warps_.size(); ++w) warps_[w].present = present_lanes(w);
  for (unsigned t = 0; t < current_; ++t) {
    slots_[t].state = ThreadState::Done;
    warps_[t / kWarp].exited |= 1u << (t % kWarp);
  }
  exited_ = current_;
  for (unsigned t = 0; t < threads_; ++t) slots_[t].index = thread_index(t);
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
    // Each fiber's stack starts at a different offset within a 32 KiB span: stacks all 256 KiB
    // apart would put every fiber's top frames in the same sets of the host's L1 and L2 caches.
    const size_t color = (t % 512) * 64;
    s.context = fctx::make_fcontext(static_cast<char*>(s.stack) + kStackBytes - color, kStackBytes - color, &fiber_main);
    s.jump = &jumps_[t].buf;
  }
}

// Runs with the alignment check on (scalar, aligned stores) unless the thread's warp has
// operations pending.
void BlockRun::thread_exited(unsigned t) {
  slots_[t].state = ThreadState::Done;
  ++exited_;
  Warp& w = warps_[t / kWarp];
  w.exited |= 1u << (t % kWarp);
  if (at_barrier_ > 0 && at_barrier_ == threads_ - exited_) release_barrier();
  if (!w.pending.empty()) {
    alignment_check(false);
    try_complete(w);
  }
}

// Runs with the alignment check on, as the kernel's code (only scalar, aligned stores here): a
// thread that waits hands over to the next at the cost of one register swap, not two popf.
void BlockRun::syncthreads(int op, int predicate, int* result) {
  if (region_mode_) region_violation(op == 0 && result == nullptr ? "__syncthreads" : "__syncthreads_count/and/or");
  if (!kSwitchesUnderAlignmentCheck) alignment_check(false);  // see sm_block.h
  if (!fiber_mode_) {
    alignment_check(false);
    demote();
  }
  barrier_count_ += predicate != 0;
  barrier_and_ &= predicate != 0;
  barrier_or_ |= predicate != 0;
  slots_[current_].state = ThreadState::AtBarrier;
  ++at_barrier_;
  if (Warp& w = warps_[current_ / kWarp]; !w.pending.empty()) {  // a waiting __activemask may be
    alignment_check(false);                                      // complete now
    try_complete(w);
    alignment_check(kSwitchesUnderAlignmentCheck);
  }
  if (at_barrier_ == threads_ - exited_) {
    release_barrier();
    // The last thread to arrive lets the lower ones go first (threads leave a barrier in index
    // order, as the regions of a split kernel run them: MINICUDA_FISSION=check compares the two).
    if (next_runnable() < current_) switch_away();
    from_lowest_ = false;
  } else {
    switch_away();
  }
  alignment_check(true);  // back to kernel code (free unless the switch went through the SM's own code)
  if (result != nullptr) *result = barrier_result_[op];
}

// With the alignment check on (a barrier): each int on its own - g++ merges neighbouring int
// copies into 8-byte moves at 4-byte-aligned offsets, and each would trap (a signal a barrier).
void BlockRun::release_barrier() {
  __atomic_store_n(&barrier_result_[0], __atomic_load_n(&barrier_count_, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  __atomic_store_n(&barrier_result_[1], __atomic_load_n(&barrier_and_, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  __atomic_store_n(&barrier_result_[2], __atomic_load_n(&barrier_or_, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  __atomic_store_n(&barrier_count_, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&barrier_and_, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&barrier_or_, 0, __ATOMIC_RELAXED);
  at_barrier_ = 0;
  for (ThreadSlot& s : slots_)
    if (s.state == ThreadState::AtBarrier) s.state = ThreadState::Runnable;
  from_lowest_ = true;
}

void BlockRun::region_violation(const char* what) {
  alignment_check(false);
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  e.message = fmt::format("{} reached while kernel {} ran as regions (cu2cxx region fission); the "
                          "translator should have left this kernel to fibers (MINICUDA_FISSION=0 does)",
                          what, launch_->kernel_name);
  raise_kernel_error(std::move(e));
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
      e.message = f.signo == SIGFPE && f.detail != nullptr ? f.detail : "unexpected signal";
    }
  }
  e.block = sm_block_idx;
  e.thread = running_thread();
  error_ = e;
}

void called_outside_a_kernel(const char* what) {
  std::fprintf(stderr, "minicuda: %s called outside a kernel; ignored\n", what);
}

}  // namespace sm

std::optional<BlockError> run_blocks(const GridLaunch& launch, BlockQueue& queue) {
  if (launch.sass != nullptr) {  // a kernel compiled from PTX: the SIMT executor (simt.h)
    thread_local simt::BlockExec exec;
    return exec.run_blocks(launch, queue);
  }
  // One of each per host thread, reused block after block (their vectors keep their capacity).
  thread_local sm::StackPool stacks;
  thread_local std::vector<uint8_t> shared;
  thread_local sm::BlockRun run(stacks, shared);
  return run.run_blocks(launch, queue);
}

bool in_kernel() { return t_fault_jump != nullptr; }

namespace isa {
void* region_scratch(unsigned slot, std::size_t bytes, std::size_t align) {
  sm::SmCode sm_code;  // the allocation is the SM's code, not the kernel's (alignment check off)
  struct Slot {
    std::unique_ptr<std::max_align_t[]> memory;
    std::size_t bytes = 0;
  };
  thread_local std::vector<Slot> slots;
  if (slot >= slots.size()) slots.resize(slot + 1);
  Slot& s = slots[slot];
  const std::size_t wanted = bytes + (align > alignof(std::max_align_t) ? align : 0);
  if (s.bytes < wanted) {
    s.memory = std::make_unique<std::max_align_t[]>((wanted + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
    s.bytes = wanted;
  }
  auto at = reinterpret_cast<std::uintptr_t>(s.memory.get());
  return reinterpret_cast<void*>((at + align - 1) / align * align);
}
}  // namespace isa

}  // namespace minicuda::gpu

// --- for gdb (tools/gdb/minicuda_gdb.py, mc-block) -----------------------------------------------

std::string minicuda::gpu::sm::BlockRun::describe() const {
  static constexpr const char* kStates[] = {"runnable", "at a barrier", "at a warp operation", "done"};
  const uint3 b = sm_block_idx;
  std::string out = fmt::format("kernel {} block ({},{},{}) of grid ({},{},{}), {} threads, {}\n", launch_->kernel_name,
                                b.x, b.y, b.z, launch_->grid.x, launch_->grid.y, launch_->grid.z, threads_,
                                region_mode_ ? "in regions (a block function)"
                                             : fiber_mode_ ? "on fibers" : "in the loop (no barrier reached yet)");
  if (region_mode_) {
    const uint3 t = running_thread();
    return out + fmt::format("  the region loop is at thread ({},{},{})\n", t.x, t.y, t.z);
  }
  if (!fiber_mode_) {
    return out + fmt::format("  thread ({},{},{}) is running; {} finished\n", threadIdx.x, threadIdx.y, threadIdx.z, exited_);
  }
  // Runs of threads in one state, one line each; the running thread on a line of its own.
  for (unsigned first = 0; first < threads_;) {
    unsigned last = first;
    while (last + 1 < threads_ && first != current_ && last + 1 != current_ &&
           slots_[last + 1].state == slots_[first].state)
      ++last;
    const uint3 a = slots_[first].index, z = slots_[last].index;
    const char* state = kStates[static_cast<int>(slots_[first].state)];
    if (first == last)
      out += fmt::format("  thread ({},{},{}): {}{}\n", a.x, a.y, a.z, state, first == current_ ? " (running)" : "");
    else
      out += fmt::format("  threads ({},{},{}) .. ({},{},{}): {}\n", a.x, a.y, a.z, z.x, z.y, z.z, state);
    first = last + 1;
  }
  return out;
}

// The block that the calling host thread runs, as BlockRun::describe says it, or a line saying
// that this thread runs none. Called by the debugger in a stopped program, never by minicuda.
extern "C" [[gnu::used]] const char* minicuda_gdb_block() {
  thread_local std::string text;
  const minicuda::gpu::sm::BlockRun* block = minicuda::gpu::sm::t_block;
  text = block != nullptr ? block->describe() : "this thread runs no thread block (select an SM's thread: info threads)\n";
  return text.c_str();
}

