// The idioms of cuda-samples' helper_cuda.h and of textbook error-checking helpers, written
// afresh here: code that tests the toolkit's include guards before naming the runtime's or the
// driver's types, switches over cudaError_t and CUresult, names compute modes, and maps a
// compute capability to cores per SM from cudaDeviceProp. It must compile unchanged against
// minicuda's headers and see the same values as against the toolkit's.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>

#include <gtest/gtest.h>

#ifdef __DRIVER_TYPES_H__
static const char* runtime_error_name(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "<other>";
  }
}
#endif

#ifdef __cuda_cuda_h__
static const char* driver_error_name(CUresult e) {
  switch (e) {
    case CUDA_SUCCESS: return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
    default: return "<other>";
  }
}
#endif

#ifdef __CUDA_RUNTIME_H__
static const char* compute_mode_name(int mode) {
  switch (mode) {
    case cudaComputeModeDefault: return "Default (multiple host threads can use the device)";
    case cudaComputeModeExclusive: return "Exclusive (one host thread at a time)";
    case cudaComputeModeProhibited: return "Prohibited (no host thread can use the device)";
    case cudaComputeModeExclusiveProcess: return "Exclusive Process (one process at a time)";
    default: return "Unknown";
  }
}

// Cores per SM by compute capability, looked up as (major << 4) + minor.
static int cores_per_sm(int major, int minor) {
  struct Entry {
    int sm;
    int cores;
  };
  static const Entry table[] = {{0x70, 64}, {0x75, 64}, {0x80, 64}, {0x86, 128}, {0x89, 128}, {0x90, 128}, {-1, -1}};
  for (int i = 0; table[i].sm != -1; ++i)
    if (table[i].sm == ((major << 4) + minor)) return table[i].cores;
  return 128;
}

static int sm_cores_of(const cudaDeviceProp& prop) { return cores_per_sm(prop.major, prop.minor) * prop.multiProcessorCount; }
#endif

#if !defined(__DRIVER_TYPES_H__) || !defined(__cuda_cuda_h__) || !defined(__CUDA_RUNTIME_H__)
#error "the guards helper code tests must be defined"
#endif
#if CUDART_VERSION < 12000
#error "CUDART_VERSION must say CUDA 13"
#endif

TEST(HelperCudaStyle, GuardedHelpersSeeTheToolkitsValues) {
  EXPECT_STREQ(runtime_error_name(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(runtime_error_name(static_cast<cudaError_t>(801)), "cudaErrorNotSupported");
  EXPECT_STREQ(driver_error_name(static_cast<CUresult>(801)), "CUDA_ERROR_NOT_SUPPORTED");
  EXPECT_STREQ(compute_mode_name(2), "Prohibited (no host thread can use the device)");
  EXPECT_STREQ(compute_mode_name(cudaComputeModeExclusiveProcess), "Exclusive Process (one process at a time)");
  cudaDeviceProp prop;
  std::memset(&prop, 0, sizeof prop);
  prop.major = 9;
  prop.minor = 0;
  prop.multiProcessorCount = 132;
  EXPECT_EQ(sm_cores_of(prop), 16896);
  // The error-string functions need no device, as in the real runtime.
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
}
