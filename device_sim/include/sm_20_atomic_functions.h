// sm_20_atomic_functions.h: atomicAdd on float, as the toolkit's sm_20_atomic_functions.h.
// Part of the kernel language
// (minicuda::device_code); the functions are only valid inside a kernel.
#ifndef __SM_20_ATOMIC_FUNCTIONS_H__
#define __SM_20_ATOMIC_FUNCTIONS_H__

#include "device_atomic_functions.h"

inline float atomicAdd(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float x) { return x + v; });
}

#endif /* __SM_20_ATOMIC_FUNCTIONS_H__ */
