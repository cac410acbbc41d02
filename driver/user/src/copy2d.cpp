// Pitched memory: cuMemAllocPitch_v2, the 2-D and 3-D copies (cuMemcpy2D_v2, cuMemcpy3D_v2 and
// their Async forms) and the 2-D memsets (cuMemsetD2D*).
//
// The copy engine moves a rectangle in one LAUNCH_DMA: LINE_LENGTH_IN bytes per line,
// LINE_COUNT lines, PITCH_IN/PITCH_OUT bytes from one line to the next (MULTI_LINE_ENABLE) -
// when both sides are device or pinned memory. A pageable side is staged row by row through
// copy.cpp's 1-D path. A 3-D copy is one rectangle per slice. A CUDA array side (array.h) is
// its memory with the array's pitch and rows. Rules and values are the H200's
// (tests/data/h200/probe_api_families.txt): rows are padded to 512 bytes.
#include "class/clc8b5.h"
#include "copy.h"
#include "prebuilt.h"
#include "host_clock.h"
#include "array.h"
#include "pool.h"

namespace minicuda::libcuda {
namespace {

constexpr uint64_t kPitchAlignment = 512;          // cudaMallocPitch's row padding on the H200
constexpr uint64_t kMaxPitch = (1ull << 31) - 1;   // CU_DEVICE_ATTRIBUTE_MAX_PITCH
constexpr uint64_t kMaxEngineLine = 1ull << 31;    // LINE_LENGTH_IN and the pitches are 32-bit

// One side of a rectangle copy: its first byte and the distance between rows.
struct Side {
  uint64_t base = 0, pitch = 0;
};

// The bytes a rectangle of `height` rows of `width` bytes spans from its first byte.
uint64_t span(uint64_t pitch, uint64_t width, uint64_t height) { return pitch * (height - 1) + width; }

// Copies one rectangle. Both sides checked first: a side that must be device memory
// (`dst_device`/`src_device`) and is not, or an uncopyable range: CUDA_ERROR_INVALID_VALUE.
CUresult copy_rect(CUctx_st& ctx, Side dst, Side src, uint64_t width, uint64_t height, CUstream_st* stream,
                   bool async) {
  if (width == 0 || height == 0) return CUDA_SUCCESS;
  Where to, from;
  if (!classify(ctx, dst.base, span(dst.pitch, width, height), &to) ||
      !classify(ctx, src.base, span(src.pitch, width, height), &from))
    return CUDA_ERROR_INVALID_VALUE;
  const bool engine_alone = to != Where::Pageable && from != Where::Pageable;
  if (!engine_alone || width >= kMaxEngineLine || dst.pitch >= kMaxEngineLine || src.pitch >= kMaxEngineLine ||
      height >= kMaxEngineLine) {
    trace::note(trace::Layer::Libcuda, "copy 2-D: {} rows of {} B, one 1-D copy each", height, width);
    for (uint64_t row = 0; row < height; ++row) {
      if (CUresult r = copy(ctx, dst.base + row * dst.pitch, src.base + row * src.pitch, width, stream, async);
          r != CUDA_SUCCESS)
        return r;
    }
    return CUDA_SUCCESS;
  }
  trace::note(trace::Layer::Libcuda, "copy 2-D: {} lines of {} B by the copy engine, pitch {} -> {}", height, width,
              src.pitch, dst.pitch);
  Channel& ch = channel_of(ctx, stream);
  host_clock::spend(prebuilt::host_cost(ch, host_clock::kCopyNs));
  order_with_null_stream(ctx, stream);
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_IN_UPPER,
            {static_cast<uint32_t>(src.base >> 32), static_cast<uint32_t>(src.base),
             static_cast<uint32_t>(dst.base >> 32), static_cast<uint32_t>(dst.base)});
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_PITCH_IN,
            {static_cast<uint32_t>(src.pitch), static_cast<uint32_t>(dst.pitch), static_cast<uint32_t>(width),
             static_cast<uint32_t>(height)});
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
            {nv_launch_dma_copy(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE, /*multi_line=*/true)});
  uint64_t fence = ch.submit();
  submitted(stream, fence);
  return (async || (from == Where::Device && to == Where::Device)) ? CUDA_SUCCESS : ch.wait(fence);
}

