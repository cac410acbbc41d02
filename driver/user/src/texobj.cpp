// Texture and surface objects: cuTexObjectCreate / cuSurfObjectCreate and their Destroy and
// Get*Desc calls. An object is a 128-byte texture header (hw nv_texture_header.h) that libcuda
// fills in from the resource and texture descriptors and copies into device memory from the
// context's pool; the object's handle is the header's GPU address, which kernels pass to the
// texture unit at every fetch. The real driver keeps its headers in a table in video memory and
// hands out indices; either way a fetch finds everything it needs in device memory.
#include <cstring>
#include <map>

#include "array.h"
#include "copy.h"
#include "nv_texture_header.h"
#include "pool.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {

// What an object was created from, for the Get*Desc calls and Destroy. Guarded by driver_mutex().
struct TexObject {
  CUctx_st* ctx = nullptr;
  bool surface = false;
  CUDA_RESOURCE_DESC resource{};
  CUDA_TEXTURE_DESC texture{};
  CUDA_RESOURCE_VIEW_DESC view{};
};
std::map<uint64_t, TexObject>& objects() {
  static auto* live = new std::map<uint64_t, TexObject>;
  return *live;
}

constexpr uint64_t kTextureAlignment = 512;     // CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT
constexpr uint64_t kTexturePitchAlignment = 32;  // CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT
constexpr uint64_t kMaxLinearTexels = 1ull << 28;  // CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH

bool is_integer(CUarray_format f) { return f != CU_AD_FORMAT_FLOAT && f != CU_AD_FORMAT_HALF; }

void set_format(NvTextureHeader& h, CUarray_format format, unsigned channels) {
  const uint32_t bits = format_bytes(format) * 8;
  for (unsigned c = 0; c < 4; ++c) h.channel_bits[c] = c < channels ? static_cast<NvU8>(bits) : 0;
  switch (format) {
    case CU_AD_FORMAT_SIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT32: h.kind = NV_TEXEL_KIND_SIGNED; break;
    case CU_AD_FORMAT_HALF:
    case CU_AD_FORMAT_FLOAT: h.kind = NV_TEXEL_KIND_FLOAT; break;
    default: h.kind = NV_TEXEL_KIND_UNSIGNED; break;
  }
}

