// Several GPUs: peer access and peer copies over the driver's cuDeviceCanAccessPeer,
// cuCtxEnablePeerAccess/DisablePeerAccess and cuMemcpyPeer(Async), between primary contexts.
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

// The primary context of `device`, retained and ready as cudaSetDevice would make it; the
// calling thread's device and current context are left as they were.
cudaError_t device_context(int device, CUcontext* ctx) {
  const int current = current_device();
  set_device(device);
  cudaError_t e = ensure_context();
  if (e == cudaSuccess && cuCtxGetCurrent(ctx) != CUDA_SUCCESS) e = cudaErrorInvalidDevice;
  set_device(current);
  if (cudaError_t back = ensure_context(); e == cudaSuccess) e = back;
  return e;
}

bool valid_device(int device) { return device >= 0 && device < device_count(); }

cudaError_t memcpy_peer(trace::Scope& scope, void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                        cudaStream_t stream) {
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (!valid_device(dstDevice) || !valid_device(srcDevice)) return done(scope, cudaErrorInvalidDevice);
  if (count == 0) return done(scope, cudaSuccess);
  CUcontext dst_ctx = nullptr, src_ctx = nullptr;
  if (cudaError_t e = device_context(dstDevice, &dst_ctx); e != cudaSuccess) return done(scope, e);
  if (cudaError_t e = device_context(srcDevice, &src_ctx); e != cudaSuccess) return done(scope, e);
  const auto d = reinterpret_cast<CUdeviceptr>(dst);
  const auto s = reinterpret_cast<CUdeviceptr>(src);
  CUresult r = stream == nullptr ? cuMemcpyPeer(d, dst_ctx, s, src_ctx, count)
                                 : cuMemcpyPeerAsync(d, dst_ctx, s, src_ctx, count, reinterpret_cast<CUstream>(stream));
  return done(scope, to_cuda_error(r));
}

}  // namespace

// Contract: *canAccessPeer = 1 if device can reach peerDevice's memory (two GPUs of one
// architecture), 0 for the same device. NULL: cudaErrorInvalidValue; a bad ordinal:
// cudaErrorInvalidDevice.
cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceCanAccessPeer(canAccessPeer={}, device={}, peerDevice={})",
                     static_cast<void*>(canAccessPeer), device, peerDevice);
  if (canAccessPeer == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (!valid_device(device) || !valid_device(peerDevice)) return done(scope, cudaErrorInvalidDevice);
  return done(scope, to_cuda_error(cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice)));
}

// Contract: *value = attr of the link from srcDevice to dstDevice (cuDeviceGetP2PAttribute: two
// GPUs of one architecture are linked with rank 0, access, native atomics and array access).
// value NULL or an unknown attr: cudaErrorInvalidValue; a bad ordinal or srcDevice == dstDevice:
// cudaErrorInvalidDevice.
cudaError_t cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetP2PAttribute(value={}, attr={}, srcDevice={}, dstDevice={})",
                     static_cast<void*>(value), static_cast<int>(attr), srcDevice, dstDevice);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (!valid_device(srcDevice) || !valid_device(dstDevice)) return done(scope, cudaErrorInvalidDevice);
  const auto a = static_cast<CUdevice_P2PAttribute>(attr);
  return done(scope, to_cuda_error(cuDeviceGetP2PAttribute(value, a, srcDevice, dstDevice)));
}

// Contract: the current device may reach peerDevice's allocations. A bad ordinal or the current
// device itself: cudaErrorInvalidDevice; flags != 0: cudaErrorInvalidValue; enabled before:
// cudaErrorPeerAccessAlreadyEnabled (704).
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceEnablePeerAccess(peerDevice={}, flags={:#x})", peerDevice, flags);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (!valid_device(peerDevice) || peerDevice == current_device()) return done(scope, cudaErrorInvalidDevice);
  if (flags != 0) return done(scope, cudaErrorInvalidValue);
  CUcontext peer = nullptr;
  if (cudaError_t e = device_context(peerDevice, &peer); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxEnablePeerAccess(peer, 0)));
}

// Contract: undoes cudaDeviceEnablePeerAccess. A bad ordinal or the current device:
// cudaErrorInvalidDevice; not enabled: cudaErrorPeerAccessNotEnabled (705).
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceDisablePeerAccess(peerDevice={})", peerDevice);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (!valid_device(peerDevice) || peerDevice == current_device()) return done(scope, cudaErrorInvalidDevice);
  CUcontext peer = nullptr;
  if (cudaError_t e = device_context(peerDevice, &peer); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxDisablePeerAccess(peer)));
}

// Contract: copies count bytes from srcDevice's allocation at src to dstDevice's at dst; peer
// access need not be enabled. A bad ordinal: cudaErrorInvalidDevice; a range that is not the
// device's memory: cudaErrorInvalidValue.
cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyPeer(dst={}, dstDevice={}, src={}, srcDevice={}, count={})", dst,
                     dstDevice, src, srcDevice, count);
  return memcpy_peer(scope, dst, dstDevice, src, srcDevice, count, nullptr);
}

// Contract: as cudaMemcpyPeer, ordered after stream's work (a stream of dstDevice).
cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyPeerAsync(dst={}, dstDevice={}, src={}, srcDevice={}, count={}, stream={})",
                     dst, dstDevice, src, srcDevice, count, static_cast<void*>(stream));
  return memcpy_peer(scope, dst, dstDevice, src, srcDevice, count, stream);
}
