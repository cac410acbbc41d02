// The differential gate of the PTX path's texture and surface instructions: textures.cu runs as
// C++ (translated by cu2cxx, compiled in) and as nvcc's PTX of the same file (textures.ptx, loaded
// with cuModuleLoadData, lowered to TEX/SULD/SUST by libcuda's JIT, run by the SIMT executor),
// over the same objects and coordinates; the results must be equal bit for bit. The grid covers
// every shape nvcc has a form for, every address mode, both filters, normalised and unnormalised
// coordinates, both read modes, linear memory (tex1Dfetch), the surface boundary modes and
// vector widths, and the errors (trap out of range, misaligned x, a handle that is no object).
// The C++ path is the one test_texture_h200.cu holds to the H200's recording, and
// PtxMatchesTheH200Recording checks a sample of that recording through the PTX path directly.
#include "texture_gate.h"

#include <cmath>

namespace {

using namespace texture_gate;

// Texel values with fractions and signs, distinct per channel and texel.
std::vector<float4> float_texels(size_t n) {
  std::vector<float4> v(n);
  for (size_t i = 0; i < n; ++i) {
    const float b = static_cast<float>(i);
    v[i] = make_float4(b * 1.25f - 3.0f, 100.0f - b * 0.75f, std::sin(b) * 8.0f, 0.5f + b / 7.0f);
  }
  return v;
}

// An array of `shape` (the kernel's numbering, 0..6) with float4 texels: its extent and flags.
cudaArray_t float_array(int shape) {
  cudaExtent e{};
  unsigned flags = 0;
  switch (shape) {
    case 0: e = {8, 0, 0}; break;
    case 1: e = {7, 5, 0}; break;
    case 2: e = {4, 3, 5}; break;
    case 3: e = {8, 0, 3}; flags = cudaArrayLayered; break;
    case 4: e = {6, 5, 3}; flags = cudaArrayLayered; break;
    case 5: e = {4, 4, 6}; flags = cudaArrayCubemap; break;
    default: e = {4, 4, 12}; flags = cudaArrayCubemap | cudaArrayLayered; break;
  }
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float4>();
  cudaArray_t a = nullptr;
  EXPECT_EQ(cudaMalloc3DArray(&a, &d, e, flags), cudaSuccess);
  const size_t h = e.height ? e.height : 1, slices = e.depth ? e.depth : 1;
  std::vector<float4> texels = float_texels(e.width * h * slices);
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(texels.data(), e.width * sizeof(float4), e.width, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(e.width, h, slices);
  p.kind = cudaMemcpyHostToDevice;
  EXPECT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  return a;
}

cudaTextureObject_t texture(cudaArray_t a, cudaTextureAddressMode mode, cudaTextureFilterMode filter, int normalized,
                            cudaTextureReadMode read = cudaReadModeElementType) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc t{};
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = mode;
  t.filterMode = filter;
  t.normalizedCoords = normalized;
  t.readMode = read;
  t.borderColor[0] = 0.25f;
  t.borderColor[1] = -2.0f;
  t.borderColor[2] = 7.5f;
  t.borderColor[3] = 1.0f;
  cudaTextureObject_t o = 0;
  EXPECT_EQ(cudaCreateTextureObject(&o, &r, &t, nullptr), cudaSuccess);
  return o;
}

// The coordinate grid: for unnormalised coordinates, from 2.3 texels before the start to 2.3 past
// the end of an 8-texel axis in steps that land on centres, edges and odd fractions; normalised,
// the same positions divided by 8. Layers run from -1 to past the last.
struct Grid {
  std::vector<float> x, y, z;
  std::vector<int> layer;
};

Grid grid(bool normalized) {
  Grid g;
  const float scale = normalized ? 1.0f / 8.0f : 1.0f;
  for (int i = 0; i < 160; ++i) {
    const float u = -2.3f + static_cast<float>(i) * 0.0797f;
    g.x.push_back(u * scale);
    g.y.push_back((7.1f - static_cast<float>(i % 37) * 0.253f) * scale);
    g.z.push_back((static_cast<float>(i % 23) * 0.31f - 1.1f) * scale);
    g.layer.push_back(i % 7 - 1);
  }
  return g;
}

// Cubemap directions: every face and the edges between them.
Grid directions() {
  Grid g;
  for (int i = 0; i < 160; ++i) {
    const float a = static_cast<float>(i) * 0.61f, b = static_cast<float>(i) * 0.37f;
    g.x.push_back(std::cos(a) * std::cos(b));
    g.y.push_back(std::sin(b) * (i % 5 == 0 ? 1.0f : 0.8f));
    g.z.push_back(std::sin(a) * std::cos(b));
    g.layer.push_back(i % 4 - 1);
  }
  return g;
}

TEST_F(TexturesPtxVsCxx, EveryShapeAddressModeFilterAndCoordinateMode) {
  int compared = 0;
  for (int shape = 0; shape <= 9; ++shape) {
    if (shape == 7) continue;  // tex1Dfetch: LinearMemory below
    cudaArray_t a = float_array(shape >= 8 ? 1 : shape);
    for (int normalized = 0; normalized <= 1; ++normalized) {
      const Grid g = shape == 5 || shape == 6 ? directions() : grid(normalized != 0);
      const int n = static_cast<int>(g.x.size());
      Buffer<float> x(g.x), y(g.y), z(g.z);
      Buffer<int> layer(g.layer);
      Buffer<float4> out(n);
      for (cudaTextureAddressMode mode : {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror,
                                          cudaAddressModeBorder})
        for (cudaTextureFilterMode filter : {cudaFilterModePoint, cudaFilterModeLinear}) {
          cudaTextureObject_t t = texture(a, mode, filter, normalized);
          xc_tex_cxx(t, shape, x.ptr, y.ptr, z.ptr, layer.ptr, out.ptr, n);
          const std::vector<float4> cxx = out.get();
          out.zero();
          int s = shape;
          void* args[] = {&t, &s, &x.ptr, &y.ptr, &z.ptr, &layer.ptr, &out.ptr, const_cast<int*>(&n)};
          ASSERT_EQ(launch("xc_tex", (n + 127) / 128, 128, args), CUDA_SUCCESS);
          EXPECT_TRUE(same_bytes(cxx, out.get())) << "shape " << shape << " mode " << mode << " filter " << filter
                                                   << " normalized " << normalized;
          compared += n;
          EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
        }
    }
    EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  }
  EXPECT_EQ(compared, 9 * 2 * 8 * 160);
}

// 8-bit and 16-bit texels read as normalised floats (filtered) and as integers (u32 and s32
// results), and the signed forms.
TEST_F(TexturesPtxVsCxx, ReadModesOfIntegerTexels) {
  const int w = 8, h = 5;
  std::vector<uchar4> bytes(w * h);
  for (int i = 0; i < w * h; ++i)
    bytes[i] = make_uchar4(static_cast<unsigned char>(i * 37), static_cast<unsigned char>(255 - i * 11),
                           static_cast<unsigned char>(i * i), static_cast<unsigned char>(128 + i));
  for (bool is_signed : {false, true}) {
    cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 8, 8, 8, is_signed ? cudaChannelFormatKindSigned
                                                                          : cudaChannelFormatKindUnsigned);
    cudaArray_t a = nullptr;
    ASSERT_EQ(cudaMallocArray(&a, &d, w, h), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2DToArray(a, 0, 0, bytes.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice), cudaSuccess);
    for (int normalized = 0; normalized <= 1; ++normalized) {
      const Grid g = grid(normalized != 0);
      const int n = static_cast<int>(g.x.size());
      Buffer<float> x(g.x), y(g.y);
      Buffer<int> index(g.layer);
      for (cudaTextureAddressMode mode : {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror,
                                          cudaAddressModeBorder}) {
        for (cudaTextureFilterMode filter : {cudaFilterModePoint, cudaFilterModeLinear}) {
          cudaTextureObject_t t = texture(a, mode, filter, normalized, cudaReadModeNormalizedFloat);
          Buffer<float4> out(n);
          xc_tex_cxx(t, 1, x.ptr, y.ptr, nullptr, nullptr, out.ptr, n);
          const std::vector<float4> cxx = out.get();
          out.zero();
          int shape = 1;
          float* none = nullptr;
          int* no_layer = nullptr;
          void* args[] = {&t, &shape, &x.ptr, &y.ptr, &none, &no_layer, &out.ptr, const_cast<int*>(&n)};
          ASSERT_EQ(launch("xc_tex", (n + 127) / 128, 128, args), CUDA_SUCCESS);
          EXPECT_TRUE(same_bytes(cxx, out.get())) << "normalised float, signed " << is_signed << " mode " << mode;
          EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
        }
        // Element type: point sampling only (linear filtering of integers is refused).
        cudaTextureObject_t t = texture(a, mode, cudaFilterModePoint, normalized);
        Buffer<uint4> out(n);
        int shape = is_signed ? 1 : 0;
        xc_tex_int_cxx(t, shape, x.ptr, y.ptr, index.ptr, out.ptr, n);
        const std::vector<uint4> cxx = out.get();
        out.zero();
        void* args[] = {&t, &shape, &x.ptr, &y.ptr, &index.ptr, &out.ptr, const_cast<int*>(&n)};
        ASSERT_EQ(launch("xc_tex_int", (n + 127) / 128, 128, args), CUDA_SUCCESS);
        EXPECT_TRUE(same_bytes(cxx, out.get())) << "element type, signed " << is_signed << " mode " << mode;
        EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
      }
    }
    EXPECT_EQ(cudaFreeArray(a), cudaSuccess);
  }
}