// The resource half of a header (where the texels are, their format and shape). Errors as
// cuTexObjectCreate's contract says.
CUresult describe_resource(CUctx_st& ctx, const CUDA_RESOURCE_DESC& r, NvTextureHeader* h, CUarray_format* format) {
  if (r.flags != 0) return CUDA_ERROR_INVALID_VALUE;
  switch (r.resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
      CUarray_st* a = find_array(r.res.array.hArray);
      if (a == nullptr || a->ctx != &ctx) return CUDA_ERROR_INVALID_HANDLE;
      const CUDA_ARRAY3D_DESCRIPTOR& d = a->desc;
      set_format(*h, d.Format, d.NumChannels);
      *format = d.Format;
      h->address = a->base;
      h->pitch = a->pitch;
      h->slice_pitch = a->pitch * a->rows;
      h->width = static_cast<NvU32>(d.Width);
      h->height = static_cast<NvU32>(a->rows);
      h->depth = 1;
      h->layers = 1;
      if (d.Flags & CUDA_ARRAY3D_CUBEMAP) {
        h->shape = (d.Flags & CUDA_ARRAY3D_LAYERED) ? NV_TEX_SHAPE_CUBEMAP_LAYERED : NV_TEX_SHAPE_CUBEMAP;
        h->layers = static_cast<NvU32>(d.Depth);
      } else if (d.Flags & CUDA_ARRAY3D_LAYERED) {
        h->shape = d.Height == 0 ? NV_TEX_SHAPE_1D_LAYERED : NV_TEX_SHAPE_2D_LAYERED;
        h->layers = static_cast<NvU32>(d.Depth);
      } else if (d.Depth != 0) {
        h->shape = NV_TEX_SHAPE_3D;
        h->depth = static_cast<NvU32>(d.Depth);
      } else {
        h->shape = d.Height == 0 ? NV_TEX_SHAPE_1D : NV_TEX_SHAPE_2D;
      }
      return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_LINEAR: {
      const auto& l = r.res.linear;
      const uint32_t texel = format_bytes(l.format) * l.numChannels;
      if (texel == 0 || (l.numChannels != 1 && l.numChannels != 2 && l.numChannels != 4)) return CUDA_ERROR_INVALID_VALUE;
      if (l.devPtr == 0 || l.devPtr % kTextureAlignment != 0 || l.sizeInBytes / texel > kMaxLinearTexels ||
          l.sizeInBytes < texel)
        return CUDA_ERROR_INVALID_VALUE;
      if (!is_device(ctx, l.devPtr, l.sizeInBytes)) return CUDA_ERROR_INVALID_VALUE;
      set_format(*h, l.format, l.numChannels);
      *format = l.format;
      h->address = l.devPtr;
      h->width = static_cast<NvU32>(l.sizeInBytes / texel);
      h->pitch = l.sizeInBytes;
      h->height = h->depth = h->layers = 1;
      h->shape = NV_TEX_SHAPE_LINEAR;
      return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_PITCH2D: {
      const auto& p = r.res.pitch2D;
      const uint32_t texel = format_bytes(p.format) * p.numChannels;
      if (texel == 0 || (p.numChannels != 1 && p.numChannels != 2 && p.numChannels != 4)) return CUDA_ERROR_INVALID_VALUE;
      if (p.devPtr == 0 || p.devPtr % kTextureAlignment != 0 || p.pitchInBytes % kTexturePitchAlignment != 0 ||
          p.width == 0 || p.height == 0 || p.width * texel > p.pitchInBytes)
        return CUDA_ERROR_INVALID_VALUE;
      if (!is_device(ctx, p.devPtr, p.pitchInBytes * (p.height - 1) + p.width * texel)) return CUDA_ERROR_INVALID_VALUE;
      set_format(*h, p.format, p.numChannels);
      *format = p.format;
      h->address = p.devPtr;
      h->pitch = p.pitchInBytes;
      h->slice_pitch = p.pitchInBytes * p.height;
      h->width = static_cast<NvU32>(p.width);
      h->height = static_cast<NvU32>(p.height);
      h->depth = h->layers = 1;
      h->shape = NV_TEX_SHAPE_2D;
      return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

// Copies the header into device memory from the pool; *handle = its address.
CUresult write_header(CUctx_st& ctx, const NvTextureHeader& h, uint64_t* handle) {
  CUdeviceptr va = 0;
  if (CUresult r = ctx.pool->alloc(sizeof h, &va); r != CUDA_SUCCESS) return r;
  if (CUresult r = copy(ctx, va, reinterpret_cast<uint64_t>(&h), sizeof h); r != CUDA_SUCCESS) {
    ctx.pool->free(va);
    return r;
  }
  *handle = va;
  return CUDA_SUCCESS;
}

CUresult destroy(uint64_t handle, bool surface) {
  if (handle == 0) return CUDA_SUCCESS;  // as on the H200 (texture.txt: cudaDestroyTextureObject(0))
  auto it = objects().find(handle);
  if (it == objects().end() || it->second.surface != surface) return CUDA_ERROR_INVALID_VALUE;
  CUctx_st* ctx = it->second.ctx;
  objects().erase(it);
  return ctx->active ? ctx->pool->free(handle) : CUDA_SUCCESS;
}

const TexObject* find(uint64_t handle, bool surface) {
  auto it = objects().find(handle);
  return it == objects().end() || it->second.surface != surface ? nullptr : &it->second;
}

}  // namespace

namespace minicuda::libcuda {
void destroy_texture_objects(CUctx_st& ctx) {
  auto& live = objects();
  for (auto it = live.begin(); it != live.end();) {
    if (it->second.ctx == &ctx) it = live.erase(it);
    else ++it;
  }
}
}  // namespace minicuda::libcuda

// Contract: in cuda_textures.h. Wrap and mirror need normalised coordinates: with unnormalised
// ones they address as clamp does.
CUresult cuTexObjectCreate(CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc,
                           const CUDA_TEXTURE_DESC* pTexDesc, const CUDA_RESOURCE_VIEW_DESC* pResViewDesc) {
  trace::Scope scope(trace::Layer::Libcuda, "cuTexObjectCreate(resType={}, filterMode={}, flags={:#x})",
                     pResDesc ? static_cast<int>(pResDesc->resType) : -1,
                     pTexDesc ? static_cast<int>(pTexDesc->filterMode) : -1, pTexDesc ? pTexDesc->flags : 0u);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pTexObject == nullptr || pResDesc == nullptr || pTexDesc == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (pResViewDesc != nullptr && pResViewDesc->format != CU_RES_VIEW_FORMAT_NONE) return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  NvTextureHeader h{};
  CUarray_format format{};
  if (CUresult r = describe_resource(*ctx, *pResDesc, &h, &format); r != CUDA_SUCCESS) return done(scope, r);
  const CUDA_TEXTURE_DESC& t = *pTexDesc;
  const bool normalized = (t.flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  // 32-bit integers cannot be read as normalised floats: they always read as integers.
  const bool as_integer =
      is_integer(format) && ((t.flags & CU_TRSF_READ_AS_INTEGER) != 0 || format_bytes(format) == 4);
  if (as_integer && t.filterMode == CU_TR_FILTER_MODE_LINEAR) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (int d = 0; d < 3; ++d) {
    if (t.addressMode[d] < CU_TR_ADDRESS_MODE_WRAP || t.addressMode[d] > CU_TR_ADDRESS_MODE_BORDER)
      return done(scope, CUDA_ERROR_INVALID_VALUE);
    const bool needs_normalized = t.addressMode[d] == CU_TR_ADDRESS_MODE_WRAP || t.addressMode[d] == CU_TR_ADDRESS_MODE_MIRROR;
    h.address_mode[d] = static_cast<NvU8>(needs_normalized && !normalized ? CU_TR_ADDRESS_MODE_CLAMP : t.addressMode[d]);
  }
  if (t.filterMode == CU_TR_FILTER_MODE_LINEAR && h.shape != NV_TEX_SHAPE_LINEAR) h.flags |= NV_TEX_FLAG_LINEAR_FILTER;
  if (normalized && h.shape != NV_TEX_SHAPE_LINEAR) h.flags |= NV_TEX_FLAG_NORMALIZED_COORDS;
  if (as_integer) h.flags |= NV_TEX_FLAG_READ_AS_INTEGER;
  if (t.flags & CU_TRSF_SRGB) h.flags |= NV_TEX_FLAG_SRGB;
  std::memcpy(h.border_color, t.borderColor, sizeof h.border_color);
  h.max_anisotropy = t.maxAnisotropy;
  uint64_t handle = 0;
  if (CUresult r = write_header(*ctx, h, &handle); r != CUDA_SUCCESS) return done(scope, r);
  TexObject o;
  o.ctx = ctx;
  o.resource = *pResDesc;
  o.texture = t;
  if (pResViewDesc != nullptr) o.view = *pResViewDesc;
  objects()[handle] = o;
  *pTexObject = handle;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pTexObject={:#x}", handle);
  return CUDA_SUCCESS;
}

// Contract: frees the object's header; 0: nothing, CUDA_SUCCESS; an unknown object: CUDA_ERROR_INVALID_VALUE.
CUresult cuTexObjectDestroy(CUtexObject texObject) {
  trace::Scope scope(trace::Layer::Libcuda, "cuTexObjectDestroy(texObject={:#x})", texObject);
  std::lock_guard lock(driver_mutex());
  return done(scope, destroy(texObject, false));
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc, CUtexObject texObject) {
  trace::Scope scope(trace::Layer::Libcuda, "cuTexObjectGetResourceDesc(texObject={:#x})", texObject);
  std::lock_guard lock(driver_mutex());
  const TexObject* o = find(texObject, false);
  if (pResDesc == nullptr || o == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pResDesc = o->resource;
  return done(scope, CUDA_SUCCESS);
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC* pTexDesc, CUtexObject texObject) {
  trace::Scope scope(trace::Layer::Libcuda, "cuTexObjectGetTextureDesc(texObject={:#x})", texObject);
  std::lock_guard lock(driver_mutex());
  const TexObject* o = find(texObject, false);
  if (pTexDesc == nullptr || o == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pTexDesc = o->texture;
  return done(scope, CUDA_SUCCESS);
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC* pResViewDesc, CUtexObject texObject) {
  trace::Scope scope(trace::Layer::Libcuda, "cuTexObjectGetResourceViewDesc(texObject={:#x})", texObject);
  std::lock_guard lock(driver_mutex());
  const TexObject* o = find(texObject, false);
  if (pResViewDesc == nullptr || o == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pResViewDesc = o->view;
  return done(scope, CUDA_SUCCESS);
}

// Contract: in cuda_textures.h. The H200 takes an array made without CUDA_ARRAY3D_SURFACE_LDST
// too (texture.txt: surfobj_without_flag), so minicuda does.
CUresult cuSurfObjectCreate(CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc) {
  trace::Scope scope(trace::Layer::Libcuda, "cuSurfObjectCreate(resType={})",
                     pResDesc ? static_cast<int>(pResDesc->resType) : -1);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pSurfObject == nullptr || pResDesc == nullptr || pResDesc->resType != CU_RESOURCE_TYPE_ARRAY)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  NvTextureHeader h{};
  CUarray_format format{};
  if (CUresult r = describe_resource(*ctx, *pResDesc, &h, &format); r != CUDA_SUCCESS) return done(scope, r);
  h.is_surface = 1;
  uint64_t handle = 0;
  if (CUresult r = write_header(*ctx, h, &handle); r != CUDA_SUCCESS) return done(scope, r);
  TexObject o;
  o.ctx = ctx;
  o.surface = true;
  o.resource = *pResDesc;
  objects()[handle] = o;
  *pSurfObject = handle;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pSurfObject={:#x}", handle);
  return CUDA_SUCCESS;
}

CUresult cuSurfObjectDestroy(CUsurfObject surfObject) {
  trace::Scope scope(trace::Layer::Libcuda, "cuSurfObjectDestroy(surfObject={:#x})", surfObject);
  std::lock_guard lock(driver_mutex());
  return done(scope, destroy(surfObject, true));
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc, CUsurfObject surfObject) {
  trace::Scope scope(trace::Layer::Libcuda, "cuSurfObjectGetResourceDesc(surfObject={:#x})", surfObject);
  std::lock_guard lock(driver_mutex());
  const TexObject* o = find(surfObject, true);
  if (pResDesc == nullptr || o == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pResDesc = o->resource;
  return done(scope, CUDA_SUCCESS);
}