// Height rows of width elements of `bytes` each, `pitch` bytes apart, set to value: one
// multi-line remap memset of the copy engine.
CUresult memset_rect(CUctx_st& ctx, uint64_t dst, uint64_t pitch, uint32_t value, uint32_t bytes, uint64_t width,
                     uint64_t height, CUstream_st* stream, bool async) {
  if (width == 0 || height == 0) return CUDA_SUCCESS;
  if (pitch < width * bytes || dst % bytes != 0 || pitch >= kMaxEngineLine || height >= kMaxEngineLine)
    return CUDA_ERROR_INVALID_VALUE;
  if (!is_device(ctx, dst, span(pitch, width * bytes, height))) return CUDA_ERROR_INVALID_VALUE;
  Channel& ch = channel_of(ctx, stream);
  host_clock::spend(prebuilt::host_cost(ch, host_clock::kCopyNs));
  order_with_null_stream(ctx, stream);
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_CONST_A, {value});
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_COMPONENTS, {nv_remap_memset(bytes)});
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_OUT_UPPER, {static_cast<uint32_t>(dst >> 32), static_cast<uint32_t>(dst)});
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_PITCH_OUT,
            {static_cast<uint32_t>(pitch), static_cast<uint32_t>(width), static_cast<uint32_t>(height)});
  ch.method(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
            {nv_launch_dma_copy(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE, /*multi_line=*/true, /*remap=*/true)});
  submitted(stream, ch.submit());
  (void)async;  // device memory only: nothing to wait for
  return CUDA_SUCCESS;
}

// One side of a CUDA_MEMCPY2D/3D resolved from its memory type: its address, and for an array the
// array's own pitch and rows per slice in place of the descriptor's. An unknown type or array,
// or a region outside the array: false.
struct CopySide {
  uint64_t address = 0, pitch = 0, height = 0;
  CUmemorytype type = CU_MEMORYTYPE_HOST;
};
bool resolve_side(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, size_t pitch, size_t height,
                  size_t x, size_t y, size_t z, const CUDA_MEMCPY3D& c, CopySide* out) {
  out->pitch = pitch;
  out->height = height;
  out->type = type;
  switch (type) {
    case CU_MEMORYTYPE_HOST: out->address = reinterpret_cast<uint64_t>(host); return true;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: out->address = device; return true;
    case CU_MEMORYTYPE_ARRAY: {
      const CUarray_st* a = find_array(array);
      if (a == nullptr) return false;
      const uint64_t row_bytes = a->desc.Width * format_bytes(a->desc.Format) * a->desc.NumChannels;
      if (x + c.WidthInBytes > row_bytes || y + c.Height > a->rows || z + c.Depth > a->slices) return false;
      out->address = a->base;
      out->pitch = a->pitch;
      out->height = a->rows;
      out->type = CU_MEMORYTYPE_DEVICE;
      return true;
    }
    default: return false;
  }
}

