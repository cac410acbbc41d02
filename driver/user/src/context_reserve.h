// Private to libcuda: how big a context's own device memory is (context_memory.h maps it).
//
// It is local memory, one slot per warp the GPU can hold at once, sized from RM's GR info as
// NVIDIA's own driver code sizes local memory (open-gpu-kernel-modules, nvidia-push's 3D channel
// setup: a warp's slot is the threads' part times 32 plus a per-warp part, rounded up to 512
// bytes, times the warps). docs/layers/libcuda.md, "The context's own memory":
//
//   per warp = align_up(stack x 32 + kLocalBytesPerWarp, 512)
//   warps    = MAX_WARPS_PER_SM x THREAD_STACK_SCALING_FACTOR
//   bytes    = align_up(per warp x warps, 2 MiB)
//
// Measured on the H200 (tests/data/h200/ctxmem/out): THREAD_STACK_SCALING_FACTOR is 132, its
// enabled SMs, and the buffer made at context creation is 154, 414, 418, 528, 678 and 1206 MiB
// for stacks of 16, 1024 (the default), 1040, 1472, 2048 and 4096 bytes, which this rule gives
// exactly, with kLocalBytesPerWarp = 18432 and nothing else. The default is the 0x19e00000 bytes
// the H200's libcuda maps right below a fresh context's first allocation
// (tests/data/h200/vmm/out/vmm_trace.txt); on the 4-SM teaching GPU the same rule gives 14 MiB.
// Header only, so that the rule can be tested on its own (tests/driver/test_context_memory.cpp).
#pragma once

#include <cstdint>

namespace minicuda::libcuda {

// CU_LIMIT_STACK_SIZE's default: the per-thread stack a fresh context provides.
inline constexpr uint64_t kDefaultStackBytes = 1024;
// A warp's slot beyond its 32 threads' stacks (576 bytes a thread): measured, the same for every
// stack size; what the driver keeps there is not known.
inline constexpr uint64_t kLocalBytesPerWarp = 18432;
// A warp's slot is a whole number of these; the whole, of the 2 MiB chunks VRAM is handed out in.
inline constexpr uint64_t kLocalBytesPerWarpAlign = 512;
inline constexpr uint64_t kLocalMemoryAlign = 2ull << 20;

// The sizes that make up a context's own memory on one device.
struct ContextReserve {
  uint64_t per_warp = 0;  // stack x 32 + kLocalBytesPerWarp, rounded up to kLocalBytesPerWarpAlign
  uint64_t warps = 0;     // MAX_WARPS_PER_SM x THREAD_STACK_SCALING_FACTOR
  uint64_t bytes = 0;     // per_warp x warps, rounded up to kLocalMemoryAlign
};

// The reserve of a context on a device whose RM reports max_warps_per_sm and
// stack_scaling_sms, with a per-thread stack of stack_bytes.
constexpr ContextReserve context_reserve(uint64_t max_warps_per_sm, uint64_t stack_scaling_sms,
                                         uint64_t stack_bytes = kDefaultStackBytes) {
  auto align_up = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };
  ContextReserve r;
  r.per_warp = align_up(stack_bytes * 32 + kLocalBytesPerWarp, kLocalBytesPerWarpAlign);
  r.warps = max_warps_per_sm * stack_scaling_sms;
  r.bytes = align_up(r.per_warp * r.warps, kLocalMemoryAlign);
  return r;
}

static_assert(context_reserve(64, 132).bytes == 0x19e00000, "the H200's recorded buffer");

}  // namespace minicuda::libcuda
