// Texture and surface objects in the runtime: cudaCreateTextureObject / cudaCreateSurfaceObject
// and their Destroy and Get*Desc calls, over libcuda's cuTexObject* / cuSurfObject*. The runtime
// translates its descriptors (a channel description, a read mode, normalizedCoords) into the
// driver's (a format and channel count, CU_TRSF_* flags) and back.
#include <cstring>

#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

// cudaResourceDesc -> CUDA_RESOURCE_DESC. false: a channel description with no driver format.
bool to_driver(const cudaResourceDesc& r, CUDA_RESOURCE_DESC* out) {
  *out = CUDA_RESOURCE_DESC{};
  out->resType = static_cast<CUresourcetype>(r.resType);
  out->flags = r.flags;
  switch (r.resType) {
    case cudaResourceTypeArray: out->res.array.hArray = reinterpret_cast<CUarray>(r.res.array.array); return true;
    case cudaResourceTypeMipmappedArray:
      out->res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(r.res.mipmap.mipmap);
      return true;
    case cudaResourceTypeLinear:
      out->res.linear.devPtr = reinterpret_cast<CUdeviceptr>(r.res.linear.devPtr);
      out->res.linear.sizeInBytes = r.res.linear.sizeInBytes;
      return array_format(r.res.linear.desc, &out->res.linear.format, &out->res.linear.numChannels);
    case cudaResourceTypePitch2D:
      out->res.pitch2D.devPtr = reinterpret_cast<CUdeviceptr>(r.res.pitch2D.devPtr);
      out->res.pitch2D.width = r.res.pitch2D.width;
      out->res.pitch2D.height = r.res.pitch2D.height;
      out->res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
      return array_format(r.res.pitch2D.desc, &out->res.pitch2D.format, &out->res.pitch2D.numChannels);
    default: return true;  // the driver refuses the type
  }
}

cudaResourceDesc from_driver(const CUDA_RESOURCE_DESC& r) {
  cudaResourceDesc out;
  std::memset(&out, 0, sizeof out);
  out.resType = static_cast<cudaResourceType>(r.resType);
  out.flags = r.flags;
  switch (r.resType) {
    case CU_RESOURCE_TYPE_ARRAY: out.res.array.array = reinterpret_cast<cudaArray_t>(r.res.array.hArray); break;
    case CU_RESOURCE_TYPE_LINEAR:
      out.res.linear.devPtr = reinterpret_cast<void*>(r.res.linear.devPtr);
      out.res.linear.sizeInBytes = r.res.linear.sizeInBytes;
      out.res.linear.desc = channel_desc(r.res.linear.format, r.res.linear.numChannels);
      break;
    case CU_RESOURCE_TYPE_PITCH2D:
      out.res.pitch2D.devPtr = reinterpret_cast<void*>(r.res.pitch2D.devPtr);
      out.res.pitch2D.width = r.res.pitch2D.width;
      out.res.pitch2D.height = r.res.pitch2D.height;
      out.res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
      out.res.pitch2D.desc = channel_desc(r.res.pitch2D.format, r.res.pitch2D.numChannels);
      break;
    default: break;
  }
  return out;
}

}  // namespace

