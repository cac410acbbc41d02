// A kernel's attributes and preferences: cudaFuncGetAttributes, cudaFuncSetAttribute,
// cudaFuncSetCacheConfig, cudaFuncSetSharedMemConfig and cudaGetFuncBySymbol. func is a host
// function registered with __cudaRegisterFunction: minicuda's own kernels (cu2cxx) and those of a
// program NVIDIA's nvcc built (the host stub; its kernel is PTX the driver JIT-compiles), so each
// call first loads func's module (lazy loading) and then makes one libcuda call on the kernel.
// Values and errors: the H200's (tests/data/h200/probe_api_families.txt rt.func*, and
// probe_bad_input.txt for the last-error slot).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: sets MaxDynamicSharedMemorySize (0 .. sharedMemPerBlockOptin less the kernel's static
// __shared__) or the preferred carveout (-1 .. 100) of func's kernel (cuFuncSetAttribute). Out of
// range or another attribute: cudaErrorInvalidValue; NULL func: cudaErrorInvalidDeviceFunction; a
// host function with no kernel: cudaErrorInvalidResourceHandle. Success clears the last error.
cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFuncSetAttribute(func={}, attr={}, value={})", func,
                     static_cast<int>(attr), value);
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  return done_clearing_on_success(scope, to_cuda_error(cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel),
                                                                            static_cast<CUfunction_attribute>(attr), value)));
}

// Contract: *attr = func's kernel as the driver knows it (cuFuncGetAttribute, one call per field).
// A PTX kernel's numRegs is the JIT's register allocation, sharedSizeBytes its static __shared__,
// maxDynamicSharedSizeBytes 48 KiB less that until raised. NULL attr: cudaErrorInvalidValue; func:
// as cudaFuncSetAttribute.
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFuncGetAttributes(attr={}, func={})", static_cast<void*>(attr), func);
  if (attr == nullptr) return done(scope, cudaErrorInvalidValue);
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  auto f = reinterpret_cast<CUfunction>(kernel);
  int v[16] = {};
  for (int a = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; a <= CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE; ++a) {
    if (CUresult r = cuFuncGetAttribute(&v[a], static_cast<CUfunction_attribute>(a), f); r != CUDA_SUCCESS)
      return done(scope, to_cuda_error(r));
  }
  *attr = cudaFuncAttributes{};
  attr->maxThreadsPerBlock = v[CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK];
  attr->sharedSizeBytes = static_cast<size_t>(v[CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES]);
  attr->constSizeBytes = static_cast<size_t>(v[CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES]);
  attr->localSizeBytes = static_cast<size_t>(v[CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES]);
  attr->numRegs = v[CU_FUNC_ATTRIBUTE_NUM_REGS];
  attr->ptxVersion = v[CU_FUNC_ATTRIBUTE_PTX_VERSION];
  attr->binaryVersion = v[CU_FUNC_ATTRIBUTE_BINARY_VERSION];
  attr->cacheModeCA = v[CU_FUNC_ATTRIBUTE_CACHE_MODE_CA];
  attr->maxDynamicSharedSizeBytes = v[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES];
  attr->preferredShmemCarveout = v[CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT];
  attr->clusterDimMustBeSet = v[CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET];
  attr->requiredClusterWidth = v[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
  attr->requiredClusterHeight = v[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT];
  attr->requiredClusterDepth = v[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH];
  attr->nonPortableClusterSizeAllowed = v[CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED];
  attr->clusterSchedulingPolicyPreference = v[CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE];
  return done(scope, cudaSuccess);
}

// Contract: records func's cache preference (cuFuncSetCacheConfig). NULL func:
// cudaErrorInvalidDeviceFunction; a host function with no kernel (a host variable's address):
// cudaErrorInvalidResourceHandle; a value outside cudaFuncCache: cudaErrorInvalidValue (measured,
// rt.funcSetCacheConfig.*).
cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFuncSetCacheConfig(func={}, cacheConfig={})", func,
                     static_cast<int>(cacheConfig));
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel),
                                                        static_cast<CUfunc_cache>(cacheConfig))));
}

// Contract: as cudaFuncSetCacheConfig, for the (fixed) bank size: accepted, no effect.
cudaError_t cudaFuncSetSharedMemConfig(const void* func, enum cudaSharedMemConfig config) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFuncSetSharedMemConfig(func={}, config={})", func,
                     static_cast<int>(config));
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuFuncSetSharedMemConfig(reinterpret_cast<CUfunction>(kernel),
                                                            static_cast<CUsharedconfig>(config))));
}

// Contract: *functionPtr = the driver's function for the kernel of the host function symbolPtr,
// usable with the cuFunc* and cuOccupancy* calls (its module loaded at first use). NULL
// functionPtr: cudaErrorInvalidValue; symbolPtr: as func of cudaFuncSetAttribute.
cudaError_t cudaGetFuncBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetFuncBySymbol(functionPtr={}, symbolPtr={})",
                     static_cast<void*>(functionPtr), symbolPtr);
  if (functionPtr == nullptr) return done(scope, cudaErrorInvalidValue);
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(symbolPtr, &kernel); e != cudaSuccess) return done(scope, e);
  *functionPtr = reinterpret_cast<cudaFunction_t>(kernel);
  if (scope.active()) scope.result("cudaSuccess, *functionPtr={}", static_cast<void*>(*functionPtr));
  return cudaSuccess;
}
