// array.h: CUDA arrays inside libcuda (array.cpp) - what a CUarray handle points at, for the
// copies (copy2d.cpp) and the texture and surface objects (texobj.cpp) that name one.
#pragma once

#include "libcuda.h"

// A CUDA array: device memory from the context's pool, laid out pitch-linear - `rows` rows of
// `pitch` bytes per slice, `slices` slices (depth planes, layers or cube faces) one after the
// other. Guarded by driver_mutex().
struct CUarray_st {
  CUctx_st* ctx = nullptr;
  CUdeviceptr base = 0;
  uint64_t pitch = 0;   // bytes per row: Width * element size, rounded up to kArrayRowAlignment
  uint64_t rows = 0;    // rows per slice: Height, or 1 for a 1-D array
  uint64_t slices = 0;  // Depth, or 1
  CUDA_ARRAY3D_DESCRIPTOR desc{};
};

namespace minicuda::libcuda {

// Row alignment of an array (CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT).
inline constexpr uint64_t kArrayRowAlignment = 32;

// The live array `h` names, or null. Caller holds driver_mutex().
CUarray_st* find_array(CUarray h);
// Bytes of one element of `format` (one channel); 0 for a format minicuda does not take.
uint32_t format_bytes(CUarray_format format);
// Forget every array and texture/surface object of ctx (its teardown; the pool's memory goes
// with the context).
void destroy_arrays(CUctx_st& ctx);
void destroy_texture_objects(CUctx_st& ctx);

}  // namespace minicuda::libcuda
