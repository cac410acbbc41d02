// vector_types.h: the CUDA vector types - uint3 (threadIdx, blockIdx), dim3 (grid and block
// sizes), int2 ... double2 and their make_* functions - aligned as the toolkit's vector_types.h
// aligns them (a float4 load is one 16-byte access on the GPU). Part of the kernel language
// (minicuda::device_code); cuda_runtime.h includes it through minicuda/device_code.h.
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__

/* Three unsigned components, as in vector_types.h (threadIdx and blockIdx are uint3). */
struct uint3 {
  unsigned int x, y, z;
};
/* Grid and block sizes; unspecified components are 1, so dim3(256) is 256 x 1 x 1. */
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
// Aligned as vector_types.h aligns them (a float4 load is one 16-byte access on the GPU).
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned int x, y; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct float3 { float x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline constexpr int2 make_int2(int x, int y) { return {x, y}; }
inline constexpr int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline constexpr uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
inline constexpr float2 make_float2(float x, float y) { return {x, y}; }
inline constexpr float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline constexpr float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline constexpr double2 make_double2(double x, double y) { return {x, y}; }

#endif /* __VECTOR_TYPES_H__ */
