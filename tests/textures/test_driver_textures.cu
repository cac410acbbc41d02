// The driver's array, texture-object and surface-object calls (driver/user/src/array.cpp,
// texobj.cpp, copy2d.cpp's array sides), called directly as a Driver API program would.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "kernel_test.h"

namespace minicuda::kernels_test {
namespace {

using DriverTextures = FreshProcess;

TEST_F(DriverTextures, ArraysDescriptorsAndCopies) {
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the primary context, current
  CUDA_ARRAY3D_DESCRIPTOR d{};
  d.Width = 6;
  d.Height = 2;
  d.Depth = 3;
  d.Format = CU_AD_FORMAT_SIGNED_INT16;
  d.NumChannels = 2;
  CUarray a = nullptr;
  ASSERT_EQ(cuArray3DCreate(&a, &d), CUDA_SUCCESS);
  CUDA_ARRAY3D_DESCRIPTOR back{};
  ASSERT_EQ(cuArray3DGetDescriptor(&back, a), CUDA_SUCCESS);
  EXPECT_EQ(back.Width, 6u);
  EXPECT_EQ(back.Depth, 3u);
  EXPECT_EQ(back.Format, CU_AD_FORMAT_SIGNED_INT16);
  CUDA_ARRAY_DESCRIPTOR two{};
  EXPECT_EQ(cuArrayGetDescriptor(&two, a), CUDA_ERROR_INVALID_VALUE);  // a 3-D array

  std::vector<short> in(6 * 2 * 2 * 3), out(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<short>(i * 7 - 100);
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = in.data();
  c.srcPitch = 24;
  c.srcHeight = 2;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstArray = a;
  c.WidthInBytes = 24;
  c.Height = 2;
  c.Depth = 3;
  ASSERT_EQ(cuMemcpy3D(&c), CUDA_SUCCESS);
  CUDA_MEMCPY3D r{};
  r.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  r.srcArray = a;
  r.dstMemoryType = CU_MEMORYTYPE_HOST;
  r.dstHost = out.data();
  r.dstPitch = 24;
  r.dstHeight = 2;
  r.WidthInBytes = 24;
  r.Height = 2;
  r.Depth = 3;
  ASSERT_EQ(cuMemcpy3D(&r), CUDA_SUCCESS);
  EXPECT_EQ(in, out);
  r.WidthInBytes = 28;  // one element past the row
  EXPECT_EQ(cuMemcpy3D(&r), CUDA_ERROR_INVALID_VALUE);

  EXPECT_EQ(cuArrayDestroy(a), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(DriverTextures, BadDescriptors) {
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  CUarray a = nullptr;
  CUDA_ARRAY_DESCRIPTOR d{};
  d.Width = 4;
  d.Height = 4;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.NumChannels = 3;
  EXPECT_EQ(cuArrayCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
  d.NumChannels = 1;
  d.Format = static_cast<CUarray_format>(0x77);
  EXPECT_EQ(cuArrayCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayCreate(nullptr, &d), CUDA_ERROR_INVALID_VALUE);
  CUDA_RESOURCE_DESC res;
  std::memset(&res, 0, sizeof res);
  res.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
  CUDA_TEXTURE_DESC tex;
  std::memset(&tex, 0, sizeof tex);
  CUtexObject t = 0;
  EXPECT_EQ(cuTexObjectCreate(&t, &res, &tex, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  EXPECT_EQ(cuTexObjectCreate(&t, &res, &tex, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuTexObjectDestroy(0), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectDestroy(0x1234), CUDA_ERROR_INVALID_VALUE);
  CUsurfObject s = 0;
  res.resType = CU_RESOURCE_TYPE_LINEAR;
  EXPECT_EQ(cuSurfObjectCreate(&s, &res), CUDA_ERROR_INVALID_VALUE);
}

__global__ void read_texel(cudaTextureObject_t t, int* out) { *out = tex2D<int>(t, 1.5f, 0.5f); }

TEST_F(DriverTextures, ObjectOverPitchedMemoryReadsAsInteger) {
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  CUdeviceptr p = 0;
  size_t pitch = 0;
  ASSERT_EQ(cuMemAllocPitch(&p, &pitch, 16, 2, 4), CUDA_SUCCESS);
  const int row[4] = {5, -6, 7, 8};
  ASSERT_EQ(cuMemcpyHtoD(p, row, sizeof row), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC res;
  std::memset(&res, 0, sizeof res);
  res.resType = CU_RESOURCE_TYPE_PITCH2D;
  res.res.pitch2D.devPtr = p;
  res.res.pitch2D.format = CU_AD_FORMAT_SIGNED_INT32;
  res.res.pitch2D.numChannels = 1;
  res.res.pitch2D.width = 4;
  res.res.pitch2D.height = 2;
  res.res.pitch2D.pitchInBytes = pitch;
  CUDA_TEXTURE_DESC tex;
  std::memset(&tex, 0, sizeof tex);
  tex.flags = CU_TRSF_READ_AS_INTEGER;
  CUtexObject t = 0;
  ASSERT_EQ(cuTexObjectCreate(&t, &res, &tex, nullptr), CUDA_SUCCESS);
  CUDA_TEXTURE_DESC back;
  ASSERT_EQ(cuTexObjectGetTextureDesc(&back, t), CUDA_SUCCESS);
  EXPECT_EQ(back.flags, static_cast<unsigned>(CU_TRSF_READ_AS_INTEGER));
  DeviceArray<int> out(1);
  read_texel<<<1, 1>>>(t, out.get());
  EXPECT_EQ(out.read()[0], -6);
  EXPECT_EQ(cuTexObjectDestroy(t), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(p), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::kernels_test
