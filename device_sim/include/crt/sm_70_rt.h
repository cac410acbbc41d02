// crt/sm_70_rt.h: what compute capability 7.0 added to kernels, as the toolkit's crt/sm_70_rt.h
// declares it: the warp match intrinsics and __nanosleep. __match_any_sync gives each lane the lanes of mask whose value
// equals its own; __match_all_sync gives mask (and *pred = 1) when every lane of mask holds the
// same value, else 0 (and *pred = 0). Values are compared bit for bit. Kernel code only.
#ifndef __SM_70_RT_H__
#define __SM_70_RT_H__

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "minicuda/isa.h"

namespace minicuda::gpu::isa {
template <class T>
uint64_t match_bits(T value) {
  static_assert(std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8), "match compares 32- or 64-bit values");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
}  // namespace minicuda::gpu::isa

#define MINICUDA_MATCH_TYPES(X) \
  X(unsigned) X(int) X(unsigned long) X(long) X(unsigned long long) X(long long) X(float) X(double)
#define MINICUDA_MATCH(T)                                                                  \
  inline unsigned int __match_any_sync(unsigned mask, T value) {                          \
    return minicuda::gpu::isa::match(mask, minicuda::gpu::isa::match_bits(value), nullptr); \
  }                                                                                        \
  inline unsigned int __match_all_sync(unsigned mask, T value, int* pred) {               \
    int all = 0;                                                                           \
    const unsigned r = minicuda::gpu::isa::match(mask, minicuda::gpu::isa::match_bits(value), &all); \
    *pred = all;                                                                           \
    return r;                                                                              \
  }
MINICUDA_MATCH_TYPES(MINICUDA_MATCH)
#undef MINICUDA_MATCH
#undef MINICUDA_MATCH_TYPES

// Suspends the calling thread for about `ns` nanoseconds. The GPU guarantees a sleep in [0, 2 ns]
// and at most about a millisecond; here the thread waits on the SM's cycle counter (clock64, at
// 1.98 cycles per nanosecond) for min(ns, 1 ms). The SM runs a block's threads one at a time, so
// the sleeping thread's block waits with it: a sleep paces a loop, it cannot wait for another
// thread of the same block to make progress (docs/kernels.md, known gaps).
inline void __nanosleep(unsigned int ns) {
  constexpr unsigned kLongest = 1000000;
  const long long cycles = static_cast<long long>(ns < kLongest ? ns : kLongest) * 198 / 100;
  const long long start = minicuda::gpu::isa::clock64();
  while (minicuda::gpu::isa::clock64() - start < cycles) {
  }
}

#endif /* __SM_70_RT_H__ */
