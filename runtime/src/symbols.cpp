// Symbols: the runtime calls on __device__ and __constant__ variables. A symbol is a variable's
// host shadow, registered with __cudaRegisterVar (launch.cpp); symbol_of() finds its module,
// loads it and asks the driver for the variable's device address (cuLibraryGetGlobal). The copies
// are then ordinary copies through the copy engine (cuMemcpy*_v2), at that address plus offset.
// The errors are the H200's (tests/data/h200/probe_api_families.txt, rt.*Symbol*).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

enum class Direction { ToSymbol, FromSymbol };

// The kinds a copy of this direction accepts (measured: a kind naming the other direction, or
// HostToHost, is cudaErrorInvalidMemcpyDirection).
bool kind_fits(Direction d, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice) return true;
  return d == Direction::ToSymbol ? kind == cudaMemcpyHostToDevice : kind == cudaMemcpyDeviceToHost;
}

// The checks both directions share, in the order the entry points apply them; on success
// *address is the symbol's device address plus offset.
cudaError_t resolve(Direction d, const void* symbol, const void* buffer, size_t count, size_t offset,
                    cudaMemcpyKind kind, CUdeviceptr* address) {
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return e;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (cudaError_t e = symbol_of(symbol, &base, &size); e != cudaSuccess) return e;
  if (!kind_fits(d, kind)) return cudaErrorInvalidMemcpyDirection;
  if (count == 0) return cudaSuccess;  // measured: even at an offset past the end
  if (offset > size || count > size - offset) return cudaErrorInvalidValue;
  if (buffer == nullptr) return cudaErrorInvalidValue;
  *address = base + offset;
  return cudaSuccess;
}

// The copy in direction d between the symbol's bytes at `at` and buffer; stream: null with
// async false for the synchronous calls.
CUresult copy(Direction d, CUdeviceptr at, void* buffer, size_t count, cudaMemcpyKind kind, bool async,
              cudaStream_t stream) {
  auto other = reinterpret_cast<CUdeviceptr>(buffer);
  if (kind == cudaMemcpyDefault) {
    const CUdeviceptr dst = d == Direction::ToSymbol ? at : other, src = d == Direction::ToSymbol ? other : at;
    return async ? cuMemcpyAsync(dst, src, count, stream) : cuMemcpy(dst, src, count);
  }
  if (kind == cudaMemcpyDeviceToDevice) {
    const CUdeviceptr dst = d == Direction::ToSymbol ? at : other, src = d == Direction::ToSymbol ? other : at;
    return async ? cuMemcpyDtoDAsync_v2(dst, src, count, stream) : cuMemcpyDtoD_v2(dst, src, count);
  }
  if (d == Direction::ToSymbol)
    return async ? cuMemcpyHtoDAsync_v2(at, buffer, count, stream) : cuMemcpyHtoD_v2(at, buffer, count);
  return async ? cuMemcpyDtoHAsync_v2(buffer, at, count, stream) : cuMemcpyDtoH_v2(buffer, at, count);
}

cudaError_t symbol_copy(trace::Scope& scope, Direction d, const void* symbol, void* buffer, size_t count,
                        size_t offset, cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  CUdeviceptr at = 0;
  if (cudaError_t e = resolve(d, symbol, buffer, count, offset, kind, &at); e != cudaSuccess || count == 0)
    return done(scope, e);
  return done(scope, to_cuda_error(copy(d, at, buffer, count, kind, async, stream)));
}

}  // namespace

// Contract: cuda_runtime_api.h. A NULL devPtr is cudaErrorInvalidValue (the H200's runtime
// crashes on it).
cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetSymbolAddress(devPtr={}, symbol={})", static_cast<void*>(devPtr),
                     symbol);
  if (devPtr == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUdeviceptr base = 0;
  size_t size = 0;
  if (cudaError_t e = symbol_of(symbol, &base, &size); e != cudaSuccess) return done(scope, e);
  *devPtr = reinterpret_cast<void*>(base);
  if (scope.active()) scope.result("cudaSuccess, *devPtr={:#x}", base);
  return cudaSuccess;
}

// Contract: cuda_runtime_api.h. A NULL size is cudaErrorInvalidValue (the H200's runtime
// crashes on it).
cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetSymbolSize(size={}, symbol={})", static_cast<void*>(size), symbol);
  if (size == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUdeviceptr base = 0;
  size_t bytes = 0;
  if (cudaError_t e = symbol_of(symbol, &base, &bytes); e != cudaSuccess) return done(scope, e);
  *size = bytes;
  if (scope.active()) scope.result("cudaSuccess, *size={}", bytes);
  return cudaSuccess;
}

// Contract: cuda_runtime_api.h.
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyToSymbol(symbol={}, src={}, count={}, offset={}, kind={})",
                     symbol, src, count, offset, memcpy_kind_name(kind));
  return symbol_copy(scope, Direction::ToSymbol, symbol, const_cast<void*>(src), count, offset, kind, false, nullptr);
}

// Contract: cuda_runtime_api.h.
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyFromSymbol(dst={}, symbol={}, count={}, offset={}, kind={})",
                     dst, symbol, count, offset, memcpy_kind_name(kind));
  return symbol_copy(scope, Direction::FromSymbol, symbol, dst, count, offset, kind, false, nullptr);
}

// Contract: cuda_runtime_api.h; queued on stream as cudaMemcpyAsync is.
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart,
                     "cudaMemcpyToSymbolAsync(symbol={}, src={}, count={}, offset={}, kind={}, stream={})", symbol,
                     src, count, offset, memcpy_kind_name(kind), static_cast<void*>(stream));
  return symbol_copy(scope, Direction::ToSymbol, symbol, const_cast<void*>(src), count, offset, kind, true, stream);
}

// Contract: cuda_runtime_api.h; queued on stream as cudaMemcpyAsync is.
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart,
                     "cudaMemcpyFromSymbolAsync(dst={}, symbol={}, count={}, offset={}, kind={}, stream={})", dst,
                     symbol, count, offset, memcpy_kind_name(kind), static_cast<void*>(stream));
  return symbol_copy(scope, Direction::FromSymbol, symbol, dst, count, offset, kind, true, stream);
}
