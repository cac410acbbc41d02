// CUDA arrays in the runtime: cudaCreateChannelDesc, cudaMallocArray / cudaMalloc3DArray over
// cuArray3DCreate_v2, cudaFreeArray over cuArrayDestroy, cudaArrayGetInfo, and the copies to and
// from arrays over cuMemcpy2D_v2 (a CU_MEMORYTYPE_ARRAY side). A cudaArray_t is libcuda's
// CUarray. The H200's answers to bad input: tests/data/h200/texture/out/texture.txt ("call" lines).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace minicuda::cudart {

size_t array_element_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d) {
  switch (d.Format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return d.NumChannels;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2u * d.NumChannels;
    default: return 4u * d.NumChannels;
  }
}

// The driver's format and channel count of a channel description: every present channel the
// same size, present channels first, 1, 2 or 4 of them. false: no such format.
bool array_format(const cudaChannelFormatDesc& c, CUarray_format* format, unsigned* channels) {
  const int bits[4] = {c.x, c.y, c.z, c.w};
  unsigned n = 0;
  while (n < 4 && bits[n] != 0) ++n;
  for (unsigned i = n; i < 4; ++i)
    if (bits[i] != 0) return false;
  for (unsigned i = 1; i < n; ++i)
    if (bits[i] != bits[0]) return false;
  if (n == 0 || n == 3) return false;
  *channels = n;
  switch (c.f) {
    case cudaChannelFormatKindSigned:
      if (bits[0] == 8) *format = CU_AD_FORMAT_SIGNED_INT8;
      else if (bits[0] == 16) *format = CU_AD_FORMAT_SIGNED_INT16;
      else if (bits[0] == 32) *format = CU_AD_FORMAT_SIGNED_INT32;
      else return false;
      return true;
    case cudaChannelFormatKindUnsigned:
      if (bits[0] == 8) *format = CU_AD_FORMAT_UNSIGNED_INT8;
      else if (bits[0] == 16) *format = CU_AD_FORMAT_UNSIGNED_INT16;
      else if (bits[0] == 32) *format = CU_AD_FORMAT_UNSIGNED_INT32;
      else return false;
      return true;
    case cudaChannelFormatKindFloat:
      if (bits[0] == 16) *format = CU_AD_FORMAT_HALF;
      else if (bits[0] == 32) *format = CU_AD_FORMAT_FLOAT;
      else return false;
      return true;
    default: return false;
  }
}

// The channel description of a driver format.
cudaChannelFormatDesc channel_desc(CUarray_format format, unsigned channels) {
  int bits = 32;
  cudaChannelFormatKind kind = cudaChannelFormatKindFloat;
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8: bits = 8; kind = cudaChannelFormatKindUnsigned; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16; kind = cudaChannelFormatKindUnsigned; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: kind = cudaChannelFormatKindUnsigned; break;
    case CU_AD_FORMAT_SIGNED_INT8: bits = 8; kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT16: bits = 16; kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT32: kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_HALF: bits = 16; break;
    default: break;
  }
  return cudaCreateChannelDesc(bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0, channels > 3 ? bits : 0, kind);
}

}  // namespace minicuda::cudart

