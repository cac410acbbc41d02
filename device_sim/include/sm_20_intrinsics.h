// sm_20_intrinsics.h: the barrier reductions __syncthreads_count, __syncthreads_and and
// __syncthreads_or, as the toolkit's sm_20_intrinsics.h. Part of the kernel language
// (minicuda::device_code); the functions are only valid inside a kernel.
#ifndef __SM_20_INTRINSICS_H__
#define __SM_20_INTRINSICS_H__

#include "minicuda/isa.h"

inline int __syncthreads_count(int p) { return minicuda::gpu::isa::syncthreads_reduce(0, p); }
inline int __syncthreads_and(int p) { return minicuda::gpu::isa::syncthreads_reduce(1, p); }
inline int __syncthreads_or(int p) { return minicuda::gpu::isa::syncthreads_reduce(2, p); }

#endif /* __SM_20_INTRINSICS_H__ */
