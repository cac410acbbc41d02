// Surfaces through the PTX path against the C++ path (boundary modes, vector widths, shapes), and
// the errors: an access out of range with .trap and a misaligned x end the grid with the codes
// the H200 gave (tests/data/h200/texture/out/surface_trap.txt: 700, sticky; 716), and a handle
// that names no object is cudaErrorIllegalAddress as in the C++ path.
#include "texture_gate.h"

namespace {

using namespace texture_gate;

cudaArray_t surface_array(cudaChannelFormatDesc d, cudaExtent e, unsigned flags, const void* texels, size_t bytes) {
  cudaArray_t a = nullptr;
  EXPECT_EQ(cudaMalloc3DArray(&a, &d, e, flags | cudaArraySurfaceLoadStore), cudaSuccess);
  const size_t elem = (d.x + d.y + d.z + d.w) / 8;
  const size_t h = e.height ? e.height : 1, slices = e.depth ? e.depth : 1;
  EXPECT_EQ(bytes, e.width * elem * h * slices);
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(texels), e.width * elem, e.width, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(e.width, h, slices);
  p.kind = cudaMemcpyHostToDevice;
  EXPECT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  return a;
}

std::vector<unsigned char> contents(cudaArray_t a, cudaExtent e, size_t elem) {
  const size_t h = e.height ? e.height : 1, slices = e.depth ? e.depth : 1;
  std::vector<unsigned char> out(e.width * elem * h * slices);
  cudaMemcpy3DParms p{};
  p.srcArray = a;
  p.dstPtr = make_cudaPitchedPtr(out.data(), e.width * elem, e.width, h);
  p.extent = make_cudaExtent(e.width, h, slices);
  p.kind = cudaMemcpyDeviceToHost;
  EXPECT_EQ(cudaMemcpy3D(&p), cudaSuccess);
  return out;
}

cudaSurfaceObject_t surface(cudaArray_t a) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  EXPECT_EQ(cudaCreateSurfaceObject(&s, &r), cudaSuccess);
  return s;
}

std::vector<unsigned char> pattern(size_t bytes, unsigned seed) {
  std::vector<unsigned char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<unsigned char>((i * 131 + seed * 17) ^ (i >> 3));
  return v;
}

using TexturesPtxVsCxxSurfaces = TexturesPtxVsCxx;

// Reads and writes of a 2-D float surface in zero and clamp modes, inside and outside.
TEST_F(TexturesPtxVsCxxSurfaces, BoundaryModesZeroAndClamp) {
  const int w = 6, h = 4;
  const cudaExtent e = make_cudaExtent(w, h, 0);
  std::vector<float> texels(w * h);
  for (int i = 0; i < w * h; ++i) texels[i] = static_cast<float>(i) * 1.5f - 4.0f;
  std::vector<int> xs, ys;
  for (int y = -2; y <= h + 1; ++y)
    for (int x = -3; x <= w + 2; ++x) xs.push_back(x), ys.push_back(y);
  const int n = static_cast<int>(xs.size());
  Buffer<int> x(xs), y(ys);
  for (int mode : {0, 1}) {  // cudaBoundaryModeZero, cudaBoundaryModeClamp
    std::vector<unsigned char> results[2], seen_by[2];
    for (int path = 0; path < 2; ++path) {
      cudaArray_t src = surface_array(cudaCreateChannelDesc<float>(), e, 0, texels.data(), texels.size() * 4);
      cudaArray_t dst = surface_array(cudaCreateChannelDesc<float>(), e, 0, texels.data(), texels.size() * 4);
      cudaSurfaceObject_t s = surface(src), d = surface(dst);
      Buffer<float> seen(n);
      if (path == 0) {
        xc_surf2d_cxx(s, d, x.ptr, y.ptr, mode, seen.ptr, n);
      } else {
        int m = mode, count = n;
        void* args[] = {&s, &d, &x.ptr, &y.ptr, &m, &seen.ptr, &count};
        ASSERT_EQ(launch("xc_surf2d", (n + 63) / 64, 64, args), CUDA_SUCCESS);
      }
      std::vector<float> v = seen.get();
      seen_by[path].assign(reinterpret_cast<unsigned char*>(v.data()), reinterpret_cast<unsigned char*>(v.data() + n));
      results[path] = contents(dst, e, 4);
      if (mode == 0) {
        EXPECT_EQ(v[0], 0.0f);  // (-3, -2) reads zero
      } else {
        EXPECT_EQ(v[0], texels[0]);  // and clamps to (0, 0)
      }
      EXPECT_EQ(cudaDestroySurfaceObject(s), cudaSuccess);
      EXPECT_EQ(cudaDestroySurfaceObject(d), cudaSuccess);
      EXPECT_EQ(cudaFreeArray(src), cudaSuccess);
      EXPECT_EQ(cudaFreeArray(dst), cudaSuccess);
    }
    EXPECT_EQ(seen_by[0], seen_by[1]) << "mode " << mode;
    EXPECT_EQ(results[0], results[1]) << "mode " << mode;
  }
}