// Contract: in crt/cuda_texture_api.h; linear filtering of an integer format read as element type:
// cudaErrorInvalidFilterSetting; an unknown array: cudaErrorInvalidResourceHandle. Element-type
// reads of integer formats become
// CU_TRSF_READ_AS_INTEGER; normalizedCoords, sRGB and seamlessCubemap their flags.
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                    const struct cudaTextureDesc* pTexDesc,
                                    const struct cudaResourceViewDesc* pResViewDesc) {
  trace::Scope scope(trace::Layer::Cudart, "cudaCreateTextureObject(resType={}, filterMode={}, readMode={}, normalizedCoords={})",
                     pResDesc ? static_cast<int>(pResDesc->resType) : -1,
                     pTexDesc ? static_cast<int>(pTexDesc->filterMode) : -1,
                     pTexDesc ? static_cast<int>(pTexDesc->readMode) : -1, pTexDesc ? pTexDesc->normalizedCoords : 0);
  if (pTexObject == nullptr || pResDesc == nullptr || pTexDesc == nullptr) return done(scope, cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  if (!to_driver(*pResDesc, &r)) return done(scope, cudaErrorInvalidChannelDescriptor);
  const cudaTextureDesc& t = *pTexDesc;
  CUDA_TEXTURE_DESC d{};
  for (int i = 0; i < 3; ++i) d.addressMode[i] = static_cast<CUaddress_mode>(t.addressMode[i]);
  d.filterMode = static_cast<CUfilter_mode>(t.filterMode);
  if (t.readMode == cudaReadModeElementType) d.flags |= CU_TRSF_READ_AS_INTEGER;
  if (t.normalizedCoords) d.flags |= CU_TRSF_NORMALIZED_COORDINATES;
  if (t.sRGB) d.flags |= CU_TRSF_SRGB;
  if (t.seamlessCubemap) d.flags |= CU_TRSF_SEAMLESS_CUBEMAP;
  if (t.disableTrilinearOptimization) d.flags |= CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION;
  d.maxAnisotropy = t.maxAnisotropy;
  d.mipmapFilterMode = static_cast<CUfilter_mode>(t.mipmapFilterMode);
  d.mipmapLevelBias = t.mipmapLevelBias;
  d.minMipmapLevelClamp = t.minMipmapLevelClamp;
  d.maxMipmapLevelClamp = t.maxMipmapLevelClamp;
  std::memcpy(d.borderColor, t.borderColor, sizeof d.borderColor);
  CUDA_RESOURCE_VIEW_DESC v{};
  if (pResViewDesc != nullptr) {
    v.format = static_cast<CUresourceViewFormat>(pResViewDesc->format);
    v.width = pResViewDesc->width;
    v.height = pResViewDesc->height;
    v.depth = pResViewDesc->depth;
    v.firstMipmapLevel = pResViewDesc->firstMipmapLevel;
    v.lastMipmapLevel = pResViewDesc->lastMipmapLevel;
    v.firstLayer = pResViewDesc->firstLayer;
    v.lastLayer = pResViewDesc->lastLayer;
  }
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  // Linear filtering of integers read as element type: the runtime's own error (H200:
  // texture.txt, cudaErrorInvalidFilterSetting).
  if (t.filterMode == cudaFilterModeLinear && t.readMode == cudaReadModeElementType) {
    CUarray_format format = CU_AD_FORMAT_FLOAT;
    if (r.resType == CU_RESOURCE_TYPE_ARRAY) {
      CUDA_ARRAY3D_DESCRIPTOR ad{};
      if (cuArray3DGetDescriptor_v2(&ad, r.res.array.hArray) == CUDA_SUCCESS) format = ad.Format;
    } else if (r.resType == CU_RESOURCE_TYPE_LINEAR) {
      format = r.res.linear.format;
    } else if (r.resType == CU_RESOURCE_TYPE_PITCH2D) {
      format = r.res.pitch2D.format;
    }
    if (format != CU_AD_FORMAT_FLOAT && format != CU_AD_FORMAT_HALF) return done(scope, cudaErrorInvalidFilterSetting);
  }
  CUtexObject object = 0;
  CUresult res = cuTexObjectCreate(&object, &r, &d, pResViewDesc ? &v : nullptr);
  if (res == CUDA_SUCCESS) *pTexObject = object;
  return done(scope, to_cuda_error(res));
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDestroyTextureObject(texObject={:#x})", texObject);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuTexObjectDestroy(texObject)));
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* pResDesc, cudaTextureObject_t texObject) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetTextureObjectResourceDesc(texObject={:#x})", texObject);
  if (pResDesc == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_RESOURCE_DESC r{};
  if (CUresult res = cuTexObjectGetResourceDesc(&r, texObject); res != CUDA_SUCCESS) return done(scope, to_cuda_error(res));
  *pResDesc = from_driver(r);
  return done(scope, cudaSuccess);
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetTextureObjectTextureDesc(texObject={:#x})", texObject);
  if (pTexDesc == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_TEXTURE_DESC d{};
  if (CUresult res = cuTexObjectGetTextureDesc(&d, texObject); res != CUDA_SUCCESS) return done(scope, to_cuda_error(res));
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  for (int i = 0; i < 3; ++i) t.addressMode[i] = static_cast<cudaTextureAddressMode>(d.addressMode[i]);
  t.filterMode = static_cast<cudaTextureFilterMode>(d.filterMode);
  t.readMode = (d.flags & CU_TRSF_READ_AS_INTEGER) ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  t.normalizedCoords = (d.flags & CU_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
  t.sRGB = (d.flags & CU_TRSF_SRGB) ? 1 : 0;
  t.seamlessCubemap = (d.flags & CU_TRSF_SEAMLESS_CUBEMAP) ? 1 : 0;
  t.disableTrilinearOptimization = (d.flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) ? 1 : 0;
  t.maxAnisotropy = d.maxAnisotropy;
  t.mipmapFilterMode = static_cast<cudaTextureFilterMode>(d.mipmapFilterMode);
  t.mipmapLevelBias = d.mipmapLevelBias;
  t.minMipmapLevelClamp = d.minMipmapLevelClamp;
  t.maxMipmapLevelClamp = d.maxMipmapLevelClamp;
  std::memcpy(t.borderColor, d.borderColor, sizeof t.borderColor);
  *pTexDesc = t;
  return done(scope, cudaSuccess);
}

cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc* pResViewDesc,
                                                 cudaTextureObject_t texObject) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetTextureObjectResourceViewDesc(texObject={:#x})", texObject);
  if (pResViewDesc == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_RESOURCE_VIEW_DESC v{};
  if (CUresult res = cuTexObjectGetResourceViewDesc(&v, texObject); res != CUDA_SUCCESS)
    return done(scope, to_cuda_error(res));
  std::memset(pResViewDesc, 0, sizeof *pResViewDesc);
  pResViewDesc->format = static_cast<cudaResourceViewFormat>(v.format);
  pResViewDesc->width = v.width;
  pResViewDesc->height = v.height;
  pResViewDesc->depth = v.depth;
  pResViewDesc->firstMipmapLevel = v.firstMipmapLevel;
  pResViewDesc->lastMipmapLevel = v.lastMipmapLevel;
  pResViewDesc->firstLayer = v.firstLayer;
  pResViewDesc->lastLayer = v.lastLayer;
  return done(scope, cudaSuccess);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const struct cudaResourceDesc* pResDesc) {
  trace::Scope scope(trace::Layer::Cudart, "cudaCreateSurfaceObject(resType={})",
                     pResDesc ? static_cast<int>(pResDesc->resType) : -1);
  if (pSurfObject == nullptr || pResDesc == nullptr) return done(scope, cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  if (!to_driver(*pResDesc, &r)) return done(scope, cudaErrorInvalidChannelDescriptor);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUsurfObject object = 0;
  CUresult res = cuSurfObjectCreate(&object, &r);
  if (res == CUDA_SUCCESS) *pSurfObject = object;
  return done(scope, to_cuda_error(res));
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDestroySurfaceObject(surfObject={:#x})", surfObject);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuSurfObjectDestroy(surfObject)));
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc* pResDesc, cudaSurfaceObject_t surfObject) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetSurfaceObjectResourceDesc(surfObject={:#x})", surfObject);
  if (pResDesc == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_RESOURCE_DESC r{};
  if (CUresult res = cuSurfObjectGetResourceDesc(&r, surfObject); res != CUDA_SUCCESS) return done(scope, to_cuda_error(res));
  *pResDesc = from_driver(r);
  return done(scope, cudaSuccess);
}
