// sm_isa: the intrinsics of device_code.h (isa::*) - barriers, warp operations, shared memory,
// trap, device printf - and the C library's assert, as kernel code calls them; each reaches the
// block running on the calling host thread (sm_block.h).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "sm_block.h"

namespace minicuda::gpu {

using namespace sm;

namespace {
// Optimised, the common warp operations (shuffle, vote, __syncwarp, mma_sync's computation) run
// with the alignment check left on, as a barrier does (sm_block.h): a lane that waits hands over
// to the next at the cost of a register swap, not two popf, which were most of a shuffle's time.
// warp_op keeps the flag as it found it. Unoptimised, they run as SM code (SmCode).
class WarpOpCode {
 public:
  WarpOpCode() {
    if constexpr (!kSwitchesUnderAlignmentCheck) sm_code_.emplace();
  }

 private:
  std::optional<SmCode> sm_code_;
};
}  // namespace

namespace isa {

// The barrier runs with the alignment check on (BlockRun::syncthreads).
void syncthreads() {
  if (BlockRun* b = current_block("__syncthreads")) b->syncthreads(0, 0, nullptr);
}
int syncthreads_reduce(int op, int predicate) {
  int result = 0;
  if (BlockRun* b = current_block("__syncthreads_count/and/or")) b->syncthreads(op, predicate, &result);
  return result;
}
void syncwarp(unsigned mask) {
  WarpOpCode sm_code;
  if (BlockRun* b = current_block("__syncwarp")) b->warp_op(WarpOpKind::Sync, mask, 0, 0, 0, kWarp);
}
uint64_t shuffle(unsigned mask, uint64_t value, int mode, int lane_or_delta, int width) {
  WarpOpCode sm_code;
  BlockRun* b = current_block("__shfl_sync");
  if (b == nullptr) return value;
  if (width <= 0 || width > static_cast<int>(kWarp) || (width & (width - 1)) != 0) width = kWarp;
  return b->warp_op(WarpOpKind::Shuffle, mask, value, mode, lane_or_delta, width);
}
unsigned ballot(unsigned mask, int predicate) { return vote(mask, predicate, 0); }
unsigned vote(unsigned mask, int predicate, int mode) {
  WarpOpCode sm_code;
  BlockRun* b = current_block("__ballot_sync/__any_sync/__all_sync");
  if (b == nullptr) return 0;
  return static_cast<unsigned>(b->warp_op(WarpOpKind::Vote, mask, predicate != 0, mode, 0, kWarp));
}
unsigned match(unsigned mask, uint64_t value, int* all_pred) {
  SmCode sm_code;
  BlockRun* b = current_block("__match_any_sync/__match_all_sync");
  if (b == nullptr) return 0;
  const auto mode = static_cast<int>(all_pred != nullptr ? MatchMode::All : MatchMode::Any);
  const uint64_t r = b->warp_op(WarpOpKind::Match, mask, value, mode, 0, kWarp);
  if (all_pred != nullptr) *all_pred = static_cast<int>(r >> 32);
  return static_cast<unsigned>(r);
}
unsigned reduce(unsigned mask, unsigned value, int op) {
  SmCode sm_code;
  BlockRun* b = current_block("__reduce_*_sync");
  if (b == nullptr) return 0;
  return static_cast<unsigned>(b->warp_op(WarpOpKind::Reduce, mask, value, op, 0, kWarp));
}
unsigned warp_compute(const char* op, const void* mine, WarpComputation complete) {
  WarpOpCode sm_code;
  BlockRun* b = current_block(op);
  if (b == nullptr) std::abort();  // no warp outside a kernel to compute with
  return static_cast<unsigned>(
      b->warp_op(WarpOpKind::Compute, ~0u, reinterpret_cast<uint64_t>(mine), 0, 0, kWarp, 0, complete));
}
void misaligned_access(const void* address, const char* op) {
  if (current_block(op) == nullptr) std::abort();
  alignment_check(false);
  KernelError e;
  e.kind = KernelErrorKind::MisalignedAddress;
  e.address = reinterpret_cast<uint64_t>(address);
  e.message = fmt::format("{}: misaligned address {}", op, address);
  raise_kernel_error(std::move(e));
}
void misuse(const char* message) {
  if (current_block("cuda::barrier/cuda::pipeline") == nullptr) std::abort();
  alignment_check(false);
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  e.message = message;
  raise_kernel_error(std::move(e));
}
void spin_wait(const char* op) {
  SmCode sm_code;
  BlockRun* b = current_block(op);
  if (b == nullptr) std::abort();  // a wait outside a kernel could never end
  if (b->spin_wait()) return;
  KernelError e;
  e.kind = KernelErrorKind::Trap;
  e.message = fmt::format("{}: waits for threads of the block that can no longer arrive (they have exited, wait "
                          "at another barrier or wait themselves); a GPU would hang here", op);
  raise_kernel_error(std::move(e));
}
void spin_done() {
  SmCode sm_code;
  if (BlockRun* b = current_block("spin_done")) b->spin_done();
}
unsigned activemask(uint64_t site) {
  SmCode sm_code;
  BlockRun* b = current_block("__activemask");
  return b == nullptr ? 0 : b->activemask(site);
}
bool grid_is_cooperative() {
  BlockRun* b = current_block("this_grid");
  return b != nullptr && b->launch().grid_barrier != nullptr;
}
void grid_sync() {
  SmCode sm_code;
  if (BlockRun* b = current_block("grid_group::sync")) b->grid_sync();
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
  append_printf(t_block->launch(), line, length);
  return n;
}

}  // namespace isa

void append_printf(const GridLaunch& launch, const char* line, uint32_t length) {
  if (launch.printf_buffer == nullptr) return;
  auto* fifo = reinterpret_cast<NvMinicudaPrintfFifo*>(launch.printf_buffer);
  uint32_t capacity = launch.printf_bytes - sizeof(NvMinicudaPrintfFifo);
  uint32_t at = __atomic_fetch_add(&fifo->write, length, __ATOMIC_RELAXED);
  // In 64 bits: the header is in GPU memory, so write may hold anything, and at + length must
  // not wrap round to a small offset (it once did: a write past the FIFO, 4 GiB on).
  if (uint64_t{at} + length > capacity) {
    __atomic_fetch_add(&fifo->dropped, 1, __ATOMIC_RELAXED);
    return;
  }
  std::memcpy(launch.printf_buffer + sizeof(NvMinicudaPrintfFifo) + at, line, length);
  uint32_t end = __atomic_load_n(&fifo->end, __ATOMIC_RELAXED);  // records before a full FIFO are
  while (end < at + length &&                                    // all written: end = the furthest
         !__atomic_compare_exchange_n(&fifo->end, &end, at + length, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
}

namespace isa {

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

namespace {
// The function an assert names, as CUDA would: in a block function (cu2cxx names it
// `bool k__regions(P...)`, see tools/cu2cxx/fission.h) the kernel's own `void k(P...)`.
std::string kernel_function_name(const char* function) {
  std::string name(function);
  const std::size_t suffix = name.find("__regions(");
  if (suffix == std::string::npos || !name.starts_with("bool ")) return name;
  name.erase(suffix, std::strlen("__regions"));
  return name.replace(0, 4, "void");
}
}  // namespace

// glibc's assert() calls this. In kernel code it is CUDA's device assert: the message in CUDA's
// form, then the grid stops with cudaErrorAssert. Elsewhere it is glibc's: message and abort.
extern "C" [[noreturn]] void __assert_fail(const char* expression, const char* file, unsigned int line,
                                           const char* function) noexcept {
  using namespace minicuda::gpu;
  if (in_kernel()) {
    minicuda::gpu::alignment_check(false);
    KernelError e;
  e.kind = KernelErrorKind::Assert;
    const uint3 thread = t_block != nullptr ? t_block->running_thread() : threadIdx;
    e.message = fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.", file, line,
                            kernel_function_name(function), sm_block_idx.x, sm_block_idx.y, sm_block_idx.z, thread.x,
                            thread.y, thread.z, expression);
    raise_kernel_error(std::move(e));
  }
  std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line,
               function, expression);
  std::abort();
}