namespace {

CUarray as_cu(cudaArray_const_t a) { return reinterpret_cast<CUarray>(const_cast<cudaArray*>(a)); }

cudaError_t malloc_array(trace::Scope& scope, cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                         size_t height, size_t depth, unsigned flags) {
  if (array == nullptr || desc == nullptr) return done(scope, cudaErrorInvalidValue);
  *array = nullptr;
  CUDA_ARRAY3D_DESCRIPTOR d{};
  if (!array_format(*desc, &d.Format, &d.NumChannels)) return done(scope, cudaErrorInvalidChannelDescriptor);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  d.Width = width;
  d.Height = height;
  d.Depth = depth;
  d.Flags = flags;
  CUarray a = nullptr;
  CUresult r = cuArray3DCreate_v2(&a, &d);
  if (r == CUDA_SUCCESS) *array = reinterpret_cast<cudaArray_t>(a);
  return done(scope, to_cuda_error(r));
}

// The memory type a cudaMemcpyKind gives the side of an array copy that is not the array.
bool other_side(cudaMemcpyKind kind, bool array_is_dst, CUmemorytype* type) {
  switch (kind) {
    case cudaMemcpyHostToDevice: *type = CU_MEMORYTYPE_HOST; return array_is_dst;
    case cudaMemcpyDeviceToHost: *type = CU_MEMORYTYPE_HOST; return !array_is_dst;
    case cudaMemcpyDeviceToDevice: *type = CU_MEMORYTYPE_DEVICE; return true;
    case cudaMemcpyDefault: *type = CU_MEMORYTYPE_UNIFIED; return true;
    default: return false;
  }
}

// A rectangle between an array (at x bytes, row y) and memory of `pitch`.
cudaError_t copy_with_array(trace::Scope& scope, CUarray array, bool array_is_dst, size_t x, size_t y, void* memory,
                            size_t pitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream,
                            bool async) {
  CUmemorytype type;
  if (!other_side(kind, array_is_dst, &type)) return done(scope, cudaErrorInvalidMemcpyDirection);
  if (pitch < width) return done(scope, cudaErrorInvalidPitchValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_MEMCPY2D c{};
  if (array_is_dst) {
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = array;
    c.dstXInBytes = x;
    c.dstY = y;
    c.srcMemoryType = type;
    c.srcHost = memory;
    c.srcDevice = reinterpret_cast<CUdeviceptr>(memory);
    c.srcPitch = pitch;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = array;
    c.srcXInBytes = x;
    c.srcY = y;
    c.dstMemoryType = type;
    c.dstHost = memory;
    c.dstDevice = reinterpret_cast<CUdeviceptr>(memory);
    c.dstPitch = pitch;
  }
  c.WidthInBytes = width;
  c.Height = height;
  CUresult r = async ? cuMemcpy2DAsync_v2(&c, stream) : cuMemcpy2D_v2(&c);
  return done(scope, to_cuda_error(r));
}

// The deprecated 1-D forms: count bytes from (x, y) on, to the end of the row and on through
// whole rows; a count that does not end at a row's end is a short last row.
cudaError_t copy_count(trace::Scope& scope, CUarray array, bool array_is_dst, size_t x, size_t y, void* memory,
                       size_t count, cudaMemcpyKind kind, cudaStream_t stream, bool async) {
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_ARRAY3D_DESCRIPTOR d{};
  if (CUresult r = cuArray3DGetDescriptor_v2(&d, array); r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  const size_t row = d.Width * array_element_bytes(d);
  if (x == 0 && count % row == 0 && count > 0)
    return copy_with_array(scope, array, array_is_dst, 0, y, memory, row, row, count / row, kind, stream, async);
  if (x + count <= row)
    return copy_with_array(scope, array, array_is_dst, x, y, memory, count, count, 1, kind, stream, async);
  return done(scope, cudaErrorInvalidValue);
}

}  // namespace

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

// Contract: in crt/cuda_texture_api.h.
cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMallocArray(width={}, height={}, flags={:#x})", width, height, flags);
  return malloc_array(scope, array, desc, width, height, 0, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, struct cudaExtent extent,
                              unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMalloc3DArray(extent={{{}, {}, {}}}, flags={:#x})", extent.width,
                     extent.height, extent.depth, flags);
  return malloc_array(scope, array, desc, extent.width, extent.height, extent.depth, flags);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFreeArray(array={})", static_cast<void*>(array));
  if (array == nullptr) return done(scope, cudaSuccess);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuArrayDestroy(as_cu(array))));
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc* desc, struct cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  trace::Scope scope(trace::Layer::Cudart, "cudaArrayGetInfo(array={})", static_cast<void*>(array));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_ARRAY3D_DESCRIPTOR d{};
  if (CUresult r = cuArray3DGetDescriptor_v2(&d, as_cu(array)); r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  if (desc != nullptr) *desc = channel_desc(d.Format, d.NumChannels);
  if (extent != nullptr) *extent = make_cudaExtent(d.Width, d.Height, d.Depth);
  if (flags != nullptr) *flags = d.Flags;
  return done(scope, cudaSuccess);
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetChannelDesc(array={})", static_cast<const void*>(array));
  if (desc == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_ARRAY3D_DESCRIPTOR d{};
  if (CUresult r = cuArray3DGetDescriptor_v2(&d, as_cu(array)); r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  *desc = channel_desc(d.Format, d.NumChannels);
  return done(scope, cudaSuccess);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy2DToArray(dst={}, wOffset={}, hOffset={}, src={}, spitch={}, "
                     "width={}, height={}, kind={})", static_cast<void*>(dst), wOffset, hOffset, src, spitch, width,
                     height, memcpy_kind_name(kind));
  return copy_with_array(scope, as_cu(dst), true, wOffset, hOffset, const_cast<void*>(src), spitch, width, height, kind,
                         nullptr, false);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy2DToArrayAsync(dst={}, wOffset={}, hOffset={}, width={}, height={})",
                     static_cast<void*>(dst), wOffset, hOffset, width, height);
  return copy_with_array(scope, as_cu(dst), true, wOffset, hOffset, const_cast<void*>(src), spitch, width, height, kind,
                         stream, true);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy2DFromArray(dst={}, dpitch={}, src={}, wOffset={}, hOffset={}, "
                     "width={}, height={}, kind={})", dst, dpitch, static_cast<const void*>(src), wOffset, hOffset,
                     width, height, memcpy_kind_name(kind));
  return copy_with_array(scope, as_cu(src), false, wOffset, hOffset, dst, dpitch, width, height, kind, nullptr, false);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                       size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy2DFromArrayAsync(dst={}, src={}, width={}, height={})", dst,
                     static_cast<const void*>(src), width, height);
  return copy_with_array(scope, as_cu(src), false, wOffset, hOffset, dst, dpitch, width, height, kind, stream, true);
}

// Contract: an array-to-array rectangle, as a 3-D copy with two array sides.
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy2DArrayToArray(dst={}, src={}, width={}, height={})",
                     static_cast<void*>(dst), static_cast<const void*>(src), width, height);
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) return done(scope, cudaErrorInvalidMemcpyDirection);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c.srcArray = as_cu(src);
  c.srcXInBytes = wOffsetSrc;
  c.srcY = hOffsetSrc;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstArray = as_cu(dst);
  c.dstXInBytes = wOffsetDst;
  c.dstY = hOffsetDst;
  c.WidthInBytes = width;
  c.Height = height;
  return done(scope, to_cuda_error(cuMemcpy2D_v2(&c)));
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                              enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyToArray(dst={}, wOffset={}, hOffset={}, count={})",
                     static_cast<void*>(dst), wOffset, hOffset, count);
  return copy_count(scope, as_cu(dst), true, wOffset, hOffset, const_cast<void*>(src), count, kind, nullptr, false);
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyFromArray(src={}, wOffset={}, hOffset={}, count={})",
                     static_cast<const void*>(src), wOffset, hOffset, count);
  return copy_count(scope, as_cu(src), false, wOffset, hOffset, dst, count, kind, nullptr, false);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyToArrayAsync(dst={}, count={})", static_cast<void*>(dst), count);
  return copy_count(scope, as_cu(dst), true, wOffset, hOffset, const_cast<void*>(src), count, kind, stream, true);
}

cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyFromArrayAsync(src={}, count={})", static_cast<const void*>(src),
                     count);
  return copy_count(scope, as_cu(src), false, wOffset, hOffset, dst, count, kind, stream, true);
}
