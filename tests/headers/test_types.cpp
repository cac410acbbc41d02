// The toolkit's header names, include guards, version macros, enumeration values and vector-type
// layouts, as real CUDA programs test and use them (cuda-samples' helper_cuda.h checks
// __DRIVER_TYPES_H__ and __CUDA_RUNTIME_H__ before it names the runtime's types). Values are the
// CUDA 13.0 toolkit's (driver_types.h, vector_types.h, math_constants.h).
#include <cuda_runtime.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <math_constants.h>
#include <vector_functions.hpp>

#include <cstddef>
#include <cstring>

#include <gtest/gtest.h>

#if !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_H__) || !defined(__CUDA_RUNTIME_API_H__) || \
    !defined(__VECTOR_TYPES_H__) || !defined(__VECTOR_FUNCTIONS_H__) || !defined(__VECTOR_FUNCTIONS_HPP__) ||       \
    !defined(__BUILTIN_TYPES_H__) || !defined(__DEVICE_TYPES_H__) || !defined(__HOST_DEFINES_H__) ||             \
    !defined(__cuda_cuda_h__) || !defined(__MATH_CONSTANTS_H__) || !defined(__MATH_FUNCTIONS_H__) ||             \
    !defined(__DEVICE_FUNCTIONS_H__) || !defined(__DEVICE_LAUNCH_PARAMETERS_H__)
#error "a toolkit include guard is missing"
#endif
static_assert(CUDART_VERSION == 13000 && CUDA_VERSION == 13000);

// The qualifiers and helpers of host_defines.h expand to something a host compiler accepts.
__host__ __device__ __forceinline__ static int twice(int x) { return 2 * x; }
struct __align__(32) Aligned32 { char c; };
struct __builtin_align__(16) Aligned16 { char c; };
__managed__ int managed_counter = 3;
static_assert(alignof(Aligned32) == 32 && alignof(Aligned16) == 16);

TEST(HeaderEnums, RuntimeEnumerationsHaveTheToolkitValues) {
  EXPECT_EQ(cudaComputeModeDefault, 0);
  EXPECT_EQ(cudaComputeModeExclusive, 1);
  EXPECT_EQ(cudaComputeModeProhibited, 2);
  EXPECT_EQ(cudaComputeModeExclusiveProcess, 3);
  EXPECT_EQ(cudaLimitStackSize, 0);
  EXPECT_EQ(cudaLimitPrintfFifoSize, 1);
  EXPECT_EQ(cudaLimitMallocHeapSize, 2);
  EXPECT_EQ(cudaLimitPersistingL2CacheSize, 6);
  EXPECT_EQ(cudaFuncCachePreferEqual, 3);
  EXPECT_EQ(cudaSharedMemBankSizeEightByte, 2);
  EXPECT_EQ(cudaSharedmemCarveoutDefault, -1);
  EXPECT_EQ(cudaSharedmemCarveoutMaxShared, 100);
  EXPECT_EQ(cudaFuncAttributeMaxDynamicSharedMemorySize, 8);
  EXPECT_EQ(cudaFuncAttributeClusterSchedulingPolicyPreference, 15);
  EXPECT_EQ(cudaFuncAttributeMax, 16);
  EXPECT_EQ(cudaMemAdviseSetReadMostly, 1);
  EXPECT_EQ(cudaMemAdviseUnsetAccessedBy, 6);
  EXPECT_EQ(cudaMemRangeAttributeLastPrefetchLocationId, 8);
  EXPECT_EQ(cudaStreamCaptureStatusInvalidated, 2);
  EXPECT_EQ(cudaStreamCaptureModeRelaxed, 2);
  EXPECT_EQ(cudaChannelFormatKindFloat, 2);
  EXPECT_EQ(cudaChannelFormatKindUnsignedNormalized1010102, 31);
  EXPECT_EQ(cudaMemoryTypeManaged, 3);
  EXPECT_EQ(cudaMemcpyDefault, 4);
  EXPECT_EQ(cudaDevP2PAttrOnlyPartialNativeAtomicSupported, 5);
  EXPECT_EQ(cudaRoundMinInf, 3);
  EXPECT_EQ(CU_COMPUTEMODE_PROHIBITED, 2);
  EXPECT_EQ(static_cast<int>(CU_COMPUTEMODE_EXCLUSIVE_PROCESS), static_cast<int>(cudaComputeModeExclusiveProcess));
}

TEST(HeaderEnums, DeviceAttributesAreTheDriversIds) {
  EXPECT_EQ(cudaDevAttrComputeMode, 20);
  EXPECT_EQ(static_cast<int>(cudaDevAttrComputeMode), static_cast<int>(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE));
  EXPECT_EQ(cudaDevAttrMaxSharedMemoryPerBlockOptin, 97);
  EXPECT_EQ(cudaDevAttrMaxBlocksPerMultiprocessor, 106);
  EXPECT_EQ(cudaDevAttrOnlyPartialHostNativeAtomicSupported, 147);
  EXPECT_EQ(cudaDevAttrMax, 148);
}

TEST(HeaderEnums, FlagMacrosAndHandleSizes) {
  EXPECT_EQ(cudaHostRegisterMapped, 0x02);
  EXPECT_EQ(cudaHostRegisterReadOnly, 0x08);
  EXPECT_EQ(cudaMemAttachGlobal, 0x01);
  EXPECT_EQ(cudaMemAttachSingle, 0x04);
  EXPECT_EQ(cudaArraySurfaceLoadStore, 0x02);
  EXPECT_EQ(cudaEventRecordExternal, 0x01);
  EXPECT_EQ(cudaOccupancyDisableCachingOverride, 0x01);
  EXPECT_EQ(CUDA_IPC_HANDLE_SIZE, 64);
  EXPECT_EQ(sizeof(cudaIpcMemHandle_t), 64u);
  EXPECT_EQ(sizeof(cudaPitchedPtr), 4 * sizeof(size_t));
  EXPECT_EQ(sizeof(cudaChannelFormatDesc), 20u);
}

