// Pitched and 3-D memory: cudaMallocPitch / cudaMalloc3D over cuMemAllocPitch_v2, the 2-D and 3-D
// copies over cuMemcpy2D_v2 / cuMemcpy3D_v2 (and their Async forms), the 2-D and 3-D memsets over
// cuMemsetD2D8_v2. The runtime checks what it reports with its own error - a pitch below the
// width is cudaErrorInvalidPitchValue (12) for a copy, an unknown kind
// cudaErrorInvalidMemcpyDirection - and hands the rest to libcuda (H200 answers:
// tests/data/h200/probe_api_families.txt).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

constexpr size_t kMaxPitch = (size_t{1} << 31) - 1;  // cudaDeviceProp::memPitch

// The memory types a cudaMemcpyKind names for the two sides; false for an unknown kind.
bool memory_types(int kind, CUmemorytype* src, CUmemorytype* dst) {
  switch (kind) {
    case cudaMemcpyHostToHost: *src = CU_MEMORYTYPE_HOST; *dst = CU_MEMORYTYPE_HOST; return true;
    case cudaMemcpyHostToDevice: *src = CU_MEMORYTYPE_HOST; *dst = CU_MEMORYTYPE_DEVICE; return true;
    case cudaMemcpyDeviceToHost: *src = CU_MEMORYTYPE_DEVICE; *dst = CU_MEMORYTYPE_HOST; return true;
    case cudaMemcpyDeviceToDevice: *src = CU_MEMORYTYPE_DEVICE; *dst = CU_MEMORYTYPE_DEVICE; return true;
    case cudaMemcpyDefault: *src = CU_MEMORYTYPE_UNIFIED; *dst = CU_MEMORYTYPE_UNIFIED; return true;
    default: return false;
  }
}

// One side of a copy description: a host pointer for HOST, an address otherwise.
void set_src(CUDA_MEMCPY3D& c, CUmemorytype type, const void* p) {
  c.srcMemoryType = type;
  if (type == CU_MEMORYTYPE_HOST) c.srcHost = p;
  else c.srcDevice = reinterpret_cast<CUdeviceptr>(p);
}
void set_dst(CUDA_MEMCPY3D& c, CUmemorytype type, void* p) {
  c.dstMemoryType = type;
  if (type == CU_MEMORYTYPE_HOST) c.dstHost = p;
  else c.dstDevice = reinterpret_cast<CUdeviceptr>(p);
}

// The shared body of cudaMemcpy2D and cudaMemcpy2DAsync.
cudaError_t memcpy_2d(trace::Scope& scope, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                      size_t height, int kind, cudaStream_t stream, bool async) {
  CUmemorytype src_type, dst_type;
  if (!memory_types(kind, &src_type, &dst_type)) return done(scope, cudaErrorInvalidMemcpyDirection);
  if (dpitch < width || spitch < width || (height > 1 && (dpitch > kMaxPitch || spitch > kMaxPitch)))
    return done(scope, cudaErrorInvalidPitchValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUDA_MEMCPY3D c3{};
  set_src(c3, src_type, src);
  set_dst(c3, dst_type, dst);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = c3.srcMemoryType;
  c.srcHost = c3.srcHost;
  c.srcDevice = c3.srcDevice;
  c.srcPitch = spitch;
  c.dstMemoryType = c3.dstMemoryType;
  c.dstHost = c3.dstHost;
  c.dstDevice = c3.dstDevice;
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  CUresult r = async ? cuMemcpy2DAsync_v2(&c, stream) : cuMemcpy2D_v2(&c);
  return done(scope, to_cuda_error(r));
}

// The shared body of cudaMemcpy3D and cudaMemcpy3DAsync.
cudaError_t memcpy_3d(trace::Scope& scope, const cudaMemcpy3DParms* p, cudaStream_t stream, bool async) {
  if (p == nullptr) return done(scope, cudaErrorInvalidValue);
  CUmemorytype src_type, dst_type;
  if (!memory_types(p->kind, &src_type, &dst_type)) return done(scope, cudaErrorInvalidMemcpyDirection);
  if (p->srcArray != nullptr && p->srcPtr.ptr != nullptr) return done(scope, cudaErrorInvalidValue);
  if (p->dstArray != nullptr && p->dstPtr.ptr != nullptr) return done(scope, cudaErrorInvalidValue);
  const cudaExtent& e = p->extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0) return done(scope, cudaSuccess);
  if (cudaError_t err = ensure_context(); err != cudaSuccess) return done(scope, err);
  // With an array on either side, widths and x positions count the array's elements.
  size_t element = 1;
  for (cudaArray_const_t a : {p->srcArray, p->dstArray}) {
    if (a == nullptr) continue;
    CUDA_ARRAY3D_DESCRIPTOR d{};
    if (CUresult r = cuArray3DGetDescriptor_v2(&d, reinterpret_cast<CUarray>(const_cast<cudaArray*>(a)));
        r != CUDA_SUCCESS)
      return done(scope, to_cuda_error(r));
    element = array_element_bytes(d);
    break;
  }
  const size_t width = e.width * element;
  if ((p->srcArray == nullptr && p->srcPtr.pitch < width + p->srcPos.x * element) ||
      (p->dstArray == nullptr && p->dstPtr.pitch < width + p->dstPos.x * element))
    return done(scope, cudaErrorInvalidPitchValue);
  if (e.depth > 1 && ((p->srcArray == nullptr && p->srcPtr.ysize < e.height + p->srcPos.y) ||
                      (p->dstArray == nullptr && p->dstPtr.ysize < e.height + p->dstPos.y)))
    return done(scope, cudaErrorInvalidPitchValue);
  CUDA_MEMCPY3D c{};
  set_src(c, src_type, p->srcPtr.ptr);
  set_dst(c, dst_type, p->dstPtr.ptr);
  if (p->srcArray != nullptr) {
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = reinterpret_cast<CUarray>(const_cast<cudaArray*>(p->srcArray));
  }
  if (p->dstArray != nullptr) {
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = reinterpret_cast<CUarray>(p->dstArray);
  }
  c.srcXInBytes = p->srcPos.x * element;
  c.srcY = p->srcPos.y;
  c.srcZ = p->srcPos.z;
  c.srcPitch = p->srcPtr.pitch;
  c.srcHeight = p->srcPtr.ysize;
  c.dstXInBytes = p->dstPos.x * element;
  c.dstY = p->dstPos.y;
  c.dstZ = p->dstPos.z;
  c.dstPitch = p->dstPtr.pitch;
  c.dstHeight = p->dstPtr.ysize;
  c.WidthInBytes = width;
  c.Height = e.height;
  c.Depth = e.depth;
  CUresult r = async ? cuMemcpy3DAsync_v2(&c, stream) : cuMemcpy3D_v2(&c);
  return done(scope, to_cuda_error(r));
}

