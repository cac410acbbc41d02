// bench_switch_floor: the least a kernel on fibers can pay for its barriers on this host.
//
// A fiber barrier moves the host thread from one CUDA thread's stack to the next: whatever else
// it does, it saves one stack's callee-saved registers and loads another's. BM_BareSwitchRing
// does only that, with the shape of the tree reduction's barriers (bench_kernels.cpp,
// BM_BlockSumTree): for each of 4096 blocks, 256 stacks of the SM's spacing take 9 turns round
// a ring, one host thread, no barrier bookkeeping, no kernel work. The argument is the stack
// size in KiB: 256 as the SM's stacks, 16 as the least a kernel's frames could live in. Each
// stack has a 4 KiB guard page below it, as the SM's have: a stride of a power of two would
// put every top in the same few sets of the TLB and double the cost. The summary of
// bench_kernels sets the faster one beside the goal for the fiber tree (docs/performance.md,
// "The fiber path").
#include "bench_switch_floor.h"

#include <sys/mman.h>

#include <cstdint>

#include "bench_common.h"

#if defined(__x86_64__)

// minicuda_bench_switch(save, next): pushes the callee-saved registers, stores the stack pointer
// in *save, loads next and pops what its own switch pushed (System V x86-64: rbx, rbp, r12-r15).
extern "C" void minicuda_bench_switch(void** save, void* next);
extern "C" void minicuda_bench_fiber_entry();
asm(R"(
  .pushsection .text
  .globl minicuda_bench_switch
  .type minicuda_bench_switch, @function
minicuda_bench_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size minicuda_bench_switch, .-minicuda_bench_switch
  .globl minicuda_bench_fiber_entry
  .type minicuda_bench_fiber_entry, @function
minicuda_bench_fiber_entry:
  call minicuda_bench_fiber_main
  ud2
  .size minicuda_bench_fiber_entry, .-minicuda_bench_fiber_entry
  .popsection
)");

namespace {

constexpr int kRing = bench::kSwitchRingStacks;
constexpr int kTurns = bench::kSwitchRingTurns;
constexpr size_t kGuardBytes = 4096;  // the SM's guard page below each stack (sm.cpp)
constexpr size_t kStagger = 64;       // the SM's stagger, so that tops do not share cache sets

void* saved[kRing + 1];  // [kRing]: the benchmark's own stack
int current = 0;

}  // namespace

extern "C" [[noreturn]] void minicuda_bench_fiber_main() {
  const int me = current;
  for (int turn = 0; turn < kTurns; ++turn) {
    const int next = me + 1 == kRing ? 0 : me + 1;
    current = next;
    minicuda_bench_switch(&saved[me], saved[next]);
  }
  minicuda_bench_switch(&saved[me], saved[kRing]);
  __builtin_unreachable();
}

namespace {

void BM_BareSwitchRing(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  const size_t stride = (static_cast<size_t>(state.range(0)) << 10) + kGuardBytes;
  const size_t bytes = kRing * stride;
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    state.SkipWithError("mmap failed");
    return;
  }
  auto* stacks = static_cast<char*>(base);
  for (auto _ : state) {
    for (int block = 0; block < bench::kSwitchRingBlocks; ++block) {
      for (int i = 0; i < kRing; ++i) {
        // A stack ready to return into the entry: six registers, then the entry's address, and
        // the stack 16-byte aligned at the entry's call.
        char* top = stacks + (i + 1) * stride - i * kStagger;
        auto* frame = reinterpret_cast<void**>((reinterpret_cast<uintptr_t>(top) & ~uintptr_t{15}) - 7 * sizeof(void*));
        for (int r = 0; r < 6; ++r) frame[r] = nullptr;
        frame[6] = reinterpret_cast<void*>(&minicuda_bench_fiber_entry);
        saved[i] = frame;
      }
      current = 0;
      minicuda_bench_switch(&saved[kRing], saved[0]);  // back when stack 0 has taken its last turn
      for (int i = 1; i < kRing; ++i) minicuda_bench_switch(&saved[kRing], saved[i]);  // the others end
    }
  }
  state.SetItemsProcessed(state.iterations() * int64_t{bench::kSwitchRingBlocks} * kRing * kTurns);
  munmap(base, bytes);
}
BENCHMARK(BM_BareSwitchRing)->Arg(16)->Arg(256)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

#endif
