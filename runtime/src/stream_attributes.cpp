// Stream attributes: cudaStreamSetAttribute / cudaStreamGetAttribute over cuStreamSetAttribute /
// cuStreamGetAttribute, and cudaCtxResetPersistingL2Cache over cuCtxResetPersistingL2Cache. The
// runtime's attribute value is the driver's, member for member (the asserts below), so it is
// passed down as it is.
#include <cstddef>

#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

static_assert(sizeof(cudaLaunchAttributeValue) == sizeof(CUlaunchAttributeValue));
static_assert(sizeof(cudaAccessPolicyWindow) == sizeof(CUaccessPolicyWindow));
static_assert(offsetof(cudaAccessPolicyWindow, missProp) == offsetof(CUaccessPolicyWindow, missProp));
static_assert(static_cast<int>(cudaLaunchAttributePriority) == static_cast<int>(CU_LAUNCH_ATTRIBUTE_PRIORITY));

// Contract: stores attr of stream; checks and errors as cuStreamSetAttribute (cuda_attributes.h),
// translated: a bad window or value NULL: cudaErrorInvalidValue; an unknown stream:
// cudaErrorInvalidResourceHandle; MemSyncDomain(Map): cudaErrorNotSupported.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamSetAttribute(stream={}, attr={}, value={})",
                     static_cast<void*>(stream), static_cast<int>(attr), static_cast<const void*>(value));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  const auto* v = reinterpret_cast<const CUstreamAttrValue*>(value);
  return done(scope, to_cuda_error(cuStreamSetAttribute(reinterpret_cast<CUstream>(stream),
                                                        static_cast<CUstreamAttrID>(attr), v)));
}

// Contract: *value_out = attr of stream (a new stream: an empty window, cudaSyncPolicyAuto, its
// creation priority); errors as cudaStreamSetAttribute.
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamGetAttribute(stream={}, attr={}, value_out={})",
                     static_cast<void*>(stream), static_cast<int>(attr), static_cast<void*>(value_out));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  auto* v = reinterpret_cast<CUstreamAttrValue*>(value_out);
  return done(scope, to_cuda_error(cuStreamGetAttribute(reinterpret_cast<CUstream>(stream),
                                                        static_cast<CUstreamAttrID>(attr), v)));
}

// Contract: demotes the current device's persisting L2 lines; the simulated L2 keeps none, so
// this succeeds once the device's context is made.
cudaError_t cudaCtxResetPersistingL2Cache(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaCtxResetPersistingL2Cache()");
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxResetPersistingL2Cache()));
}
