// Stream attributes (cuStreamSetAttribute / cuStreamGetAttribute) and the persisting-L2 reset.
//
// On the H200 an access policy window tells the L2 which lines of a buffer to keep in the
// set-aside that CU_LIMIT_PERSISTING_L2_CACHE_SIZE reserves. The simulated L2 models no
// persistence, so the window is a hint: it is checked as the driver checks it, stored with the
// stream and returned, and the trace shows it. The synchronisation policy is kept the same way;
// the priority is the stream's own (stream.cpp).
#include <algorithm>

#include "libcuda.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {

// The H200's stream priority range (cuCtxGetStreamPriorityRange): 0 (least) to -5 (greatest).
constexpr int kLeastPriority = 0, kGreatestPriority = -5;

const char* property_name(CUaccessProperty p) {
  switch (p) {
    case CU_ACCESS_PROPERTY_NORMAL: return "CU_ACCESS_PROPERTY_NORMAL";
    case CU_ACCESS_PROPERTY_STREAMING: return "CU_ACCESS_PROPERTY_STREAMING";
    case CU_ACCESS_PROPERTY_PERSISTING: return "CU_ACCESS_PROPERTY_PERSISTING";
  }
  return "?";
}

const char* attribute_id_name(CUstreamAttrID id) {
  switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: return "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW";
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: return "CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY";
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: return "CU_LAUNCH_ATTRIBUTE_PRIORITY";
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: return "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP";
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: return "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN";
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING: return "CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING";
    default: return "(not a stream attribute)";
  }
}

bool valid_property(CUaccessProperty p) {
  return p == CU_ACCESS_PROPERTY_NORMAL || p == CU_ACCESS_PROPERTY_STREAMING || p == CU_ACCESS_PROPERTY_PERSISTING;
}

// CUDA_SUCCESS if the window is one the H200's driver accepts on ctx's device.
CUresult check_window(const CUctx_st& ctx, const CUaccessPolicyWindow& w) {
  int max_window = 0;
  const DeviceInfo* dev = device_info(ctx.device);
  if (dev == nullptr || !device_attribute(*dev, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, &max_window)) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  if (w.num_bytes > static_cast<size_t>(max_window)) return CUDA_ERROR_INVALID_VALUE;
  if (!(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f)) return CUDA_ERROR_INVALID_VALUE;  // NaN too
  if (!valid_property(w.hitProp) || !valid_property(w.missProp)) return CUDA_ERROR_INVALID_VALUE;
  if (w.missProp == CU_ACCESS_PROPERTY_PERSISTING) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

// Where hStream's attributes live: its own, or the context's for the NULL stream. Sets *s to
// the stream (null for the NULL stream). CUDA_ERROR_INVALID_HANDLE for an unknown stream.
CUresult find_attributes(CUctx_st& ctx, CUstream hStream, CUstream_st** s, StreamAttributes** out) {
  if (CUresult r = resolve_stream(ctx, hStream, s); r != CUDA_SUCCESS) return r;
  *out = *s ? &(*s)->attributes : &ctx.null_stream_attributes;
  return CUDA_SUCCESS;
}

CUresult set_attribute(CUctx_st& ctx, CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue& value) {
  CUstream_st* s = nullptr;
  StreamAttributes* a = nullptr;
  if (CUresult r = find_attributes(ctx, hStream, &s, &a); r != CUDA_SUCCESS) return r;
  switch (attr) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: {
      const CUaccessPolicyWindow& w = value.accessPolicyWindow;
      if (CUresult r = check_window(ctx, w); r != CUDA_SUCCESS) return r;
      trace::note(trace::Layer::Libcuda, "access policy window [{}, +{} B) hitRatio={} hitProp={} missProp={}: kept as a hint",
                  w.base_ptr, w.num_bytes, w.hitRatio, property_name(w.hitProp), property_name(w.missProp));
      a->window = w;
      return CUDA_SUCCESS;
    }
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      if (value.syncPolicy < CU_SYNC_POLICY_AUTO || value.syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC) {
        return CUDA_ERROR_INVALID_VALUE;
      }
      a->sync_policy = value.syncPolicy;
      return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
      if (s == nullptr) return CUDA_ERROR_INVALID_VALUE;  // the NULL stream's priority is fixed at 0
      s->priority = std::clamp(value.priority, kGreatestPriority, kLeastPriority);
      return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
      trace::note(trace::Layer::Libcuda, "{}: not built", attribute_id_name(attr));
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult get_attribute(CUctx_st& ctx, CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue* out) {
  CUstream_st* s = nullptr;
  StreamAttributes* a = nullptr;
  if (CUresult r = find_attributes(ctx, hStream, &s, &a); r != CUDA_SUCCESS) return r;
  switch (attr) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
      out->accessPolicyWindow = a->window;
      return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      out->syncPolicy = a->sync_policy;
      return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
      out->priority = s ? s->priority : 0;
      return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
      trace::note(trace::Layer::Libcuda, "{}: not built", attribute_id_name(attr));
      return CUDA_ERROR_NOT_SUPPORTED;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace

// Contract: in cuda_attributes.h (the checks, the errors, the window being a hint).
CUresult cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue* value) {
  trace::Scope scope(trace::Layer::Libcuda, "cuStreamSetAttribute(hStream={}, attr={}, value={})",
                     static_cast<void*>(hStream), attribute_id_name(attr), static_cast<const void*>(value));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (value == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, set_attribute(*ctx, hStream, attr, *value));
}

// Contract: in cuda_attributes.h.
CUresult cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue* value_out) {
  trace::Scope scope(trace::Layer::Libcuda, "cuStreamGetAttribute(hStream={}, attr={}, value_out={})",
                     static_cast<void*>(hStream), attribute_id_name(attr), static_cast<void*>(value_out));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (value_out == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, get_attribute(*ctx, hStream, attr, value_out));
}

// Contract: in cuda_attributes.h. No current context: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxResetPersistingL2Cache(void) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxResetPersistingL2Cache()");
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  trace::note(trace::Layer::Libcuda, "the simulated L2 keeps no persisting lines: nothing to demote");
  return done(scope, CUDA_SUCCESS);
}
