// Surface objects in C++ kernels (surface_indirect_functions.h): x in bytes, the three boundary
// modes, and the object calls' errors.
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "kernel_test.h"

namespace minicuda::kernels_test {
namespace {

using Surfaces = FreshProcess;

__global__ void write_one(cudaSurfaceObject_t s, int x, int y, float v, int mode) {
  surf2Dwrite(v, s, x, y, static_cast<cudaSurfaceBoundaryMode>(mode));
}
__global__ void read_one(cudaSurfaceObject_t s, int x, int y, int mode, float* out) {
  *out = surf2Dread<float>(s, x, y, static_cast<cudaSurfaceBoundaryMode>(mode));
}
__global__ void layered_round_trip(cudaSurfaceObject_t s, int* out) {
  surf1DLayeredwrite(41 + static_cast<int>(threadIdx.x), s, static_cast<int>(threadIdx.x) * 4, 1);
  __syncthreads();
  out[threadIdx.x] = surf1DLayeredread<int>(s, static_cast<int>(threadIdx.x) * 4, 1);
}

constexpr int W = 4, H = 3;

struct Surface {
  cudaArray_t array = nullptr;
  cudaSurfaceObject_t object = 0;
  Surface() {
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
    EXPECT_EQ(cudaMallocArray(&array, &d, W, H, cudaArraySurfaceLoadStore), cudaSuccess);
    std::vector<float> init(W * H);
    for (int i = 0; i < W * H; ++i) init[i] = static_cast<float>(i);
    EXPECT_EQ(cudaMemcpy2DToArray(array, 0, 0, init.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice), cudaSuccess);
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = array;
    EXPECT_EQ(cudaCreateSurfaceObject(&object, &r), cudaSuccess);
  }
  std::vector<float> contents() const {
    std::vector<float> v(W * H);
    EXPECT_EQ(cudaMemcpy2DFromArray(v.data(), W * 4, array, 0, 0, W * 4, H, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  }
};

TEST_F(Surfaces, WritesAndReadsAddressBytes) {
  Surface s;
  write_one<<<1, 1>>>(s.object, 8, 1, 99.0f, cudaBoundaryModeTrap);  // column 2 of row 1
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> v = s.contents();
  EXPECT_EQ(v[1 * W + 2], 99.0f);
  EXPECT_EQ(v[1 * W + 1], 5.0f);
  DeviceArray<float> out(1);
  read_one<<<1, 1>>>(s.object, 12, 2, cudaBoundaryModeTrap, out.get());
  EXPECT_EQ(out.read()[0], 11.0f);
}

TEST_F(Surfaces, ClampAndZeroBoundaries) {
  Surface s;
  write_one<<<1, 1>>>(s.object, 100, 0, 7.0f, cudaBoundaryModeClamp);  // -> column 3
  write_one<<<1, 1>>>(s.object, -4, 5, 8.0f, cudaBoundaryModeClamp);   // -> column 0, row 2
  write_one<<<1, 1>>>(s.object, 16, 0, 9.0f, cudaBoundaryModeZero);    // dropped
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> v = s.contents();
  EXPECT_EQ(v[3], 7.0f);
  EXPECT_EQ(v[2 * W], 8.0f);
  EXPECT_EQ(v[0], 0.0f);
  DeviceArray<float> out(1);
  read_one<<<1, 1>>>(s.object, 16, 1, cudaBoundaryModeZero, out.get());
  EXPECT_EQ(out.read()[0], 0.0f);
  read_one<<<1, 1>>>(s.object, 16, 1, cudaBoundaryModeClamp, out.get());
  EXPECT_EQ(out.read()[0], 7.0f);
}

// H200 (surface_trap.txt): 700, then 700 from every call.
TEST_F(Surfaces, TrapEndsTheKernelWithTheStickyError) {
  Surface s;
  write_one<<<1, 1>>>(s.object, W * 4, 0, 1.0f, cudaBoundaryModeTrap);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 4), cudaErrorIllegalAddress);  // the context is poisoned
}

// H200 (surface_trap.txt, texture.txt surf.clamp.write 2 3): an x that is not a multiple of the
// access size is a misaligned access in every boundary mode.
TEST_F(Surfaces, MisalignedXIsCudaErrorMisalignedAddress) {
  Surface s;
  write_one<<<1, 1>>>(s.object, 2, 0, 1.0f, cudaBoundaryModeClamp);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
}

TEST_F(Surfaces, LayeredIntegers) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<int>();
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&a, &d, make_cudaExtent(8, 0, 2), cudaArrayLayered | cudaArraySurfaceLoadStore),
            cudaSuccess);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  ASSERT_EQ(cudaCreateSurfaceObject(&s, &r), cudaSuccess);
  DeviceArray<int> out(8);
  layered_round_trip<<<1, 8>>>(s, out.get());
  EXPECT_EQ(out.read(), (std::vector<int>{41, 42, 43, 44, 45, 46, 47, 48}));
  EXPECT_EQ(cudaDestroySurfaceObject(s), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST_F(Surfaces, CreationErrors) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t plain = nullptr;
  ASSERT_EQ(cudaMallocArray(&plain, &d, 4, 4), cudaSuccess);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = plain;
  cudaSurfaceObject_t s = 0;
  EXPECT_EQ(cudaCreateSurfaceObject(&s, &r), cudaSuccess);  // without cudaArraySurfaceLoadStore: taken (H200)
  EXPECT_EQ(cudaDestroySurfaceObject(s), cudaSuccess);
  r.res.array.array = nullptr;
  EXPECT_EQ(cudaCreateSurfaceObject(&s, &r), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaCreateSurfaceObject(nullptr, &r), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDestroySurfaceObject(12345), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeArray(plain), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::kernels_test
