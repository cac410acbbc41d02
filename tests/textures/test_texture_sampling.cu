// Texture objects in C++ kernels: the fetch functions (texture_indirect_functions.h) through the
// texture unit (device_sim texture_unit.cpp) - point and linear filtering, the 1.8 fixed-point
// weights, every address mode, normalised coordinates, both read modes, linear memory, layered
// and cubemap arrays - and the object calls' descriptor round trips and errors. Expected values
// are worked out by hand here; test_texture_h200.cu compares with the H200's own answers.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "alignment_checks.h"
#include "kernel_test.h"

namespace minicuda::kernels_test {
namespace {

using TextureSampling = FreshProcess;

__global__ void sample_1d(cudaTextureObject_t t, const float* xs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, xs[i]);
}
__global__ void sample_2d4(cudaTextureObject_t t, const float* xs, const float* ys, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, xs[i], ys[i]);
}
__global__ void sample_2d_uchar4(cudaTextureObject_t t, float x, float y, uchar4* out) { *out = tex2D<uchar4>(t, x, y); }
__global__ void fetch_1d(cudaTextureObject_t t, const int* is, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, is[i]);
}
__global__ void sample_layered(cudaTextureObject_t t, float x, float y, int layer, float* out) {
  *out = tex2DLayered<float>(t, x, y, layer);
}
__global__ void sample_cube(cudaTextureObject_t t, float x, float y, float z, float* out) {
  *out = texCubemap<float>(t, x, y, z);
}
__global__ void sample_3d(cudaTextureObject_t t, float x, float y, float z, float* out) { *out = tex3D<float>(t, x, y, z); }

// Every thread fetches, then thread 31 reads an int one byte past an aligned address.
__global__ void fetch_then_misaligned_load(cudaTextureObject_t t, const char* bytes, float* out) {
  out[threadIdx.x] = tex1D<float>(t, threadIdx.x % 8 + 0.5f);
  if (threadIdx.x == 31) out[0] = static_cast<float>(*reinterpret_cast<const int*>(bytes + 1));
}

const float kTexels[8] = {1.0f, 3.0f, -2.0f, 10.0f, 0.5f, 100.0f, -50.0f, 7.25f};

cudaArray_t array_1d() {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  EXPECT_EQ(cudaMallocArray(&a, &d, 8, 0), cudaSuccess);
  EXPECT_EQ(cudaMemcpy2DToArray(a, 0, 0, kTexels, 32, 32, 1, cudaMemcpyHostToDevice), cudaSuccess);
  return a;
}

cudaTextureObject_t object(cudaArray_t a, cudaTextureAddressMode mode, cudaTextureFilterMode filter, int normalized,
                           cudaTextureReadMode read = cudaReadModeElementType) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = mode;
  t.filterMode = filter;
  t.normalizedCoords = normalized;
  t.readMode = read;
  t.borderColor[0] = 0.25f;
  cudaTextureObject_t o = 0;
  EXPECT_EQ(cudaCreateTextureObject(&o, &r, &t, nullptr), cudaSuccess);
  return o;
}

std::vector<float> run_1d(cudaTextureObject_t t, const std::vector<float>& xs) {
  DeviceArray<float> dx(xs), out(xs.size());
  sample_1d<<<1, 64>>>(t, dx.get(), out.get(), static_cast<int>(xs.size()));
  return out.read();
}