// tex1Dfetch on linear memory, float4 and uint4 elements, indices inside and outside.
TEST_F(TexturesPtxVsCxx, LinearMemoryFetch) {
  const int elements = 40;
  std::vector<float4> texels = float_texels(elements);
  Buffer<float4> memory(texels);
  std::vector<int> indices;
  for (int i = -5; i < elements + 5; ++i) indices.push_back(i);
  indices.push_back(1 << 30);
  const int n = static_cast<int>(indices.size());
  Buffer<int> index(indices);
  for (bool as_int : {false, true}) {
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = memory.ptr;
    r.res.linear.desc = as_int ? cudaCreateChannelDesc<uint4>() : cudaCreateChannelDesc<float4>();
    r.res.linear.sizeInBytes = elements * sizeof(float4);
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    ASSERT_EQ(cudaCreateTextureObject(&t, &r, &td, nullptr), cudaSuccess);
    float* none = nullptr;
    if (as_int) {
      Buffer<uint4> out(n);
      int shape = 2;
      xc_tex_int_cxx(t, shape, nullptr, nullptr, index.ptr, out.ptr, n);
      const std::vector<uint4> cxx = out.get();
      out.zero();
      void* args[] = {&t, &shape, &none, &none, &index.ptr, &out.ptr, const_cast<int*>(&n)};
      ASSERT_EQ(launch("xc_tex_int", 1, 128, args), CUDA_SUCCESS);
      EXPECT_TRUE(same_bytes(cxx, out.get()));
    } else {
      Buffer<float4> out(n);
      int shape = 7;
      xc_tex_cxx(t, shape, nullptr, nullptr, nullptr, index.ptr, out.ptr, n);
      const std::vector<float4> cxx = out.get();
      out.zero();
      void* args[] = {&t, &shape, &none, &none, &none, &index.ptr, &out.ptr, const_cast<int*>(&n)};
      ASSERT_EQ(launch("xc_tex", 1, 128, args), CUDA_SUCCESS);
      const std::vector<float4> ptx = out.get();
      EXPECT_TRUE(same_bytes(cxx, ptx));
      EXPECT_EQ(ptx[5].x, texels[0].x);  // index 0
      EXPECT_EQ(ptx[0].x, 0.0f);         // index -5 reads zero
    }
    EXPECT_EQ(cudaDestroyTextureObject(t), cudaSuccess);
  }
}

}  // namespace
