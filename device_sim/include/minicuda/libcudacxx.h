// minicuda/libcudacxx.h: what the simulated libcu++ headers (<cuda/barrier>, <cuda/pipeline>,
// <cuda/atomic>) share: cuda::thread_scope, cuda::aligned_size_t and the copy behind every
// memcpy_async. Kernel code only (docs/tensor-cores.md, "libcu++").
//
// memcpy_async on the simulated SM copies at the call, in the calling thread: the copy is complete
// before the barrier phase or pipeline stage it belongs to can complete, which is all the real one
// promises, so a program that waits as CUDA requires sees the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "isa.h"

// cuda::std: the C++ standard library as libcu++ offers it in kernels, here the host's own
// (every name of ::std is found through cuda::std).
namespace cuda::std {
using namespace ::std;
}  // namespace cuda::std

namespace cuda {

// How far a synchronisation reaches: the caller alone, its block, the device, the system.
enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };

// A size promising that the source, destination and size are all multiples of Alignment.
template <std::size_t Alignment>
struct aligned_size_t {
  static_assert(Alignment != 0 && (Alignment & (Alignment - 1)) == 0, "cuda::aligned_size_t: the alignment is a power of two");
  static constexpr std::size_t align = Alignment;
  std::size_t value;
  explicit constexpr aligned_size_t(std::size_t size) : value(size) {}
  constexpr operator std::size_t() const { return value; }
};

}  // namespace cuda

namespace minicuda::libcudacxx {

inline std::size_t size_of(std::size_t n) { return n; }
template <std::size_t A>
std::size_t size_of(const ::cuda::aligned_size_t<A>& n) {
  return n.value;
}

// The caller's share of a copy by a group: bytes r, r + n, r + 2n ... for rank r of n threads.
inline void copy_share(void* dst, const void* src, std::size_t bytes, unsigned rank, unsigned threads) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (std::size_t i = rank; i < bytes; i += threads) d[i] = s[i];
}

// The promise of an aligned_size_t: pointers and size multiples of its alignment; else the kernel
// stops (the GPU's cp.async would fault or copy wrongly).
template <std::size_t A>
void check_alignment(const void* dst, const void* src, const ::cuda::aligned_size_t<A>& n) {
  if (reinterpret_cast<std::uintptr_t>(dst) % A != 0 || reinterpret_cast<std::uintptr_t>(src) % A != 0 || n.value % A != 0)
    ::minicuda::gpu::isa::misuse("cuda::memcpy_async: the source, destination or size is not a multiple of the "
                                 "alignment its cuda::aligned_size_t promises");
}
inline void check_alignment(const void*, const void*, std::size_t) {}

}  // namespace minicuda::libcudacxx