// The shared body of the 2-D and 3-D memsets: `rows` rows of width bytes, pitch apart.
cudaError_t memset_rows(void* devPtr, size_t pitch, int value, size_t width, size_t rows, cudaStream_t stream,
                        bool async) {
  if (width == 0 || rows == 0) return cudaSuccess;
  if (pitch < width) return cudaErrorInvalidValue;
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return e;
  auto dst = reinterpret_cast<CUdeviceptr>(devPtr);
  auto uc = static_cast<unsigned char>(value);
  CUresult r = async ? cuMemsetD2D8Async(dst, pitch, uc, width, rows, stream) : cuMemsetD2D8_v2(dst, pitch, uc, width, rows);
  return to_cuda_error(r);
}

}  // namespace

// Contract: *devPtr = height rows of width bytes, *pitch = bytes from one row to the next: width
// rounded up to 512 (the H200's, measured for widths 1 to 100000). width or height 0: cudaSuccess,
// *devPtr = NULL and *pitch = 0 (measured). NULL outputs: cudaErrorInvalidValue; no room:
// cudaErrorMemoryAllocation.
cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMallocPitch(devPtr={}, pitch={}, width={}, height={})",
                     static_cast<void*>(devPtr), static_cast<void*>(pitch), width, height);
  if (devPtr == nullptr || pitch == nullptr) return done(scope, cudaErrorInvalidValue);
  *devPtr = nullptr;
  *pitch = 0;
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (width == 0 || height == 0) return done(scope, cudaSuccess);
  CUdeviceptr p = 0;
  CUresult r = cuMemAllocPitch_v2(&p, pitch, width, height, 4);
  if (r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  *devPtr = reinterpret_cast<void*>(p);
  if (scope.active()) scope.result("cudaSuccess, *devPtr={}, *pitch={}", *devPtr, *pitch);
  return cudaSuccess;
}

// Contract: a pitched block of extent.depth slices of extent.height rows of extent.width bytes:
// *pitchedDevPtr = {ptr, pitch (as cudaMallocPitch's), xsize = width, ysize = height}. A zero
// dimension: cudaSuccess with ptr NULL and pitch 0. NULL: cudaErrorInvalidValue.
cudaError_t cudaMalloc3D(struct cudaPitchedPtr* pitchedDevPtr, struct cudaExtent extent) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMalloc3D(pitchedDevPtr={}, extent=({}, {}, {}))",
                     static_cast<void*>(pitchedDevPtr), extent.width, extent.height, extent.depth);
  if (pitchedDevPtr == nullptr) return done(scope, cudaErrorInvalidValue);
  *pitchedDevPtr = make_cudaPitchedPtr(nullptr, 0, extent.width, extent.height);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return done(scope, cudaSuccess);
  if (extent.height > SIZE_MAX / extent.depth) return done(scope, cudaErrorMemoryAllocation);
  CUdeviceptr p = 0;
  size_t pitch = 0;
  CUresult r = cuMemAllocPitch_v2(&p, &pitch, extent.width, extent.height * extent.depth, 4);
  if (r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  *pitchedDevPtr = make_cudaPitchedPtr(reinterpret_cast<void*>(p), pitch, extent.width, extent.height);
  return done(scope, cudaSuccess);
}

