// sm_70_rt.h: __nanosleep, as the toolkit's crt/sm_70_rt.h declares it. Part of the kernel
// language (minicuda::device_code); only valid inside a kernel.
#ifndef __SM_70_RT_H__
#define __SM_70_RT_H__

#include "minicuda/isa.h"

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
