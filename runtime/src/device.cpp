// Device properties: cudaGetDeviceProperties returns what lazy initialisation read from the
// driver; cudaDeviceGetAttribute asks the driver (cuDeviceGetAttribute) each time.
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: *prop = the properties of device. NULL prop: cudaErrorInvalidValue; bad ordinal:
// cudaErrorInvalidDevice.
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetDeviceProperties(prop={}, device={})", static_cast<void*>(prop), device);
  if (prop == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  const cudaDeviceProp* cached = device_properties(device);
  if (cached == nullptr) return done(scope, cudaErrorInvalidDevice);
  *prop = *cached;
  return done(scope, cudaSuccess);
}

// Contract: *value = the attribute of device (cudaDevAttr* ids are the driver's). NULL value or
// an unknown attribute: cudaErrorInvalidValue; bad ordinal: cudaErrorInvalidDevice.
cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetAttribute(value={}, attr={}, device={})", static_cast<void*>(value),
                     static_cast<int>(attr), device);
  if (value == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (device < 0 || device >= device_count()) return done(scope, cudaErrorInvalidDevice);
  return done(scope, to_cuda_error(cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attr), device)));
}
