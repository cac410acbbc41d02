// CUDA arrays through the runtime (runtime/src/array.cpp over libcuda's array.cpp and copy2d.cpp):
// allocation, the descriptor queries, the copies in and out (2-D, 3-D, the deprecated 1-D forms)
// and the errors.
#include <cuda_runtime.h>

#include <numeric>
#include <vector>

#include "kernel_test.h"

namespace minicuda::kernels_test {
namespace {

using Arrays = FreshProcess;

TEST_F(Arrays, ChannelDescriptionsOfTheElementTypes) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  EXPECT_EQ(f.x, 32);
  EXPECT_EQ(f.y, 0);
  EXPECT_EQ(f.f, cudaChannelFormatKindFloat);
  cudaChannelFormatDesc u4 = cudaCreateChannelDesc<uchar4>();
  EXPECT_EQ(u4.x, 8);
  EXPECT_EQ(u4.w, 8);
  EXPECT_EQ(u4.f, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc s2 = cudaCreateChannelDesc<short2>();
  EXPECT_EQ(s2.y, 16);
  EXPECT_EQ(s2.z, 0);
  EXPECT_EQ(s2.f, cudaChannelFormatKindSigned);
  cudaChannelFormatDesc none = cudaCreateChannelDesc<double>();
  EXPECT_EQ(none.x, 0);
  EXPECT_EQ(none.f, cudaChannelFormatKindNone);
}

TEST_F(Arrays, TwoDimensionalRoundTripAndInfo) {
  constexpr size_t W = 37, H = 5;
  std::vector<float> in(W * H), out(W * H, -1.0f);
  std::iota(in.begin(), in.end(), 1.0f);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &desc, W, H), cudaSuccess);
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, in.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DFromArray(out.data(), W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(in, out);

  cudaChannelFormatDesc q{};
  cudaExtent e{};
  unsigned flags = 99;
  ASSERT_EQ(cudaArrayGetInfo(&q, &e, &flags, a), cudaSuccess);
  EXPECT_EQ(q.x, 32);
  EXPECT_EQ(q.f, cudaChannelFormatKindFloat);
  EXPECT_EQ(e.width, W);
  EXPECT_EQ(e.height, H);
  EXPECT_EQ(e.depth, 0u);
  EXPECT_EQ(flags, 0u);

  // A sub-rectangle: 3 columns (12 bytes) from column 2 of rows 1..2.
  float part[6] = {};
  ASSERT_EQ(cudaMemcpy2DFromArray(part, 12, a, 8, 1, 12, 2, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(part[0], in[W + 2]);
  EXPECT_EQ(part[5], in[2 * W + 4]);
  // Outside the array: refused.
  EXPECT_EQ(cudaMemcpy2DFromArray(part, 12, a, W * 4 - 8, 0, 12, 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, H - 1, in.data(), W * 4, W * 4, 2, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST_F(Arrays, DeprecatedOneDimensionalCopies) {
  constexpr size_t W = 16, H = 3;
  std::vector<int> in(W * H), out(W * H, 0);
  std::iota(in.begin(), in.end(), 100);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &desc, W, H), cudaSuccess);
  ASSERT_EQ(cudaMemcpyToArray(a, 0, 0, in.data(), in.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpyFromArray(out.data(), a, 0, 0, out.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(in, out);
  int two[2] = {};
  ASSERT_EQ(cudaMemcpyFromArray(two, a, 4 * 3, 2, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(two[0], in[2 * W + 3]);
  EXPECT_EQ(two[1], in[2 * W + 4]);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST_F(Arrays, ThreeDimensionalLayeredAndCubemapCopies) {
  constexpr size_t W = 4, H = 3, D = 6;
  std::vector<float> in(W * H * D), out(W * H * D, 0);
  std::iota(in.begin(), in.end(), 0.5f);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  for (unsigned flags : {0u, unsigned{cudaArrayLayered}}) {
    cudaArray_t a = nullptr;
    ASSERT_EQ(cudaMalloc3DArray(&a, &desc, make_cudaExtent(W, H, D), flags), cudaSuccess);
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(in.data(), W * 4, W, H);
    p.dstArray = a;
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyHostToDevice;
    ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
    cudaMemcpy3DParms r{};
    r.srcArray = a;
    r.dstPtr = make_cudaPitchedPtr(out.data(), W * 4, W, H);
    r.extent = make_cudaExtent(W, H, D);
    r.kind = cudaMemcpyDeviceToHost;
    ASSERT_EQ(cudaMemcpy3D(&r), cudaSuccess);
    EXPECT_EQ(in, out);
    cudaExtent e{};
    unsigned got = 99;
    ASSERT_EQ(cudaArrayGetInfo(nullptr, &e, &got, a), cudaSuccess);
    EXPECT_EQ(e.depth, D);
    EXPECT_EQ(got, flags);
    // One element too deep: refused.
    r.extent = make_cudaExtent(W, H, D + 1);
    EXPECT_EQ(cudaMemcpy3D(&r), cudaErrorInvalidValue);
    EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  }
  cudaArray_t cube = nullptr;
  EXPECT_EQ(cudaMalloc3DArray(&cube, &desc, make_cudaExtent(4, 4, 6), cudaArrayCubemap), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(cube), cudaSuccess);
}

TEST_F(Arrays, BadArguments) {
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  EXPECT_EQ(cudaMallocArray(&a, nullptr, 4, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocArray(nullptr, &desc, 4, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &desc, make_cudaExtent(4, 3, 6), cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMalloc3DArray(&a, &desc, make_cudaExtent(4, 4, 5), cudaArrayCubemap), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeArray(nullptr), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::kernels_test
