// sm_60_atomic_functions.h: atomicAdd on double and the scoped atomics (atomicAdd_block,
// atomicAdd_system, ... of every atomic function and every type it takes, the __half and
// __nv_bfloat16 ones of cuda_fp16.h and cuda_bf16.h included), as the toolkit's
// sm_60_atomic_functions.h. Every scope is the same host atomic here: _block and _system differ
// on the GPU only in which caches must see the update, and here there is one memory. Part of the kernel language
// (minicuda::device_code); the functions are only valid inside a kernel.
#ifndef __SM_60_ATOMIC_FUNCTIONS_H__
#define __SM_60_ATOMIC_FUNCTIONS_H__

#include "device_atomic_functions.h"
#include "sm_20_atomic_functions.h"

inline double atomicAdd(double* a, double v) {
  return minicuda::gpu::isa::atomic_float(a, [v](double x) { return x + v; });
}
#define MINICUDA_SCOPED_ATOMIC(name)                                                 \
  template <class T, class... A>                                                     \
  inline auto name##_block(T* a, A... v) { return name(a, v...); }                  \
  template <class T, class... A>                                                     \
  inline auto name##_system(T* a, A... v) { return name(a, v...); }
MINICUDA_SCOPED_ATOMIC(atomicAdd)
MINICUDA_SCOPED_ATOMIC(atomicSub)
MINICUDA_SCOPED_ATOMIC(atomicExch)
MINICUDA_SCOPED_ATOMIC(atomicMin)
MINICUDA_SCOPED_ATOMIC(atomicMax)
MINICUDA_SCOPED_ATOMIC(atomicCAS)
MINICUDA_SCOPED_ATOMIC(atomicAnd)
MINICUDA_SCOPED_ATOMIC(atomicOr)
MINICUDA_SCOPED_ATOMIC(atomicXor)
MINICUDA_SCOPED_ATOMIC(atomicInc)
MINICUDA_SCOPED_ATOMIC(atomicDec)
#undef MINICUDA_SCOPED_ATOMIC

#endif /* __SM_60_ATOMIC_FUNCTIONS_H__ */
