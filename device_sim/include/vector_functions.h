// vector_functions.h: the make_* constructors of the vector types (make_int2, make_float4,
// make_double2, ...), one per type of vector_types.h, as the toolkit's vector_functions.h
// declares them (its vector_functions.hpp, which holds the definitions there, includes this
// file here). Callable from host and kernel code. Part of the kernel language
// (minicuda::device_code); cuda_runtime.h includes it.
#ifndef __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__

#include "vector_types.h"

// MINICUDA_MAKE_VECTORS_(T, n): make_n1 .. make_n4 taking components of type T.
#define MINICUDA_MAKE_VECTORS_(T, n)                                                              \
  inline constexpr n##1 make_##n##1(T x) { return n##1{x}; }                                      \
  inline constexpr n##2 make_##n##2(T x, T y) { return n##2{x, y}; }                              \
  inline constexpr n##3 make_##n##3(T x, T y, T z) { return n##3{x, y, z}; }                      \
  inline constexpr n##4 make_##n##4(T x, T y, T z, T w) { return n##4{x, y, z, w}; }
#define MINICUDA_MAKE_VECTORS_ALIGNED_(T, n)                                                       \
  inline constexpr n##4_16a make_##n##4_16a(T x, T y, T z, T w) { return n##4_16a{x, y, z, w}; } \
  inline constexpr n##4_32a make_##n##4_32a(T x, T y, T z, T w) { return n##4_32a{x, y, z, w}; }

MINICUDA_MAKE_VECTORS_(signed char, char)
MINICUDA_MAKE_VECTORS_(unsigned char, uchar)
MINICUDA_MAKE_VECTORS_(short, short)
MINICUDA_MAKE_VECTORS_(unsigned short, ushort)
MINICUDA_MAKE_VECTORS_(int, int)
MINICUDA_MAKE_VECTORS_(unsigned int, uint)
MINICUDA_MAKE_VECTORS_(long int, long)
MINICUDA_MAKE_VECTORS_(unsigned long int, ulong)
MINICUDA_MAKE_VECTORS_(long long int, longlong)
MINICUDA_MAKE_VECTORS_(unsigned long long int, ulonglong)
MINICUDA_MAKE_VECTORS_(float, float)
MINICUDA_MAKE_VECTORS_(double, double)
MINICUDA_MAKE_VECTORS_ALIGNED_(long int, long)
MINICUDA_MAKE_VECTORS_ALIGNED_(unsigned long int, ulong)
MINICUDA_MAKE_VECTORS_ALIGNED_(long long int, longlong)
MINICUDA_MAKE_VECTORS_ALIGNED_(unsigned long long int, ulonglong)
MINICUDA_MAKE_VECTORS_ALIGNED_(double, double)

#undef MINICUDA_MAKE_VECTORS_ALIGNED_
#undef MINICUDA_MAKE_VECTORS_

#endif /* __VECTOR_FUNCTIONS_H__ */
