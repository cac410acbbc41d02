// crt/sm_80_rt.h: the warp reduction intrinsics of compute capability 8.0, as the toolkit's
// crt/sm_80_rt.h declares them: every lane of mask gets the sum, minimum, maximum (unsigned or
// signed by the value's type), or bitwise and/or/xor of the lanes' values. Kernel code only.
#ifndef __SM_80_RT_H__
#define __SM_80_RT_H__

#include "minicuda/isa.h"

inline unsigned __reduce_add_sync(unsigned mask, unsigned value) { return minicuda::gpu::isa::reduce(mask, value, 0); }
inline unsigned __reduce_min_sync(unsigned mask, unsigned value) { return minicuda::gpu::isa::reduce(mask, value, 1); }
inline unsigned __reduce_max_sync(unsigned mask, unsigned value) { return minicuda::gpu::isa::reduce(mask, value, 2); }
inline int __reduce_add_sync(unsigned mask, int value) {
  return static_cast<int>(minicuda::gpu::isa::reduce(mask, static_cast<unsigned>(value), 0));
}
inline int __reduce_min_sync(unsigned mask, int value) {
  return static_cast<int>(minicuda::gpu::isa::reduce(mask, static_cast<unsigned>(value), 3));
}
inline int __reduce_max_sync(unsigned mask, int value) {
  return static_cast<int>(minicuda::gpu::isa::reduce(mask, static_cast<unsigned>(value), 4));
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned value) { return minicuda::gpu::isa::reduce(mask, value, 5); }
inline unsigned __reduce_or_sync(unsigned mask, unsigned value) { return minicuda::gpu::isa::reduce(mask, value, 6); }
inline unsigned __reduce_xor_sync(unsigned mask, unsigned value) { return minicuda::gpu::isa::reduce(mask, value, 7); }

#endif /* __SM_80_RT_H__ */
