// vector_types.h: the CUDA vector types - char1 .. double4, their _16a / _32a variants, uint3
// (threadIdx, blockIdx) and dim3 (grid and block sizes) - with the toolkit's names, members and
// alignments (a float4 is 16-byte aligned because the GPU loads it in one 16-byte access; the
// three-component types are aligned as their component). The make_* functions are
// vector_functions.h's, as in the toolkit. Part of the kernel language (minicuda::device_code);
// cuda_runtime.h includes it through builtin_types.h.
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__

#include "host_defines.h"

// MINICUDA_VECTOR_TYPES_(T, name, A2, A4): name1 .. name4 over component type T, with name2
// aligned to A2 bytes and name4 to A4; name1 and name3 have the component's alignment. Each
// struct also gets its typedef, so C code can name it without `struct`, as with the toolkit.
#define MINICUDA_VEC1_(T, n) typedef struct n##1 { T x; } n##1;
#define MINICUDA_VEC2_(T, n, A) typedef struct __builtin_align__(A) n##2 { T x, y; } n##2;
#define MINICUDA_VEC3_(T, n) typedef struct n##3 { T x, y, z; } n##3;
#define MINICUDA_VEC4_(T, n, A) typedef struct __builtin_align__(A) n##4 { T x, y, z, w; } n##4;
#define MINICUDA_VECTOR_TYPES_(T, n, A2, A4) \
  MINICUDA_VEC1_(T, n) MINICUDA_VEC2_(T, n, A2) MINICUDA_VEC3_(T, n) MINICUDA_VEC4_(T, n, A4)

MINICUDA_VECTOR_TYPES_(signed char, char, 2, 4)
MINICUDA_VECTOR_TYPES_(unsigned char, uchar, 2, 4)
MINICUDA_VECTOR_TYPES_(short, short, 4, 8)
MINICUDA_VECTOR_TYPES_(unsigned short, ushort, 4, 8)
MINICUDA_VECTOR_TYPES_(int, int, 8, 16)
MINICUDA_VECTOR_TYPES_(unsigned int, uint, 8, 16)
MINICUDA_VECTOR_TYPES_(float, float, 8, 16)
// long2 is aligned to two longs (16 bytes on LP64); the four-component 64-bit types are 16-byte
// aligned, with _16a / _32a spellings that say the alignment (CUDA 13 prefers those).
MINICUDA_VECTOR_TYPES_(long int, long, 2 * sizeof(long int), 16)
MINICUDA_VECTOR_TYPES_(unsigned long int, ulong, 2 * sizeof(unsigned long int), 16)
MINICUDA_VECTOR_TYPES_(long long int, longlong, 16, 16)
MINICUDA_VECTOR_TYPES_(unsigned long long int, ulonglong, 16, 16)
MINICUDA_VECTOR_TYPES_(double, double, 16, 16)

#define MINICUDA_VEC4_ALIGNED_(T, n)                                   \
  typedef struct __builtin_align__(16) n##4_16a { T x, y, z, w; } n##4_16a; \
  typedef struct __builtin_align__(32) n##4_32a { T x, y, z, w; } n##4_32a;
MINICUDA_VEC4_ALIGNED_(long int, long)
MINICUDA_VEC4_ALIGNED_(unsigned long int, ulong)
MINICUDA_VEC4_ALIGNED_(long long int, longlong)
MINICUDA_VEC4_ALIGNED_(unsigned long long int, ulonglong)
MINICUDA_VEC4_ALIGNED_(double, double)

#undef MINICUDA_VEC4_ALIGNED_
#undef MINICUDA_VECTOR_TYPES_
#undef MINICUDA_VEC4_
#undef MINICUDA_VEC3_
#undef MINICUDA_VEC2_
#undef MINICUDA_VEC1_

#ifdef __cplusplus
/* Grid and block sizes; unspecified components are 1, so dim3(256) is 256 x 1 x 1. */
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
#else
typedef struct dim3 { unsigned int x, y, z; } dim3;
#endif

#endif /* __VECTOR_TYPES_H__ */
