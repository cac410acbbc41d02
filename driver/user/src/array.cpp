// CUDA arrays: cuArrayCreate_v2, cuArray3DCreate_v2, cuArrayDestroy and the descriptor queries.
// An array is device memory from the context's pool (the cuMemAlloc_v2 chain: RM objects, a GPU
// VA mapping), laid out pitch-linear: rows padded to 32 bytes, slices one after another. The real
// driver lays arrays out block-linear (tiles that keep 2-D neighbours close); the texels a kernel
// reads are the same either way, and copies and the texture unit both use the layout array.h
// describes (docs/textures.md).
#include <map>
#include <memory>

#include "array.h"
#include "pool.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace minicuda::libcuda {
namespace {

// The live arrays, by handle. Guarded by driver_mutex().
std::map<CUarray, std::unique_ptr<CUarray_st>>& arrays() {
  static auto* live = new std::map<CUarray, std::unique_ptr<CUarray_st>>;
  return *live;
}

// Checks a descriptor as cuArray3DCreate_v2 does; false: CUDA_ERROR_INVALID_VALUE.
bool valid_descriptor(const CUDA_ARRAY3D_DESCRIPTOR& d) {
  if (format_bytes(d.Format) == 0) return false;
  if (d.NumChannels != 1 && d.NumChannels != 2 && d.NumChannels != 4) return false;
  if (d.Width == 0) return false;
  if (d.Flags & ~static_cast<unsigned>(CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                                        CUDA_ARRAY3D_TEXTURE_GATHER))
    return false;
  if (d.Flags & CUDA_ARRAY3D_CUBEMAP) {
    if (d.Width != d.Height) return false;
    if (d.Flags & CUDA_ARRAY3D_LAYERED) return d.Depth != 0 && d.Depth % 6 == 0;
    return d.Depth == 6;
  }
  if ((d.Flags & CUDA_ARRAY3D_LAYERED) && d.Depth == 0) return false;
  if (d.Depth != 0 && d.Height == 0 && !(d.Flags & CUDA_ARRAY3D_LAYERED)) return false;  // 3-D needs a height
  constexpr size_t kMaxExtent = 1u << 17;  // CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH (131072)
  return d.Width <= kMaxExtent && d.Height <= kMaxExtent && d.Depth <= kMaxExtent;
}

CUresult create(const CUDA_ARRAY3D_DESCRIPTOR& d, CUarray* out) {
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return r;
  if (!valid_descriptor(d)) return CUDA_ERROR_INVALID_VALUE;
  auto a = std::make_unique<CUarray_st>();
  a->ctx = ctx;
  a->desc = d;
  const uint64_t row = d.Width * format_bytes(d.Format) * d.NumChannels;
  a->pitch = (row + kArrayRowAlignment - 1) / kArrayRowAlignment * kArrayRowAlignment;
  a->rows = d.Height == 0 ? 1 : d.Height;
  a->slices = d.Depth == 0 ? 1 : d.Depth;
  if (CUresult r = ctx->pool->alloc(a->pitch * a->rows * a->slices, &a->base); r != CUDA_SUCCESS) return r;
  trace::note(trace::Layer::Libcuda, "array: {} x {} x {}, {} B per row, at {:#x}", d.Width, a->rows, a->slices,
              a->pitch, a->base);
  *out = a.get();
  arrays().emplace(a.get(), std::move(a));
  return CUDA_SUCCESS;
}

}  // namespace

uint32_t format_bytes(CUarray_format format) {
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
  }
}

CUarray_st* find_array(CUarray h) {
  auto it = arrays().find(h);
  return it == arrays().end() ? nullptr : it->second.get();
}

void destroy_arrays(CUctx_st& ctx) {
  auto& live = arrays();
  for (auto it = live.begin(); it != live.end();) {
    if (it->second->ctx == &ctx) it = live.erase(it);
    else ++it;
  }
}

}  // namespace minicuda::libcuda

// Contract: a 1-D (Height 0) or 2-D array; see cuda_textures.h for the errors.
CUresult cuArrayCreate_v2(CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* pAllocateArray) {
  trace::Scope scope(trace::Layer::Libcuda, "cuArrayCreate_v2(Width={}, Height={}, Format={:#x}, NumChannels={})",
                     pAllocateArray ? pAllocateArray->Width : 0, pAllocateArray ? pAllocateArray->Height : 0,
                     pAllocateArray ? static_cast<unsigned>(pAllocateArray->Format) : 0u,
                     pAllocateArray ? pAllocateArray->NumChannels : 0u);
  std::lock_guard lock(driver_mutex());
  if (pHandle == nullptr || pAllocateArray == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUDA_ARRAY3D_DESCRIPTOR d{};
  d.Width = pAllocateArray->Width;
  d.Height = pAllocateArray->Height;
  d.Format = pAllocateArray->Format;
  d.NumChannels = pAllocateArray->NumChannels;
  return done(scope, create(d, pHandle));
}

// Contract: a 1-D, 2-D, 3-D, layered or cubemap array; see cuda_textures.h for the errors.
CUresult cuArray3DCreate_v2(CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray) {
  trace::Scope scope(trace::Layer::Libcuda,
                     "cuArray3DCreate_v2(Width={}, Height={}, Depth={}, Format={:#x}, NumChannels={}, Flags={:#x})",
                     pAllocateArray ? pAllocateArray->Width : 0, pAllocateArray ? pAllocateArray->Height : 0,
                     pAllocateArray ? pAllocateArray->Depth : 0,
                     pAllocateArray ? static_cast<unsigned>(pAllocateArray->Format) : 0u,
                     pAllocateArray ? pAllocateArray->NumChannels : 0u, pAllocateArray ? pAllocateArray->Flags : 0u);
  std::lock_guard lock(driver_mutex());
  if (pHandle == nullptr || pAllocateArray == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, create(*pAllocateArray, pHandle));
}

// Contract: frees the array's device memory; an unknown or destroyed handle: CUDA_ERROR_INVALID_HANDLE.
CUresult cuArrayDestroy(CUarray hArray) {
  trace::Scope scope(trace::Layer::Libcuda, "cuArrayDestroy(hArray={})", static_cast<const void*>(hArray));
  std::lock_guard lock(driver_mutex());
  CUarray_st* a = find_array(hArray);
  if (a == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  CUresult r = a->ctx->active ? a->ctx->pool->free(a->base) : CUDA_SUCCESS;
  arrays().erase(hArray);
  return done(scope, r);
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* pArrayDescriptor, CUarray hArray) {
  trace::Scope scope(trace::Layer::Libcuda, "cuArrayGetDescriptor_v2(hArray={})", static_cast<const void*>(hArray));
  std::lock_guard lock(driver_mutex());
  if (pArrayDescriptor == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUarray_st* a = find_array(hArray);
  if (a == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (a->desc.Depth != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  pArrayDescriptor->Width = a->desc.Width;
  pArrayDescriptor->Height = a->desc.Height;
  pArrayDescriptor->Format = a->desc.Format;
  pArrayDescriptor->NumChannels = a->desc.NumChannels;
  return done(scope, CUDA_SUCCESS);
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor, CUarray hArray) {
  trace::Scope scope(trace::Layer::Libcuda, "cuArray3DGetDescriptor_v2(hArray={})", static_cast<const void*>(hArray));
  std::lock_guard lock(driver_mutex());
  if (pArrayDescriptor == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUarray_st* a = find_array(hArray);
  if (a == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  *pArrayDescriptor = a->desc;
  return done(scope, CUDA_SUCCESS);
}