TEST_F(TextureSampling, PointFilteringWithEveryAddressMode) {
  cudaArray_t a = array_1d();
  // Unnormalised clamp: the texel under x, the edge texels outside.
  cudaTextureObject_t clamp = object(a, cudaAddressModeClamp, cudaFilterModePoint, 0);
  EXPECT_EQ(run_1d(clamp, {-1.0f, 0.0f, 3.9f, 4.0f, 100.0f}), (std::vector<float>{1, 1, 10, 0.5f, 7.25f}));
  // Normalised: u * 8 texels. Just past the right edge and just before the left one.
  const std::vector<float> us = {0.0625f, 1.0625f, -0.0625f, 2.3f};
  EXPECT_EQ(run_1d(object(a, cudaAddressModeWrap, cudaFilterModePoint, 1), us),
            (std::vector<float>{1, 1, 7.25f, -2.0f}));  // 2.3 -> 18.4 -> 18 mod 8 = 2
  EXPECT_EQ(run_1d(object(a, cudaAddressModeMirror, cudaFilterModePoint, 1), us),
            (std::vector<float>{1, 7.25f, 1, -2.0f}));  // 18 in [16, 24): forwards again, texel 2
  EXPECT_EQ(run_1d(object(a, cudaAddressModeBorder, cudaFilterModePoint, 1), us),
            (std::vector<float>{1, 0.25f, 0.25f, 0.25f}));
  EXPECT_EQ(run_1d(object(a, cudaAddressModeClamp, cudaFilterModePoint, 1), us), (std::vector<float>{1, 7.25f, 1, 7.25f}));
  EXPECT_EQ(cudaDestroyTextureObject(clamp), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST_F(TextureSampling, LinearWeightsHaveEightFractionalBits) {
  cudaArray_t a = array_1d();
  cudaTextureObject_t t = object(a, cudaAddressModeClamp, cudaFilterModeLinear, 0);
  const std::vector<float> got = run_1d(t, {1.0f, 1.5f, 0.5f + 1.0f / 1024, 0.5f + 3.0f / 1024, 0.25f, 8.0f});
  EXPECT_EQ(got[0], 2.0f);               // halfway between texels 0 and 1
  EXPECT_EQ(got[1], 3.0f);               // texel 1's centre
  EXPECT_EQ(got[2], 1.0f);               // a weight of 1/1024 rounds to 0
  EXPECT_EQ(got[3], 1.0f + 2.0f / 256);  // 3/1024 rounds to 1/256
  EXPECT_EQ(got[4], 1.0f);               // left of the first centre: clamped to texel 0 twice
  EXPECT_EQ(got[5], 7.25f);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

// The texture unit skips the weighted sum when a fetch's texels are equal (texture_unit.cpp): the
// weights sum to exactly one, so the sum is their value. The plain sum starts from +0, so equal
// zeros of either sign give +0.
TEST_F(TextureSampling, LinearFilteringOfEqualTexelsGivesTheirValueAndZerosArePositive) {
  const float texels[8] = {-0.0f, -0.0f, 5.0f, 5.0f, 5.0f, 0.1f, 0.1f, 1e30f};
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &d, 8, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, texels, 32, 32, 1, cudaMemcpyHostToDevice), cudaSuccess);
  cudaTextureObject_t t = object(a, cudaAddressModeClamp, cudaFilterModeLinear, 0);
  // Between the centres of texels 0 and 1, 2 and 3, 3 and 4, 5 and 6; then 6 and 7, which differ.
  const std::vector<float> got = run_1d(t, {1.3f, 3.0f, 4.2f, 6.1f, 7.0f});
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_FALSE(std::signbit(got[0]));
  EXPECT_EQ(got[1], 5.0f);
  EXPECT_EQ(got[2], 5.0f);
  EXPECT_EQ(got[3], 0.1f);
  EXPECT_EQ(got[4], static_cast<float>(0.5 * 0.1f + 0.5 * 1e30f));
  EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST_F(TextureSampling, NormalisedFloatAndElementTypeReads) {
  const uchar4 texels[2] = {make_uchar4(0, 255, 128, 64), make_uchar4(10, 20, 30, 40)};
  cudaChannelFormatDesc d = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a = nullptr;
  ASSERT_EQ(cudaMallocArray(&a, &d, 2, 1), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, texels, 8, 8, 1, cudaMemcpyHostToDevice), cudaSuccess);
  DeviceArray<float> xs(std::vector<float>{0.5f, 1.0f}), ys(std::vector<float>{0.5f, 0.5f});
  DeviceArray<float4> out(2);
  sample_2d4<<<1, 2>>>(object(a, cudaAddressModeClamp, cudaFilterModeLinear, 0, cudaReadModeNormalizedFloat), xs.get(),
                       ys.get(), out.get(), 2);
  std::vector<float4> v = out.read();
  EXPECT_EQ(v[0].x, 0.0f);
  EXPECT_EQ(v[0].y, 1.0f);
  EXPECT_EQ(v[0].z, 128.0f / 255);
  EXPECT_EQ(v[0].w, 64.0f / 255);
  EXPECT_EQ(v[1].x, 0.5f * (0.0f / 255) + 0.5f * (10.0f / 255));  // linear between the two
  DeviceArray<uchar4> raw(1);
  sample_2d_uchar4<<<1, 1>>>(object(a, cudaAddressModeClamp, cudaFilterModePoint, 0), 1.5f, 0.5f, raw.get());
  uchar4 r = raw.read()[0];
  EXPECT_EQ(r.x, 10);
  EXPECT_EQ(r.w, 40);
  // Linear filtering of integers read as integers is refused (H200: cudaErrorInvalidFilterSetting).
  cudaResourceDesc rd;
  std::memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t o = 0;
  EXPECT_EQ(cudaCreateTextureObject(&o, &rd, &td, nullptr), cudaErrorInvalidFilterSetting);
  rd.res.array.array = nullptr;  // H200: cudaErrorInvalidResourceHandle
  td.filterMode = cudaFilterModePoint;
  EXPECT_EQ(cudaCreateTextureObject(&o, &rd, &td, nullptr), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaDestroyTextureObject(0), cudaSuccess);  // H200: success
  EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
}

TEST_F(TextureSampling, LinearMemoryFetchAndDescriptors) {
  DeviceArray<float> buffer(std::vector<float>(kTexels, kTexels + 8));
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = buffer.get();
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = buffer.bytes();
  cudaTextureDesc t;
  std::memset(&t, 0, sizeof t);
  t.readMode = cudaReadModeElementType;
  cudaTextureObject_t o = 0;
  ASSERT_EQ(cudaCreateTextureObject(&o, &r, &t, nullptr), cudaSuccess);
  DeviceArray<int> is(std::vector<int>{-1, 0, 3, 7, 8, 1000});
  DeviceArray<float> out(6);
  fetch_1d<<<1, 32>>>(o, is.get(), out.get(), 6);
  EXPECT_EQ(out.read(), (std::vector<float>{0, 1, 10, 7.25f, 0, 0}));  // outside the buffer: 0

  cudaResourceDesc back;
  ASSERT_EQ(cudaGetTextureObjectResourceDesc(&back, o), cudaSuccess);
  EXPECT_EQ(back.resType, cudaResourceTypeLinear);
  EXPECT_EQ(back.res.linear.devPtr, buffer.get());
  EXPECT_EQ(back.res.linear.sizeInBytes, buffer.bytes());
  EXPECT_EQ(back.res.linear.desc.x, 32);
  cudaTextureDesc tback;
  ASSERT_EQ(cudaGetTextureObjectTextureDesc(&tback, o), cudaSuccess);
  EXPECT_EQ(tback.readMode, cudaReadModeElementType);
  EXPECT_EQ(tback.normalizedCoords, 0);
  EXPECT_EQ(cudaDestroyTextureObject(o), cudaSuccess);
  EXPECT_EQ(cudaDestroyTextureObject(o), cudaErrorInvalidValue);  // already destroyed

  // Misaligned linear memory is refused.
  r.res.linear.devPtr = buffer.get() + 1;
  r.res.linear.sizeInBytes = 16;
  EXPECT_EQ(cudaCreateTextureObject(&o, &r, &t, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaCreateTextureObject(nullptr, &r, &t, nullptr), cudaErrorInvalidValue);
}

TEST_F(TextureSampling, LayeredCubemapAnd3D) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  // Texel (x, y) of layer / face f holds f * 100 + y * 10 + x.
  std::vector<float> texels(4 * 4 * 6);
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) texels[(f * 4 + y) * 4 + x] = f * 100 + y * 10 + x;
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(texels.data(), 16, 4, 4);
  p.extent = make_cudaExtent(4, 4, 6);
  p.kind = cudaMemcpyHostToDevice;
  DeviceArray<float> out(1);

  cudaArray_t layered = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&layered, &d, make_cudaExtent(4, 4, 6), cudaArrayLayered), cudaSuccess);
  p.dstArray = layered;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  sample_layered<<<1, 1>>>(object(layered, cudaAddressModeClamp, cudaFilterModePoint, 0), 2.5f, 1.5f, 3, out.get());
  EXPECT_EQ(out.read()[0], 312.0f);

  cudaArray_t cube = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&cube, &d, make_cudaExtent(4, 4, 6), cudaArrayCubemap), cudaSuccess);
  p.dstArray = cube;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  cudaTextureObject_t c = object(cube, cudaAddressModeClamp, cudaFilterModePoint, 1);
  const struct {
    float x, y, z, expected;
  } cases[] = {{1, 0, 0, 22}, {-1, 0, 0, 122}, {0, 0, -1, 522}, {0.5f, 1, 0.25f, 223}, {0.1f, -1, 0.9f, 302}};
  for (const auto& k : cases) {
    sample_cube<<<1, 1>>>(c, k.x, k.y, k.z, out.get());
    EXPECT_EQ(out.read()[0], k.expected) << k.x << " " << k.y << " " << k.z;
  }

  cudaArray_t volume = nullptr;
  ASSERT_EQ(cudaMalloc3DArray(&volume, &d, make_cudaExtent(4, 4, 6), 0), cudaSuccess);
  p.dstArray = volume;
  ASSERT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  sample_3d<<<1, 1>>>(object(volume, cudaAddressModeClamp, cudaFilterModeLinear, 0), 1.0f, 2.5f, 2.0f, out.get());
  // Halfway between x 0 and 1, on row 2, halfway between planes 1 and 2.
  EXPECT_EQ(out.read()[0], 0.5f * (120.5f + 220.5f));
  EXPECT_EQ(cudaFreeArray(layered), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(cube), cudaSuccess);
  EXPECT_EQ(cudaFreeArray(volume), cudaSuccess);
}

// Fetches run with the kernel's alignment check left on when optimised: a misaligned load after
// them, in the same block, is still the GPU's error (716), not lost to a trap the fetches took.
TEST_F(TextureSampling, AMisalignedLoadAfterFetchesIsStillError716) {
  if (!minicuda::testing::kAlignmentChecks) GTEST_SKIP() << "no alignment checks in this build";
  cudaArray_t a = array_1d();
  cudaTextureObject_t t = object(a, cudaAddressModeClamp, cudaFilterModePoint, 0);
  DeviceArray<char> bytes(std::vector<char>(16, 1));
  DeviceArray<float> out(32);
  fetch_then_misaligned_load<<<1, 32>>>(t, bytes.get(), out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
}

}  // namespace
}  // namespace minicuda::kernels_test