// Contract: copies height rows of width bytes from src (spitch apart) to dst (dpitch apart) and
// returns when done as cudaMemcpy does. A pitch below width, or over cudaDeviceProp::memPitch with
// height > 1: cudaErrorInvalidPitchValue; unknown kind: cudaErrorInvalidMemcpyDirection; a side
// the kind calls device memory that is not (unlike a 1-D copy, measured), NULL:
// cudaErrorInvalidValue. width or height 0: cudaSuccess.
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy2D(dst={}, dpitch={}, src={}, spitch={}, width={}, height={}, kind={})",
                     dst, dpitch, src, spitch, width, height, memcpy_kind_name(kind));
  return memcpy_2d(scope, dst, dpitch, src, spitch, width, height, kind, nullptr, false);
}

// Contract: as cudaMemcpy2D, queued on stream; returns at once unless a side is pageable.
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart,
                     "cudaMemcpy2DAsync(dst={}, dpitch={}, src={}, spitch={}, width={}, height={}, kind={}, stream={})",
                     dst, dpitch, src, spitch, width, height, memcpy_kind_name(kind), static_cast<void*>(stream));
  return memcpy_2d(scope, dst, dpitch, src, spitch, width, height, kind, stream, true);
}

// Contract: copies extent (width bytes x height rows x depth slices) from srcPtr at srcPos to
// dstPtr at dstPos; a slice is ysize rows. A pitch below width + x, or (depth > 1) a ysize below
// height + y: cudaErrorInvalidPitchValue; unknown kind: cudaErrorInvalidMemcpyDirection; NULL p,
// both an array and a pointer on one side, a region outside an array: cudaErrorInvalidValue; a
// zero extent: cudaSuccess (measured). With a CUDA array on a side, extent.width and the x
// positions count the array's elements, and the array's own layout replaces srcPtr/dstPtr.
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* p) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy3D(p={})", static_cast<const void*>(p));
  return memcpy_3d(scope, p, nullptr, false);
}

// Contract: as cudaMemcpy3D, queued on stream.
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpy3DAsync(p={}, stream={})", static_cast<const void*>(p),
                     static_cast<void*>(stream));
  return memcpy_3d(scope, p, stream, true);
}

// Contract: sets height rows of width bytes (pitch apart) of device memory to the byte value
// (cuMemsetD2D8_v2). pitch below width, memory not inside one allocation: cudaErrorInvalidValue
// (measured: not cudaErrorInvalidPitchValue); width or height 0: cudaSuccess.
cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemset2D(devPtr={}, pitch={}, value={}, width={}, height={})", devPtr,
                     pitch, value, width, height);
  return done(scope, memset_rows(devPtr, pitch, value, width, height, nullptr, false));
}

// Contract: as cudaMemset2D, queued on stream.
cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemset2DAsync(devPtr={}, pitch={}, value={}, width={}, height={}, stream={})",
                     devPtr, pitch, value, width, height, static_cast<void*>(stream));
  return done(scope, memset_rows(devPtr, pitch, value, width, height, stream, true));
}

namespace {
// A 3-D memset: one 2-D memset when the slices' rows follow each other (height == ysize), else
// one per slice.
cudaError_t memset_3d(cudaPitchedPtr p, int value, cudaExtent e, cudaStream_t stream, bool async) {
  if (e.width == 0 || e.height == 0 || e.depth == 0) return cudaSuccess;
  if (p.pitch < e.width) return cudaErrorInvalidValue;
  if (e.height == p.ysize || e.depth == 1) return memset_rows(p.ptr, p.pitch, value, e.width, e.height * e.depth, stream, async);
  for (size_t z = 0; z < e.depth; ++z) {
    void* slice = static_cast<char*>(p.ptr) + z * p.pitch * p.ysize;
    if (cudaError_t err = memset_rows(slice, p.pitch, value, e.width, e.height, stream, async); err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}
}  // namespace

// Contract: sets extent (width bytes x height rows x depth slices of ysize rows) of a pitched
// block to the byte value. pitch below width: cudaErrorInvalidValue; a zero extent: cudaSuccess.
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemset3D(ptr={}, pitch={}, value={}, extent=({}, {}, {}))",
                     pitchedDevPtr.ptr, pitchedDevPtr.pitch, value, extent.width, extent.height, extent.depth);
  return done(scope, memset_3d(pitchedDevPtr, value, extent, nullptr, false));
}

// Contract: as cudaMemset3D, queued on stream.
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                              cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemset3DAsync(ptr={}, pitch={}, value={}, extent=({}, {}, {}), stream={})",
                     pitchedDevPtr.ptr, pitchedDevPtr.pitch, value, extent.width, extent.height, extent.depth,
                     static_cast<void*>(stream));
  return done(scope, memset_3d(pitchedDevPtr, value, extent, stream, true));
}
