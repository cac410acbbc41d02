// Several GPUs: peer access between contexts and copies between devices.
//
// Each GPU has its own VRAM and page table, and a context's VA window is reserved in the host,
// so a device pointer names one context's allocation (UVA): cuMemcpy between two devices'
// pointers finds the owning contexts. The GPUs share no bus model, so a copy between devices is
// staged through host memory: the source GPU's copy engine writes it to the host, the
// destination GPU's reads it from there (what the real driver does when peer access is off).
// Peer access is recorded per context pair (the real errors); it maps nothing. What does map one
// GPU's memory into another's page table is a memory pool's access (mempool_access.cpp). Kernels
// run as host code over one address space, so a kernel's access is not checked against its own
// GPU's page table: it reaches any GPU's memory the host maps.
#include <vector>

#include "copy.h"
#include "libcuda.h"
#include "prebuilt.h"

namespace minicuda::libcuda {

CUctx_st* owner_context(uint64_t p, uint64_t n) {
  Driver& d = driver();
  for (CUcontext c : d.primary) {
    if (c->active && c->pool != nullptr && is_device(*c, p, n)) return c;
  }
  for (CUcontext c : d.created) {
    if (c->active && c->pool != nullptr && is_device(*c, p, n)) return c;
  }
  return nullptr;
}

CUresult copy_between(CUctx_st& dst_ctx, uint64_t dst, CUctx_st& src_ctx, uint64_t src, uint64_t n,
                      CUstream_st* dst_stream) {
  if (n == 0) return CUDA_SUCCESS;
  trace::note(trace::Layer::Libcuda, "peer copy: {} B from gpu{} to gpu{}, staged through host memory", n,
              src_ctx.device, dst_ctx.device);
  std::vector<unsigned char> host(n);
  const auto staged = reinterpret_cast<uint64_t>(host.data());
  if (CUresult r = copy(src_ctx, staged, src, n); r != CUDA_SUCCESS) return r;
  return copy(dst_ctx, dst, staged, n, dst_stream);
}

bool copy_across_devices(CUctx_st& ctx, uint64_t dst, uint64_t src, uint64_t n, CUstream_st* stream, CUresult* r) {
  CUctx_st* dst_owner = owner_context(dst, n);
  CUctx_st* src_owner = owner_context(src, n);
  if ((dst_owner == nullptr || dst_owner == &ctx) && (src_owner == nullptr || src_owner == &ctx)) return false;
  if (dst_owner == src_owner) return false;  // both on one other context: the current one cannot reach them
  if ((*r = prebuilt::refuse_if_recording(channel_of(ctx, stream), "a copy between two devices")) != CUDA_SUCCESS)
    return true;
  CUctx_st& dst_ctx = dst_owner ? *dst_owner : ctx;
  *r = copy_between(dst_ctx, dst, src_owner ? *src_owner : ctx, src, n, &dst_ctx == &ctx ? stream : nullptr);
  return true;
}

CUctx_st* device_owner(CUctx_st& ctx, uint64_t p, uint64_t n) {
  return is_device(ctx, p, n) ? &ctx : owner_context(p, n);
}

CUresult copy_uva(CUctx_st& ctx, uint64_t dst, CUctx_st* dst_owner, uint64_t src, CUctx_st* src_owner, uint64_t n,
                  CUstream_st* stream, bool async) {
  const bool dst_here = dst_owner == nullptr || dst_owner == &ctx;
  const bool src_here = src_owner == nullptr || src_owner == &ctx;
  if (dst_here && src_here) return copy(ctx, dst, src, n, stream, async);
  // Another device's memory: the copy runs on the contexts that own the sides, after the work
  // queued in ctx's stream so far, and is complete when this returns.
  Channel& ch = channel_of(ctx, stream);
  if (CUresult r = prebuilt::refuse_if_recording(ch, "a copy with another device's memory"); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = ch.wait(ch.last_fence()); r != CUDA_SUCCESS) return r;
  CUctx_st& to = dst_owner != nullptr ? *dst_owner : *src_owner;
  CUctx_st& from = src_owner != nullptr ? *src_owner : *dst_owner;
  if (&to != &from) return copy_between(to, dst, from, src, n, nullptr);
  trace::note(trace::Layer::Libcuda, "UVA: the device side is gpu{}'s memory: the copy runs on its context", to.device);
  if (CUresult r = copy(to, dst, src, n); r != CUDA_SUCCESS) return r;
  Channel& theirs = channel_of(to, nullptr);
  return theirs.wait(theirs.last_fence());
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {
const char* p2p_attribute_name(CUdevice_P2PAttribute a) {
  switch (a) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: return "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK";
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED: return "CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED";
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: return "CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED";
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: return "CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED";
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
      return "CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED";
  }
  return "(unknown)";
}
}  // namespace

// Contract: *canAccessPeer = 1 if dev can map peerDev's memory (two GPUs of the same
// architecture), 0 for dev == peerDev. NULL: CUDA_ERROR_INVALID_VALUE; a bad ordinal:
// CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceCanAccessPeer(canAccessPeer={}, dev={}, peerDev={})",
                     static_cast<void*>(canAccessPeer), dev, peerDev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (canAccessPeer == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const DeviceInfo* a = device_info(dev);
  const DeviceInfo* b = device_info(peerDev);
  if (a == nullptr || b == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  *canAccessPeer = dev != peerDev && a->major == b->major && a->minor == b->minor ? 1 : 0;
  if (scope.active()) scope.result("CUDA_SUCCESS, *canAccessPeer={}", *canAccessPeer);
  return CUDA_SUCCESS;
}

// Contract: *value = attrib of the link from srcDevice to dstDevice, as on an H200 board whose
// GPUs share one NVLink switch: every pair of GPUs of one architecture is linked with the best
// performance rank (0), peer access, native atomics and CUDA array access, and no
// partial-atomics restriction; GPUs of different architectures are not linked (all 0). value NULL
// or an unknown attrib: CUDA_ERROR_INVALID_VALUE; a bad ordinal or srcDevice == dstDevice:
// CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetP2PAttribute(value={}, attrib={}, srcDevice={}, dstDevice={})",
                     static_cast<void*>(value), p2p_attribute_name(attrib), srcDevice, dstDevice);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (value == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const DeviceInfo* a = device_info(srcDevice);
  const DeviceInfo* b = device_info(dstDevice);
  if (a == nullptr || b == nullptr || srcDevice == dstDevice) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  const bool linked = a->major == b->major && a->minor == b->minor;
  switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = linked ? 1 : 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; break;
    default: return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  if (scope.active()) scope.result("CUDA_SUCCESS, *value={}", *value);
  return CUDA_SUCCESS;
}

// Contract: the current context may reach peerContext's allocations. Flags != 0:
// CUDA_ERROR_INVALID_VALUE; no current context or a peerContext that is not a live context:
// CUDA_ERROR_INVALID_CONTEXT; the peer on the same device: CUDA_ERROR_INVALID_DEVICE; enabled
// before: CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxEnablePeerAccess(peerContext={}, Flags={})",
                     static_cast<void*>(peerContext), Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (Flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (!valid_context(peerContext) || !peerContext->active) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  if (peerContext->device == ctx->device) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (!ctx->peers.insert(peerContext).second) return done(scope, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  return done(scope, CUDA_SUCCESS);
}

// Contract: undoes cuCtxEnablePeerAccess. Not enabled: CUDA_ERROR_PEER_ACCESS_NOT_ENABLED; no
// current context or a dead peerContext: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxDisablePeerAccess(CUcontext peerContext) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxDisablePeerAccess(peerContext={})", static_cast<void*>(peerContext));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (!valid_context(peerContext)) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  if (ctx->peers.erase(peerContext) == 0) return done(scope, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  return done(scope, CUDA_SUCCESS);
}

namespace {
CUresult memcpy_peer(trace::Scope& scope, CUdeviceptr dst, CUcontext dstContext, CUdeviceptr src,
                     CUcontext srcContext, size_t n, CUstream hStream) {
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (!valid_context(dstContext) || !valid_context(srcContext) || !dstContext->active || !srcContext->active) {
    return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  }
  if (!is_device(*dstContext, dst, n) || !is_device(*srcContext, src, n)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUstream_st* stream = nullptr;
  if (hStream != nullptr) {
    if (CUresult r = resolve_stream(*dstContext, hStream, &stream); r != CUDA_SUCCESS) return done(scope, r);
  }
  if (dstContext == srcContext) return done(scope, *dstContext, copy(*dstContext, dst, src, n, stream));
  return done(scope, *dstContext, copy_between(*dstContext, dst, *srcContext, src, n, stream));
}
}  // namespace

// Contract: copies n bytes from srcContext's allocation at src to dstContext's at dst (peer
// access need not be enabled). A dead context: CUDA_ERROR_INVALID_CONTEXT; a range outside the
// context's device allocations: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
                      size_t ByteCount) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemcpyPeer(dstDevice={:#x}, dstContext={}, srcDevice={:#x}, srcContext={}, ByteCount={})",
                     dstDevice, static_cast<void*>(dstContext), srcDevice, static_cast<void*>(srcContext), ByteCount);
  return memcpy_peer(scope, dstDevice, dstContext, srcDevice, srcContext, ByteCount, nullptr);
}

// Contract: as cuMemcpyPeer, ordered after hStream's work (a stream of dstContext). The copy is
// staged through the host, so it is complete when the call returns.
CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext,
                           size_t ByteCount, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda,
                     "cuMemcpyPeerAsync(dstDevice={:#x}, dstContext={}, srcDevice={:#x}, srcContext={}, ByteCount={}, hStream={})",
                     dstDevice, static_cast<void*>(dstContext), srcDevice, static_cast<void*>(srcContext), ByteCount,
                     static_cast<void*>(hStream));
  return memcpy_peer(scope, dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream);
}