// A 3-D copy (a 2-D one is Depth 1 with heights 0). Validates as cuMemcpy3D does.
CUresult copy_3d(CUctx_st& ctx, const CUDA_MEMCPY3D& given, CUstream_st* stream, bool async) {
  if (given.WidthInBytes == 0 || given.Height == 0 || given.Depth == 0) return CUDA_SUCCESS;
  CopySide from, to;
  if (!resolve_side(given.srcMemoryType, given.srcHost, given.srcDevice, given.srcArray, given.srcPitch,
                    given.srcHeight, given.srcXInBytes, given.srcY, given.srcZ, given, &from) ||
      !resolve_side(given.dstMemoryType, given.dstHost, given.dstDevice, given.dstArray, given.dstPitch,
                    given.dstHeight, given.dstXInBytes, given.dstY, given.dstZ, given, &to))
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_MEMCPY3D c = given;
  c.srcPitch = from.pitch;
  c.srcHeight = from.height;
  c.srcMemoryType = from.type;
  c.dstPitch = to.pitch;
  c.dstHeight = to.height;
  c.dstMemoryType = to.type;
  const uint64_t src = from.address, dst = to.address;
  if (c.srcPitch < c.WidthInBytes + c.srcXInBytes || c.dstPitch < c.WidthInBytes + c.dstXInBytes)
    return CUDA_ERROR_INVALID_VALUE;
  if ((c.Height > 1 || c.Depth > 1) && (c.srcPitch > kMaxPitch || c.dstPitch > kMaxPitch)) return CUDA_ERROR_INVALID_VALUE;
  if (c.Depth > 1 && (c.srcHeight < c.Height + c.srcY || c.dstHeight < c.Height + c.dstY))
    return CUDA_ERROR_INVALID_VALUE;
  if (c.srcLOD != 0 || c.dstLOD != 0) return CUDA_ERROR_INVALID_VALUE;
  // A side said to be device memory must be: the H200 refuses a host buffer there (measured:
  // rt.memcpy2D.wrongkind), where a 1-D copy with the wrong kind just works.
  const uint64_t src_start = src + (c.srcZ * c.srcHeight + c.srcY) * c.srcPitch + c.srcXInBytes;
  const uint64_t dst_start = dst + (c.dstZ * c.dstHeight + c.dstY) * c.dstPitch + c.dstXInBytes;
  const uint64_t src_slice = c.srcHeight * c.srcPitch, dst_slice = c.dstHeight * c.dstPitch;
  for (size_t z = 0; z < c.Depth; ++z) {
    Side s{src_start + z * src_slice, c.srcPitch}, d{dst_start + z * dst_slice, c.dstPitch};
    const uint64_t bytes_s = span(c.srcPitch, c.WidthInBytes, c.Height), bytes_d = span(c.dstPitch, c.WidthInBytes, c.Height);
    if ((c.srcMemoryType == CU_MEMORYTYPE_DEVICE && !is_device(ctx, s.base, bytes_s)) ||
        (c.dstMemoryType == CU_MEMORYTYPE_DEVICE && !is_device(ctx, d.base, bytes_d)))
      return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = copy_rect(ctx, d, s, c.WidthInBytes, c.Height, stream, async); r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

CUDA_MEMCPY3D as_3d(const CUDA_MEMCPY2D& c) {
  CUDA_MEMCPY3D t{};
  t.srcXInBytes = c.srcXInBytes;
  t.srcY = c.srcY;
  t.srcMemoryType = c.srcMemoryType;
  t.srcHost = c.srcHost;
  t.srcDevice = c.srcDevice;
  t.srcArray = c.srcArray;
  t.srcPitch = c.srcPitch;
  t.dstXInBytes = c.dstXInBytes;
  t.dstY = c.dstY;
  t.dstMemoryType = c.dstMemoryType;
  t.dstHost = c.dstHost;
  t.dstDevice = c.dstDevice;
  t.dstArray = c.dstArray;
  t.dstPitch = c.dstPitch;
  t.WidthInBytes = c.WidthInBytes;
  t.Height = c.Height;
  t.Depth = 1;
  return t;
}

// The shared body of the copy entry points: context, stream, then the copy.
CUresult memcpy_3d(trace::Scope& scope, const CUDA_MEMCPY3D* c, CUstream hStream, bool async) {
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (c == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, *ctx, copy_3d(*ctx, *c, stream, async));
}

template <uint32_t Bytes>
CUresult memset_d2d(const char* api, CUdeviceptr dstDevice, size_t dstPitch, uint32_t value, size_t Width,
                    size_t Height, CUstream hStream, bool async) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dstDevice={:#x}, dstPitch={}, value={:#x}, Width={}, Height={})", api,
                     dstDevice, dstPitch, value, Width, Height);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, *ctx, memset_rect(*ctx, dstDevice, dstPitch, value, Bytes, Width, Height, stream, async));
}

}  // namespace
}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *dptr = Height rows of WidthInBytes bytes, *pPitch bytes apart: WidthInBytes rounded
// up to 512 (measured for widths 1..100000 and ElementSizeBytes 4, 8, 16). ElementSizeBytes other
// than 4, 8 or 16 (measured: 1, 2, 3, 32 refused), a zero width or height, NULL outputs:
// CUDA_ERROR_INVALID_VALUE; no room: CUDA_ERROR_OUT_OF_MEMORY.
CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemAllocPitch_v2(WidthInBytes={}, Height={}, ElementSizeBytes={})",
                     WidthInBytes, Height, ElementSizeBytes);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (dptr == nullptr || pPitch == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *dptr = 0;
  *pPitch = 0;
  if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (WidthInBytes == 0 || Height == 0 || WidthInBytes > UINT64_MAX - kPitchAlignment) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const uint64_t pitch = (WidthInBytes + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (Height > UINT64_MAX / pitch) return done(scope, CUDA_ERROR_OUT_OF_MEMORY);
  CUdeviceptr p = 0;
  if (CUresult r = ctx->pool->alloc(pitch * Height, &p); r != CUDA_SUCCESS) return done(scope, r);
  *dptr = p;
  *pPitch = pitch;
  if (scope.active()) scope.result("CUDA_SUCCESS, *dptr={:#x}, *pPitch={}", p, pitch);
  return CUDA_SUCCESS;
}

// Contract: copies a rectangle of WidthInBytes x Height between any two kinds of memory
// (CU_MEMORYTYPE_HOST, DEVICE, UNIFIED; each side starts at base + Y * pitch + XInBytes) and
// returns when done as cuMemcpy does. A pitch below WidthInBytes + XInBytes, a pitch over
// 2^31 - 1 with Height > 1, an unknown memory type or array, a region outside an array, a DEVICE side that is not device
// memory, NULL pCopy: CUDA_ERROR_INVALID_VALUE. Width or Height 0: nothing, CUDA_SUCCESS.
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemcpy2D_v2(pCopy={})", static_cast<const void*>(pCopy));
  if (pCopy == nullptr) return memcpy_3d(scope, nullptr, nullptr, false);
  CUDA_MEMCPY3D c = as_3d(*pCopy);
  return memcpy_3d(scope, &c, nullptr, false);
}
// Contract: as cuMemcpy2D_v2 (no alignment is required of either side).
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemcpy2DUnaligned_v2(pCopy={})", static_cast<const void*>(pCopy));
  if (pCopy == nullptr) return memcpy_3d(scope, nullptr, nullptr, false);
  CUDA_MEMCPY3D c = as_3d(*pCopy);
  return memcpy_3d(scope, &c, nullptr, false);
}
// Contract: as cuMemcpy2D_v2, queued on hStream (unknown: CUDA_ERROR_INVALID_HANDLE) and returned
// from at once when neither side is pageable.
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemcpy2DAsync_v2(pCopy={}, hStream={})", static_cast<const void*>(pCopy),
                     static_cast<void*>(hStream));
  if (pCopy == nullptr) return memcpy_3d(scope, nullptr, hStream, true);
  CUDA_MEMCPY3D c = as_3d(*pCopy);
  return memcpy_3d(scope, &c, hStream, true);
}
// Contract: cuMemcpy2D_v2 for Depth slices, srcHeight / dstHeight rows apart (each at least
// Height + Y when Depth > 1, else CUDA_ERROR_INVALID_VALUE); srcLOD/dstLOD must be 0; the
// reserved pointers are ignored (measured).
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* pCopy) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemcpy3D_v2(pCopy={})", static_cast<const void*>(pCopy));
  return memcpy_3d(scope, pCopy, nullptr, false);
}
// Contract: as cuMemcpy3D_v2, queued on hStream.
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemcpy3DAsync_v2(pCopy={}, hStream={})", static_cast<const void*>(pCopy),
                     static_cast<void*>(hStream));
  return memcpy_3d(scope, pCopy, hStream, true);
}

// Contract: sets Height rows of Width elements (1, 2 or 4 bytes), dstPitch bytes apart, in
// device memory: one copy-engine memset. dstPitch below Width * element size, a destination
// not aligned to the element or not inside one allocation: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) {
  return memset_d2d<1>("cuMemsetD2D8_v2", dstDevice, dstPitch, uc, Width, Height, nullptr, false);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height) {
  return memset_d2d<2>("cuMemsetD2D16_v2", dstDevice, dstPitch, us, Width, Height, nullptr, false);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height) {
  return memset_d2d<4>("cuMemsetD2D32_v2", dstDevice, dstPitch, ui, Width, Height, nullptr, false);
}
// Contract: as cuMemsetD2D8_v2 / cuMemsetD2D32_v2, queued on hStream.
CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height,
                           CUstream hStream) {
  return memset_d2d<1>("cuMemsetD2D8Async", dstDevice, dstPitch, uc, Width, Height, hStream, true);
}
CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height,
                            CUstream hStream) {
  return memset_d2d<4>("cuMemsetD2D32Async", dstDevice, dstPitch, ui, Width, Height, hStream, true);
}