// Layout of the structs a program and the runtime exchange (the CUDA 13.0 x86-64 ABI).
TEST(HeaderEnums, StructLayouts) {
  EXPECT_EQ(offsetof(cudaPointerAttributes, devicePointer), 8u);
  EXPECT_EQ(sizeof(cudaPointerAttributes), 88u);
  EXPECT_EQ(offsetof(cudaFuncAttributes, maxThreadsPerBlock), 24u);
  EXPECT_EQ(sizeof(cudaFuncAttributes), 144u);
  EXPECT_EQ(offsetof(cudaDeviceProp, uuid), 256u);
  EXPECT_EQ(sizeof(cudaDeviceProp), 1008u);
}

// Size and alignment of every vector type: the GPU loads a 16-byte type in one access, so the
// toolkit aligns it to 16; the one- and three-component types keep their component's alignment.
#define EXPECT_LAYOUT(T, size, align)      \
  static_assert(sizeof(T) == (size), #T);  \
  static_assert(alignof(T) == (align), #T)
EXPECT_LAYOUT(char1, 1, 1);
EXPECT_LAYOUT(char2, 2, 2);
EXPECT_LAYOUT(char3, 3, 1);
EXPECT_LAYOUT(uchar4, 4, 4);
EXPECT_LAYOUT(short2, 4, 4);
EXPECT_LAYOUT(short3, 6, 2);
EXPECT_LAYOUT(ushort4, 8, 8);
EXPECT_LAYOUT(int1, 4, 4);
EXPECT_LAYOUT(int2, 8, 8);
EXPECT_LAYOUT(uint3, 12, 4);
EXPECT_LAYOUT(int4, 16, 16);
EXPECT_LAYOUT(long2, 16, 16);
EXPECT_LAYOUT(ulong3, 24, 8);
EXPECT_LAYOUT(long4, 32, 16);
EXPECT_LAYOUT(long4_32a, 32, 32);
EXPECT_LAYOUT(longlong2, 16, 16);
EXPECT_LAYOUT(ulonglong4_16a, 32, 16);
EXPECT_LAYOUT(float2, 8, 8);
EXPECT_LAYOUT(float3, 12, 4);
EXPECT_LAYOUT(float4, 16, 16);
EXPECT_LAYOUT(double1, 8, 8);
EXPECT_LAYOUT(double2, 16, 16);
EXPECT_LAYOUT(double3, 24, 8);
EXPECT_LAYOUT(double4, 32, 16);
EXPECT_LAYOUT(double4_32a, 32, 32);
EXPECT_LAYOUT(dim3, 12, 4);

// cudaTypedefs.h's function-pointer types match the driver functions they name.
TEST(HeaderTypedefs, DriverFunctionPointerTypes) {
  PFN_cuInit_v2000 init = &cuInit;
  PFN_cuDeviceGetAttribute_v2000 attribute = &cuDeviceGetAttribute;
  PFN_cuMemAlloc_v3020 alloc = &cuMemAlloc_v2;
  EXPECT_NE(init, nullptr);
  EXPECT_NE(attribute, nullptr);
  EXPECT_NE(alloc, nullptr);
}

TEST(HeaderVectors, MakeFunctionsFillEveryComponent) {
  constexpr float4 f = make_float4(1.f, 2.f, 3.f, 4.f);
  static_assert(f.x == 1.f && f.w == 4.f);
  const char4 c = make_char4(-1, 2, -3, 4);
  EXPECT_EQ(c.x, -1);
  EXPECT_EQ(c.z, -3);
  const ulonglong2 u = make_ulonglong2(1ull << 63, 7);
  EXPECT_EQ(u.x, 1ull << 63);
  const double4_32a d = make_double4_32a(0.5, 1.5, 2.5, 3.5);
  EXPECT_EQ(d.w, 3.5);
  const int3 i = make_int3(1, -2, 3);
  EXPECT_EQ(i.y, -2);
  const dim3 grid(4);
  EXPECT_EQ(grid.y, 1u);
  const uint3 back = grid;
  EXPECT_EQ(back.x, 4u);
  EXPECT_EQ(twice(managed_counter), 6);
}

TEST(HeaderMathConstants, ValuesAndBitPatterns) {
  EXPECT_EQ(CUDART_PI_F, 3.14159265358979f);
  EXPECT_EQ(CUDART_PI, 3.141592653589793);
  EXPECT_EQ(CUDART_LN2, 0.6931471805599453);
  EXPECT_EQ(CUDART_SQRT_TWO_F, 1.41421356f);
  EXPECT_EQ(CUDART_TWO_TO_32_F, 4294967296.0f);
  EXPECT_EQ(__float_as_uint(CUDART_INF_F), 0x7f800000u);
  EXPECT_EQ(__float_as_uint(CUDART_NAN_F), 0x7fffffffu);
  EXPECT_EQ(__float_as_uint(CUDART_NEG_ZERO_F), 0x80000000u);
  EXPECT_EQ(__float_as_uint(CUDART_MIN_DENORM_F), 1u);
  EXPECT_EQ(static_cast<unsigned long long>(__double_as_longlong(CUDART_NAN)), 0xfff8000000000000ull);
  EXPECT_EQ(CUDART_INF, __builtin_inf());
  EXPECT_EQ(CUDART_REMQUO_MASK_F, 7u);
}
