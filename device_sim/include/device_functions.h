// device_functions.h: the basic device functions - __syncthreads, the memory fences, __trap,
// clock64 - and, through the crt/ files it includes, the intrinsics the toolkit's
// crt/device_functions.h declares:
//   crt/device_int_intrinsics.h       __popc, __clz, __ffs, __brev, __byte_perm, funnel shifts,
//                                     __mul24, __mulhi, __sad, __dp4a, __hadd, ...
//   crt/device_float_intrinsics.h     bit reinterpretations (__float_as_int, ...) and the fast
//                                     intrinsics (__expf, __sinf, __fdividef, __saturatef, ...)
//   crt/device_rounding_intrinsics.h  arithmetic and conversions with an explicit rounding mode
//                                     (__fadd_rd, __fmaf_rz, __float2int_rn, __int2float_ru, ...)
// Part of the kernel language (minicuda::device_code). The synchronisation functions are only
// valid inside a kernel; the intrinsics are pure functions, callable from host code too.
#ifndef __DEVICE_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_H__

#include <cstring>

#include "crt/device_float_intrinsics.h"
#include "crt/device_int_intrinsics.h"
#include "crt/device_simd_intrinsics.h"
#include "crt/device_rounding_intrinsics.h"
#include "minicuda/isa.h"

inline void __syncthreads() { minicuda::gpu::isa::syncthreads(); }

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
[[noreturn]] inline void __trap() { minicuda::gpu::isa::trap(); }

inline long long clock64() { return minicuda::gpu::isa::clock64(); }

#endif /* __DEVICE_FUNCTIONS_H__ */
