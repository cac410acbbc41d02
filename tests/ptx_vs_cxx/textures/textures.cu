// Texture fetches and surface accesses: one thread per request, every shape nvcc has a tex/suld/
// sust form for. A request's coordinates come from arrays; the result's four registers are
// stored as they come back (float4, or uint4 for textures read as integers), so the PTX and C++
// paths can be compared bit for bit. The layered and cube forms take their layer from `layers`.
#include <cuda_runtime.h>

extern "C" __global__ void xc_tex(cudaTextureObject_t t, int shape, const float* x, const float* y, const float* z,
                                  const int* layer, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 r;
  switch (shape) {
    case 0: r = tex1D<float4>(t, x[i]); break;
    case 1: r = tex2D<float4>(t, x[i], y[i]); break;
    case 2: r = tex3D<float4>(t, x[i], y[i], z[i]); break;
    case 3: r = tex1DLayered<float4>(t, x[i], layer[i]); break;
    case 4: r = tex2DLayered<float4>(t, x[i], y[i], layer[i]); break;
    case 5: r = texCubemap<float4>(t, x[i], y[i], z[i]); break;
    case 6: r = texCubemapLayered<float4>(t, x[i], y[i], z[i], layer[i]); break;
    case 7: r = tex1Dfetch<float4>(t, layer[i]); break;
    case 8: r = tex2DLod<float4>(t, x[i], y[i], z[i]); break;
    default: r = tex2DGrad<float4>(t, x[i], y[i], make_float2(z[i], 0.5f), make_float2(0.25f, z[i])); break;
  }
  out[i] = r;
}

// Integer reads (cudaReadModeElementType of an integer format): the u32 and s32 result forms.
extern "C" __global__ void xc_tex_int(cudaTextureObject_t t, int shape, const float* x, const float* y,
                                      const int* index, uint4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (shape == 0) {
    out[i] = tex2D<uint4>(t, x[i], y[i]);
  } else if (shape == 1) {
    int4 s = tex2D<int4>(t, x[i], y[i]);
    out[i] = make_uint4(s.x, s.y, s.z, s.w);
  } else {
    out[i] = tex1Dfetch<uint4>(t, index[i]);
  }
}

// Surface traffic: each thread reads element (x, y) of `src` with boundary mode `mode` and writes
// it, plus one, to `dst` at (x, y) with the same mode; 2-D float surfaces.
extern "C" __global__ void xc_surf2d(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, const int* x, const int* y,
                                     int mode, float* seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const cudaSurfaceBoundaryMode m = static_cast<cudaSurfaceBoundaryMode>(mode);
  float v = mode == 0 ? surf2Dread<float>(src, x[i] * 4, y[i], cudaBoundaryModeZero)
                      : surf2Dread<float>(src, x[i] * 4, y[i], cudaBoundaryModeClamp);
  seen[i] = v;
  if (m == cudaBoundaryModeZero) surf2Dwrite(v + 1.0f, dst, x[i] * 4, y[i], cudaBoundaryModeZero);
  else surf2Dwrite(v + 1.0f, dst, x[i] * 4, y[i], cudaBoundaryModeClamp);
}

// Vector widths and the other shapes: uchar4 (v4.b8) on 2-D, ushort4 (v4.b16) on 2-D layered,
// float4 (v4.b32) on 3-D, short (b16) on 1-D layered, char (b8) on 1-D, 64-bit integers (b64) on 2-D.
extern "C" __global__ void xc_surf_shapes(cudaSurfaceObject_t s8x4, cudaSurfaceObject_t s16x4,
                                          cudaSurfaceObject_t f32x4, cudaSurfaceObject_t s16,
                                          cudaSurfaceObject_t s8, cudaSurfaceObject_t f64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 a = surf2Dread<uchar4>(s8x4, i * 4, 1);
  surf2Dwrite(make_uchar4(a.w, a.z + 1, a.y, a.x), s8x4, i * 4, 0);
  ushort4 b = surf2DLayeredread<ushort4>(s16x4, i * 8, 0, 1);
  surf2DLayeredwrite(make_ushort4(b.y, b.x, b.w + 3, b.z), s16x4, i * 8, 1, 0);
  float4 c = surf3Dread<float4>(f32x4, i * 16, 1, 1);
  surf3Dwrite(make_float4(c.w, c.z, c.y * 2.0f, c.x), f32x4, i * 16, 0, 1);
  short d = surf1DLayeredread<short>(s16, i * 2, 1);
  surf1DLayeredwrite(static_cast<short>(d - 7), s16, i * 2, 0);
  char e = surf1Dread<char>(s8, i + n);
  surf1Dwrite(static_cast<char>(e ^ 0x55), s8, i);
  unsigned long long f = surf2Dread<unsigned long long>(f64, i * 8, 1);
  surf2Dwrite(f * 3 + 1, f64, i * 8, 0);
}

// One access at (x, y) in trap mode: a read (write = 0) or a write (write = 1).
extern "C" __global__ void xc_surf_trap(cudaSurfaceObject_t s, int x, int y, int write, float* out) {
  if (write) surf2Dwrite(1.0f, s, x, y);
  else *out = surf2Dread<float>(s, x, y);
}

void xc_tex_cxx(cudaTextureObject_t t, int shape, const float* x, const float* y, const float* z, const int* layer,
                float4* out, int n) {
  xc_tex<<<(n + 127) / 128, 128>>>(t, shape, x, y, z, layer, out, n);
}
void xc_tex_int_cxx(cudaTextureObject_t t, int shape, const float* x, const float* y, const int* index, uint4* out,
                    int n) {
  xc_tex_int<<<(n + 127) / 128, 128>>>(t, shape, x, y, index, out, n);
}
void xc_surf2d_cxx(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, const int* x, const int* y, int mode, float* seen,
                   int n) {
  xc_surf2d<<<(n + 63) / 64, 64>>>(src, dst, x, y, mode, seen, n);
}
void xc_surf_shapes_cxx(cudaSurfaceObject_t a, cudaSurfaceObject_t b, cudaSurfaceObject_t c, cudaSurfaceObject_t d,
                        cudaSurfaceObject_t e, cudaSurfaceObject_t f, int n) {
  xc_surf_shapes<<<1, n>>>(a, b, c, d, e, f, n);
}
void xc_surf_trap_cxx(cudaSurfaceObject_t s, int x, int y, int write, float* out) { xc_surf_trap<<<1, 1>>>(s, x, y, write, out); }