// v4.b8, v4.b16, v4.b32, b16, b8 and b64 accesses on 2-D, 2-D layered, 3-D, 1-D layered and 1-D.
TEST_F(TexturesPtxVsCxxSurfaces, VectorWidthsAndShapes) {
  const int n = 8;
  struct Spec {
    cudaChannelFormatDesc d;
    cudaExtent e;
    unsigned flags;
    size_t elem;
  };
  const Spec specs[6] = {
      {cudaCreateChannelDesc<uchar4>(), make_cudaExtent(n, 2, 0), 0, 4},
      {cudaCreateChannelDesc<ushort4>(), make_cudaExtent(n, 2, 2), cudaArrayLayered, 8},
      {cudaCreateChannelDesc<float4>(), make_cudaExtent(n, 2, 2), 0, 16},
      {cudaCreateChannelDesc<short>(), make_cudaExtent(n, 0, 2), cudaArrayLayered, 2},
      {cudaCreateChannelDesc<char>(), make_cudaExtent(2 * n, 0, 0), 0, 1},
      {cudaCreateChannelDesc<uint2>(), make_cudaExtent(n, 2, 0), 0, 8},
  };
  std::vector<unsigned char> after[2][6];
  for (int path = 0; path < 2; ++path) {
    cudaArray_t arrays[6];
    cudaSurfaceObject_t s[6];
    for (int k = 0; k < 6; ++k) {
      const Spec& sp = specs[k];
      const size_t bytes = sp.e.width * sp.elem * (sp.e.height ? sp.e.height : 1) * (sp.e.depth ? sp.e.depth : 1);
      const std::vector<unsigned char> init = pattern(bytes, k);
      arrays[k] = surface_array(sp.d, sp.e, sp.flags, init.data(), bytes);
      s[k] = surface(arrays[k]);
    }
    if (path == 0) {
      xc_surf_shapes_cxx(s[0], s[1], s[2], s[3], s[4], s[5], n);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    } else {
      int count = n;
      void* args[] = {&s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &count};
      ASSERT_EQ(launch("xc_surf_shapes", 1, n, args), CUDA_SUCCESS);
    }
    for (int k = 0; k < 6; ++k) {
      after[path][k] = contents(arrays[k], specs[k].e, specs[k].elem);
      EXPECT_EQ(cudaDestroySurfaceObject(s[k]), cudaSuccess);
      EXPECT_EQ(cudaFreeArray(arrays[k]), cudaSuccess);
    }
  }
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(after[0][k], after[1][k]) << "surface " << k;
    EXPECT_NE(after[1][k], pattern(after[1][k].size(), k)) << "surface " << k << " was written";
  }
}

struct TrapCase {
  int x, y, write;
  CUresult expected;
};

class TexturesPtxErrors : public TexturesPtxVsCxx {
 protected:
  // One trap-mode access on a 4x2 float surface through the PTX path; the result of the launch's
  // synchronisation, and whether the context stays poisoned.
  CUresult trap(int x, int y, int write) {
    const float texels[8] = {};
    cudaArray_t a = surface_array(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 2, 0), 0, texels, sizeof texels);
    cudaSurfaceObject_t s = surface(a);
    Buffer<float> out(1);
    void* args[] = {&s, &x, &y, &write, &out.ptr};
    return launch("xc_surf_trap", 1, 1, args);
  }
};

// The H200: a write at x = 16 (one past a 4-wide float row) in trap mode is 700, and sticky.
TEST_F(TexturesPtxErrors, TrapOutOfRangeIsIllegalAddressAndSticky) {
  EXPECT_EQ(trap(16, 0, 1), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAlloc(&p, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
}

TEST_F(TexturesPtxErrors, TrapReadBelowZeroIsIllegalAddress) { EXPECT_EQ(trap(0, -1, 0), CUDA_ERROR_ILLEGAL_ADDRESS); }

// The H200: x = 2 for a 4-byte access is 716, in every boundary mode.
TEST_F(TexturesPtxErrors, MisalignedXIsMisalignedAddress) { EXPECT_EQ(trap(2, 0, 1), CUDA_ERROR_MISALIGNED_ADDRESS); }

TEST_F(TexturesPtxErrors, InsideTheSurfaceSucceeds) { EXPECT_EQ(trap(12, 1, 1), CUDA_SUCCESS); }

// A handle that names no texture header is cudaErrorIllegalAddress, as in the C++ path: 0, and a
// surface object used as a texture.
class TexturesPtxBadHandles : public TexturesPtxVsCxx {
 protected:
  CUresult fetch(cudaTextureObject_t t) {
    Buffer<float> x(std::vector<float>{0.5f});
    Buffer<float4> out(1);
    int shape = 1, n = 1;
    void* args[] = {&t, &shape, &x.ptr, &x.ptr, &x.ptr, &x.ptr, &out.ptr, &n};
    return launch("xc_tex", 1, 1, args);
  }
};

TEST_F(TexturesPtxBadHandles, ZeroIsIllegalAddress) { EXPECT_EQ(fetch(0), CUDA_ERROR_ILLEGAL_ADDRESS); }

TEST_F(TexturesPtxBadHandles, SurfaceAsTextureIsIllegalAddress) {
  const float texels[8] = {};
  cudaArray_t a = surface_array(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 2, 0), 0, texels, sizeof texels);
  EXPECT_EQ(fetch(surface(a)), CUDA_ERROR_ILLEGAL_ADDRESS);
}

}  // namespace
