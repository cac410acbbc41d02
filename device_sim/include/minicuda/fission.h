// minicuda/fission.h: what the block functions that cu2cxx emits call (region fission,
// docs/tools/cu2cxx.md). A block function runs a whole block: the kernel's body split at its
// barriers into regions, each a loop over the block's threads. These helpers give it the two
// things a plain loop lacks: telling the SM which thread runs (fault reports, assert), and
// storage for the locals that live across a barrier, one copy per thread.
//
// Included by device_code.h; only generated code calls these, from kernel code.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

namespace minicuda::gpu {
// The linear index (x fastest) of the thread whose part of a region runs now, while a block
// runs through its block function (the SM reads it for fault reports and assert messages).
extern thread_local constinit unsigned t_region_thread __attribute__((tls_model("initial-exec")));
namespace isa {
// Scratch memory of the calling SM thread: slot `slot`, at least `bytes`, aligned to `align`.
// Kept from block to block (its content is left as it was); valid until the next call for the
// same slot with more bytes.
void* region_scratch(unsigned slot, std::size_t bytes, std::size_t align);
}  // namespace isa
}  // namespace minicuda::gpu

namespace minicuda::fission {

// Tells the SM that thread `t` (linear index) runs now. A relaxed atomic store: g++ keeps one
// store per thread (a plain one could be sunk out of the loop), so a fault names the right thread.
inline void at_thread(unsigned t) { __atomic_store_n(&gpu::t_region_thread, t, __ATOMIC_RELAXED); }

// One thread's copy of a replicated local of type S. Copies of 8 bytes or more are 16-byte
// aligned, as g++ would place such a local on the stack: packed at sizeof(S) (12 for an int[3]),
// every other thread's copy would start at a 4-byte boundary, where g++'s 8-byte moves of it
// would trip the SM's alignment check (a misaligned-address error the kernel never made).
template <class S>
struct alignas(alignof(S) >= 16 ? alignof(S) : (sizeof(S) >= 8 ? 16 : alignof(S))) Replica {
  S value;
};

// A barrier reduction's predicate as the thread passes it to __syncthreads_count/_and/_or: an
// int (the same conversion), true when not 0.
inline bool predicate(int p) { return p != 0; }

// Storage for `threads` copies of a replicated local of type S (one per thread of the block).
template <class S>
Replica<S>* replicas(unsigned slot, unsigned threads) {
  return static_cast<Replica<S>*>(
      gpu::isa::region_scratch(slot, sizeof(Replica<S>) * (threads ? threads : 1), alignof(Replica<S>)));
}

// Can locals of these types live in per-thread storage? They are copied into it bytewise and
// never destroyed, which is exact only for trivially copyable types (every scalar, pointer,
// vector type, plain struct and array of them). A block function whose replicated locals are not
// all so returns false before running anything, and the SM runs the kernel with fibers.
template <class... S>
inline constexpr bool replicable = (std::is_trivially_copyable_v<S> && ...);

// Can the result of an inlined call (cu2cxx, fission_inline.h) go through a local that is
// declared first and assigned where the function returned? Exactly so for scalars: the
// assignment converts as the return did, and nothing runs to make or copy them. A block function
// with another result type (a class, through a typedef) returns false, and the kernel runs with
// fibers.
template <class... R>
inline constexpr bool scalar_results = (std::is_scalar_v<std::remove_cv_t<R>> && ...);

// The local `slot` of a thread, declared without an initializer: default-initialised, as the
// declaration would (nothing for scalars; a class's default member initializers run).
template <class S>
void default_initialize(S& slot) {
  if constexpr (std::is_array_v<S>) {
    for (auto& element : slot) default_initialize(element);
  } else if constexpr (!std::is_trivially_default_constructible_v<S>) {
    ::new (static_cast<void*>(&slot)) S;
  }
}

// The local `slot` of a thread, declared with an initializer: `value` is the object the
// declaration made (a temporary of the declared type), copied into the thread's storage.
template <class S, class T>
void initialize(S& slot, const T& value) {
  static_assert(sizeof(S) == sizeof(T));
  std::memcpy(static_cast<void*>(&slot), static_cast<const void*>(&value), sizeof(S));
}

}  // namespace minicuda::fission
