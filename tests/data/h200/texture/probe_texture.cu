// probe_texture.cu: records what the H200's texture unit returns, for minicuda's texture tests.
// Each line: <case> <coords...> = <value bits in hex> (<value as %.9g>).
// Usage: probe_texture          -> all sampling cases on stdout
//        probe_texture trap     -> a surface write out of bounds in trap mode; prints the error
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf("ERR %s = %d %s\n", #x, (int)e_, cudaGetErrorName(e_)); } } while (0)
#define RECORD(x) do { cudaError_t e_ = (x); printf("call %s = %d %s\n", #x, (int)e_, cudaGetErrorName(e_)); cudaGetLastError(); } while (0)

static unsigned bits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }

__global__ void k1d(cudaTextureObject_t t, const float* xs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float>(t, xs[i]);
}
__global__ void k2d(cudaTextureObject_t t, const float* xs, const float* ys, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float>(t, xs[i], ys[i]);
}
__global__ void k2d4(cudaTextureObject_t t, const float* xs, const float* ys, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float4>(t, xs[i], ys[i]);
}
__global__ void k2dlod(cudaTextureObject_t t, const float* xs, const float* ys, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float>(t, xs[i], ys[i], 0.0f) + 1000.0f * tex2DGrad<float>(t, xs[i], ys[i], make_float2(0.1f, 0), make_float2(0, 0.1f));
}
__global__ void k3d(cudaTextureObject_t t, const float* xs, const float* ys, const float* zs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float>(t, xs[i], ys[i], zs[i]);
}
__global__ void kfetch(cudaTextureObject_t t, const int* is, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<float>(t, is[i]);
}
__global__ void kfetchu8(cudaTextureObject_t t, const int* is, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<float>(t, is[i]);
}
__global__ void klay1(cudaTextureObject_t t, const float* xs, const int* ls, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1DLayered<float>(t, xs[i], ls[i]);
}
__global__ void klay2(cudaTextureObject_t t, const float* xs, const float* ys, const int* ls, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2DLayered<float>(t, xs[i], ys[i], ls[i]);
}
__global__ void kcube(cudaTextureObject_t t, const float* xs, const float* ys, const float* zs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = texCubemap<float>(t, xs[i], ys[i], zs[i]);
}
__global__ void ksurf(cudaSurfaceObject_t s, int x, int y, int mode, float v) {
  if (mode == 0) surf2Dwrite(v, s, x, y, cudaBoundaryModeTrap);
  if (mode == 1) surf2Dwrite(v, s, x, y, cudaBoundaryModeClamp);
  if (mode == 2) surf2Dwrite(v, s, x, y, cudaBoundaryModeZero);
}
__global__ void ksurfread(cudaSurfaceObject_t s, const int* xs, const int* ys, float* out, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float v = -7.0f;
  if (mode == 1) surf2Dread(&v, s, xs[i], ys[i], cudaBoundaryModeClamp);
  if (mode == 2) surf2Dread(&v, s, xs[i], ys[i], cudaBoundaryModeZero);
  out[i] = v;
}

template <typename T> static T* dev(const T* h, int n) {
  T* d; CHECK(cudaMalloc(&d, n * sizeof(T))); CHECK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice)); return d;
}

static const char* amode(int m) {
  switch (m) { case 0: return "wrap"; case 1: return "clamp"; case 2: return "mirror"; default: return "border"; }
}

static void print(const char* tag, const float* out, int n, const float* a, const float* b, const float* c) {
  for (int i = 0; i < n; ++i) {
    printf("%s", tag);
    if (a) printf(" %.9g", a[i]);
    if (b) printf(" %.9g", b[i]);
    if (c) printf(" %.9g", c[i]);
    printf(" = %08x (%.9g)\n", bits(out[i]), out[i]);
  }
}

static cudaTextureObject_t tex_of_array(cudaArray_t a, int addr, int filter, int norm, int readNorm) {
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaTextureDesc t; memset(&t, 0, sizeof t);
  for (int i = 0; i < 3; ++i) t.addressMode[i] = (cudaTextureAddressMode)addr;
  t.filterMode = (cudaTextureFilterMode)filter; t.normalizedCoords = norm;
  t.readMode = readNorm ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  t.borderColor[0] = 0.25f; t.borderColor[1] = 0.5f; t.borderColor[2] = 0.75f; t.borderColor[3] = 1.0f;
  cudaTextureObject_t o = 0; CHECK(cudaCreateTextureObject(&o, &r, &t, nullptr)); return o;
}

static int run_1d() {
  // 8 texels with uneven values so every weight shows.
  const int W = 8; float h[W] = {1.0f, 3.0f, -2.0f, 10.0f, 0.5f, 100.0f, -50.0f, 7.25f};
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a; CHECK(cudaMallocArray(&a, &cd, W, 0));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, h, W * 4, W * 4, 1, cudaMemcpyHostToDevice));
  cudaChannelFormatDesc q; cudaExtent e; unsigned fl;
  CHECK(cudaArrayGetInfo(&q, &e, &fl, a));
  printf("arrayinfo1d f=%d x=%d y=%d z=%d w=%d ext=%zu,%zu,%zu flags=%u\n", q.f, q.x, q.y, q.z, q.w, e.width, e.height, e.depth, fl);
  // unnormalised, linear, clamp: fine sweep of fractional positions (1/256 steps over two texels)
  const int N = 1024; float xs[N]; for (int i = 0; i < N; ++i) xs[i] = -1.0f + i * (10.0f / N);
  float* dx = dev(xs, N); float* dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
  for (int filter = 0; filter < 2; ++filter)
    for (int addr = 0; addr < 4; ++addr) {
      if (addr == 0 || addr == 2) continue;  // wrap/mirror need normalised coords
      cudaTextureObject_t t = tex_of_array(a, addr, filter, 0, 0);
      k1d<<<(N + 127) / 128, 128>>>(t, dx, dout, N); CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
      char tag[64]; snprintf(tag, sizeof tag, "1d.unnorm.%s.%s", filter ? "linear" : "point", amode(addr));
      print(tag, out, N, xs, nullptr, nullptr); cudaDestroyTextureObject(t);
    }
  // normalised coordinates, every address mode, point and linear
  const int M = 320; float us[M]; for (int i = 0; i < M; ++i) us[i] = -2.0f + i * (5.0f / M) + 0.001f * (i % 7);
  float* du = dev(us, M);
  for (int filter = 0; filter < 2; ++filter)
    for (int addr = 0; addr < 4; ++addr) {
      cudaTextureObject_t t = tex_of_array(a, addr, filter, 1, 0);
      k1d<<<(M + 127) / 128, 128>>>(t, du, dout, M); CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(out, dout, M * 4, cudaMemcpyDeviceToHost));
      char tag[64]; snprintf(tag, sizeof tag, "1d.norm.%s.%s", filter ? "linear" : "point", amode(addr));
      print(tag, out, M, us, nullptr, nullptr); cudaDestroyTextureObject(t);
    }
  cudaFree(dx); cudaFree(du); cudaFree(dout); cudaFreeArray(a); return 0;
}

static void run_2d() {
  // uchar4 4x3 array read as normalised float, linear filter
  const int W = 4, H = 3; uchar4 h[W * H];
  for (int i = 0; i < W * H; ++i) h[i] = make_uchar4(i * 20 + 3, 255 - i * 17, (i * 77) & 255, i & 1 ? 255 : 0);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a; CHECK(cudaMallocArray(&a, &cd, W, H));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, h, W * 4, W * 4, H, cudaMemcpyHostToDevice));
  const int N = 256; float xs[N], ys[N];
  for (int i = 0; i < N; ++i) { xs[i] = -0.5f + (i % 16) * 0.37f; ys[i] = -0.5f + (i / 16) * 0.23f; }
  float* dx = dev(xs, N); float* dy = dev(ys, N); float4* dout; CHECK(cudaMalloc(&dout, N * 16));
  float4 out[N];
  for (int filter = 0; filter < 2; ++filter) {
    cudaTextureObject_t t = tex_of_array(a, 1, filter, 0, 1);
    k2d4<<<(N + 127) / 128, 128>>>(t, dx, dy, dout, N); CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, N * 16, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i)
      printf("2d.uchar4.normfloat.%s.clamp %.9g %.9g = %08x %08x %08x %08x\n", filter ? "linear" : "point", xs[i], ys[i],
             bits(out[i].x), bits(out[i].y), bits(out[i].z), bits(out[i].w));
    cudaDestroyTextureObject(t);
  }
  // Border mode with uchar4 normalised float: the border colour
  {
    cudaTextureObject_t t = tex_of_array(a, 3, 1, 0, 1);
    k2d4<<<(N + 127) / 128, 128>>>(t, dx, dy, dout, N); CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, N * 16, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i)
      printf("2d.uchar4.normfloat.linear.border %.9g %.9g = %08x %08x %08x %08x\n", xs[i], ys[i],
             bits(out[i].x), bits(out[i].y), bits(out[i].z), bits(out[i].w));
    cudaDestroyTextureObject(t);
  }
  // linear filter with element-type read of an integer format: what does create say?
  {
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = a;
    cudaTextureDesc td; memset(&td, 0, sizeof td); td.filterMode = cudaFilterModeLinear; td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    RECORD(cudaCreateTextureObject(&t, &r, &td, nullptr));
    if (t) cudaDestroyTextureObject(t);
  }
  cudaFree(dx); cudaFree(dy); cudaFree(dout); cudaFreeArray(a);

  // float 2D pitched linear memory, normalised, wrap + mirror, linear; also tex2DLod/Grad
  const int PW = 5, PH = 4; size_t pitch; float* p; CHECK(cudaMallocPitch((void**)&p, &pitch, PW * 4, PH));
  float hp[PW * PH]; for (int i = 0; i < PW * PH; ++i) hp[i] = (float)(i * i % 13) - 3.5f;
  CHECK(cudaMemcpy2D(p, pitch, hp, PW * 4, PW * 4, PH, cudaMemcpyHostToDevice));
  printf("pitch %zu\n", pitch);
  const int M = 200; float us[M], vs[M];
  for (int i = 0; i < M; ++i) { us[i] = -1.3f + i * 0.0173f; vs[i] = 1.7f - i * 0.0191f; }
  float* du = dev(us, M); float* dv = dev(vs, M); float* dout2; CHECK(cudaMalloc(&dout2, M * 4)); float o2[M];
  for (int addr = 0; addr < 4; ++addr) {
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypePitch2D;
    r.res.pitch2D.devPtr = p; r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    r.res.pitch2D.width = PW; r.res.pitch2D.height = PH; r.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc td; memset(&td, 0, sizeof td);
    for (int k = 0; k < 3; ++k) td.addressMode[k] = (cudaTextureAddressMode)addr;
    td.filterMode = cudaFilterModeLinear; td.normalizedCoords = 1; td.readMode = cudaReadModeElementType;
    td.borderColor[0] = 9.0f;
    cudaTextureObject_t t = 0; RECORD(cudaCreateTextureObject(&t, &r, &td, nullptr));
    if (!t) continue;
    k2d<<<(M + 127) / 128, 128>>>(t, du, dv, dout2, M); CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(o2, dout2, M * 4, cudaMemcpyDeviceToHost));
    char tag[64]; snprintf(tag, sizeof tag, "2d.pitch.norm.linear.%s", amode(addr)); print(tag, o2, M, us, vs, nullptr);
    if (addr == 1) {
      k2dlod<<<(M + 127) / 128, 128>>>(t, du, dv, dout2, M); CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(o2, dout2, M * 4, cudaMemcpyDeviceToHost));
      print("2d.pitch.lodgrad.clamp", o2, M, us, vs, nullptr);
    }
    cudaDestroyTextureObject(t);
  }
  cudaFree(du); cudaFree(dv); cudaFree(dout2); cudaFree(p);
}

static void run_3d_layered_cube() {
  // 3D float 3x3x2, linear, clamp
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  { const int W = 3, H = 3, D = 2; float h[W * H * D]; for (int i = 0; i < W * H * D; ++i) h[i] = (float)((i * 5) % 11) * 1.5f;
    cudaArray_t a; CHECK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, H, D), 0));
    cudaMemcpy3DParms m; memset(&m, 0, sizeof m); m.srcPtr = make_cudaPitchedPtr(h, W * 4, W, H); m.dstArray = a;
    m.extent = make_cudaExtent(W, H, D); m.kind = cudaMemcpyHostToDevice; CHECK(cudaMemcpy3D(&m));
    const int N = 216; float xs[N], ys[N], zs[N];
    for (int i = 0; i < N; ++i) { xs[i] = -0.2f + (i % 6) * 0.71f; ys[i] = 0.1f + ((i / 6) % 6) * 0.63f; zs[i] = -0.3f + (i / 36) * 0.51f; }
    float *dx = dev(xs, N), *dy = dev(ys, N), *dz = dev(zs, N), *dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
    for (int filter = 0; filter < 2; ++filter) {
      cudaTextureObject_t t = tex_of_array(a, 1, filter, 0, 0);
      k3d<<<(N + 127) / 128, 128>>>(t, dx, dy, dz, dout, N); CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
      print(filter ? "3d.linear.clamp" : "3d.point.clamp", out, N, xs, ys, zs); cudaDestroyTextureObject(t);
    }
    // read back through cudaMemcpy3D from the array
    float back[W * H * D]; memset(back, 0, sizeof back);
    cudaMemcpy3DParms r; memset(&r, 0, sizeof r); r.srcArray = a; r.dstPtr = make_cudaPitchedPtr(back, W * 4, W, H);
    r.extent = make_cudaExtent(W, H, D); r.kind = cudaMemcpyDeviceToHost; CHECK(cudaMemcpy3D(&r));
    printf("3d.readback"); for (int i = 0; i < W * H * D; ++i) printf(" %g", back[i]); printf("\n");
    cudaFree(dx); cudaFree(dy); cudaFree(dz); cudaFree(dout); cudaFreeArray(a); }
  // layered 1D (4 wide, 3 layers) and 2D (3x2, 2 layers), linear, clamp
  { const int W = 4, L = 3; float h[W * L]; for (int i = 0; i < W * L; ++i) h[i] = (float)(i * 3 % 7);
    cudaArray_t a; CHECK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, 0, L), cudaArrayLayered));
    cudaMemcpy3DParms m; memset(&m, 0, sizeof m); m.srcPtr = make_cudaPitchedPtr(h, W * 4, W, 1); m.dstArray = a;
    m.extent = make_cudaExtent(W, 1, L); m.kind = cudaMemcpyHostToDevice; CHECK(cudaMemcpy3D(&m));
    cudaChannelFormatDesc q; cudaExtent e; unsigned fl; CHECK(cudaArrayGetInfo(&q, &e, &fl, a));
    printf("arrayinfo1dlayered ext=%zu,%zu,%zu flags=%u\n", e.width, e.height, e.depth, fl);
    const int N = 60; float xs[N]; int ls[N];
    for (int i = 0; i < N; ++i) { xs[i] = -0.5f + (i % 20) * 0.27f; ls[i] = i / 20 - (i % 3 == 0 ? 1 : 0) + (i % 5 == 0 ? 2 : 0); }
    float* dx = dev(xs, N); int* dl = dev(ls, N); float* dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
    cudaTextureObject_t t = tex_of_array(a, 1, 1, 0, 0);
    klay1<<<1, 64>>>(t, dx, dl, dout, N); CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) printf("1dlayered.linear.clamp %.9g %d = %08x (%.9g)\n", xs[i], ls[i], bits(out[i]), out[i]);
    cudaDestroyTextureObject(t); cudaFree(dx); cudaFree(dl); cudaFree(dout); cudaFreeArray(a); }
  { const int W = 3, H = 2, L = 2; float h[W * H * L]; for (int i = 0; i < W * H * L; ++i) h[i] = (float)(i * i % 9) - 1.0f;
    cudaArray_t a; CHECK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, H, L), cudaArrayLayered));
    cudaMemcpy3DParms m; memset(&m, 0, sizeof m); m.srcPtr = make_cudaPitchedPtr(h, W * 4, W, H); m.dstArray = a;
    m.extent = make_cudaExtent(W, H, L); m.kind = cudaMemcpyHostToDevice; CHECK(cudaMemcpy3D(&m));
    const int N = 72; float xs[N], ys[N]; int ls[N];
    for (int i = 0; i < N; ++i) { xs[i] = -0.3f + (i % 6) * 0.61f; ys[i] = 0.2f + ((i / 6) % 4) * 0.47f; ls[i] = (i / 24) - 0; }
    float *dx = dev(xs, N), *dy = dev(ys, N); int* dl = dev(ls, N); float* dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
    cudaTextureObject_t t = tex_of_array(a, 1, 1, 0, 0);
    klay2<<<1, 128>>>(t, dx, dy, dl, dout, N); CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) printf("2dlayered.linear.clamp %.9g %.9g %d = %08x (%.9g)\n", xs[i], ys[i], ls[i], bits(out[i]), out[i]);
    cudaDestroyTextureObject(t); cudaFree(dx); cudaFree(dy); cudaFree(dl); cudaFree(dout); cudaFreeArray(a); }
  // cubemap 4x4 faces, each texel = face*100 + y*10 + x; point and linear
  { const int W = 4; float h[W * W * 6]; for (int f = 0; f < 6; ++f) for (int y = 0; y < W; ++y) for (int x = 0; x < W; ++x) h[(f * W + y) * W + x] = f * 100 + y * 10 + x;
    cudaArray_t a; CHECK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, W, 6), cudaArrayCubemap));
    cudaMemcpy3DParms m; memset(&m, 0, sizeof m); m.srcPtr = make_cudaPitchedPtr(h, W * 4, W, W); m.dstArray = a;
    m.extent = make_cudaExtent(W, W, 6); m.kind = cudaMemcpyHostToDevice; CHECK(cudaMemcpy3D(&m));
    const int N = 343; float xs[N], ys[N], zs[N];
    for (int i = 0; i < N; ++i) { xs[i] = -1.1f + (i % 7) * 0.37f; ys[i] = -1.05f + ((i / 7) % 7) * 0.35f; zs[i] = -0.95f + (i / 49) * 0.33f; }
    float *dx = dev(xs, N), *dy = dev(ys, N), *dz = dev(zs, N), *dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
    for (int filter = 0; filter < 2; ++filter) {
      cudaTextureObject_t t = tex_of_array(a, 1, filter, 1, 0);
      kcube<<<(N + 127) / 128, 128>>>(t, dx, dy, dz, dout, N); CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
      print(filter ? "cube.linear" : "cube.point", out, N, xs, ys, zs); cudaDestroyTextureObject(t);
    }
    cudaFree(dx); cudaFree(dy); cudaFree(dz); cudaFree(dout); cudaFreeArray(a); }
}

static void run_fetch_and_formats() {
  // tex1Dfetch from linear float memory, and from uchar / short / char read as normalised float
  const int N = 16; int is[N]; for (int i = 0; i < N; ++i) is[i] = i - 3;  // includes out of range
  int* di = dev(is, N); float* dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
  float hf[10]; for (int i = 0; i < 10; ++i) hf[i] = i * 1.25f;
  float* df = dev(hf, 10);
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeLinear; r.res.linear.devPtr = df;
  r.res.linear.desc = cudaCreateChannelDesc<float>(); r.res.linear.sizeInBytes = 40;
  cudaTextureDesc td; memset(&td, 0, sizeof td); td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0; RECORD(cudaCreateTextureObject(&t, &r, &td, nullptr));
  kfetch<<<1, 32>>>(t, di, dout, N); CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) printf("fetch.float %d = %08x (%.9g)\n", is[i], bits(out[i]), out[i]);
  cudaDestroyTextureObject(t);
  // signed/unsigned 8 and 16 bit, normalised float
  signed char hc[10] = {-128, -127, -1, 0, 1, 64, 127, -64, 100, -100};
  void* dc = dev(hc, 10);
  const char* names[4] = {"s8", "u8", "s16", "u16"};
  short hs[10] = {-32768, -32767, -1, 0, 1, 16384, 32767, -16384, 1000, -1000};
  void* ds = dev(hs, 10);
  for (int k = 0; k < 4; ++k) {
    memset(&r, 0, sizeof r); r.resType = cudaResourceTypeLinear; r.res.linear.devPtr = k < 2 ? dc : ds;
    r.res.linear.desc = cudaCreateChannelDesc(k < 2 ? 8 : 16, 0, 0, 0, (k % 2) ? cudaChannelFormatKindUnsigned : cudaChannelFormatKindSigned);
    r.res.linear.sizeInBytes = k < 2 ? 10 : 20;
    memset(&td, 0, sizeof td); td.readMode = cudaReadModeNormalizedFloat;
    t = 0; RECORD(cudaCreateTextureObject(&t, &r, &td, nullptr));
    kfetchu8<<<1, 32>>>(t, di, dout, N); CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) printf("fetch.%s.normfloat %d = %08x (%.9g)\n", names[k], is[i], bits(out[i]), out[i]);
    cudaDestroyTextureObject(t);
  }
  // errors of the API
  cudaArray_t a = nullptr; cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  RECORD(cudaMallocArray(&a, &cd, 0, 0));
  RECORD(cudaMallocArray(&a, nullptr, 4, 4));
  cudaChannelFormatDesc bad = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  RECORD(cudaMallocArray(&a, &bad, 4, 4));
  RECORD(cudaMalloc3DArray(&a, &cd, make_cudaExtent(4, 4, 5), cudaArrayCubemap));
  RECORD(cudaMalloc3DArray(&a, &cd, make_cudaExtent(4, 3, 6), cudaArrayCubemap));
  RECORD(cudaFreeArray(nullptr));
  RECORD(cudaDestroyTextureObject(0));
  RECORD(cudaCreateTextureObject(nullptr, &r, &td, nullptr));
  memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = nullptr;
  RECORD(cudaCreateTextureObject(&t, &r, &td, nullptr));
  RECORD(cudaCreateSurfaceObject(nullptr, &r));
  cudaArray_t a2; CHECK(cudaMallocArray(&a2, &cd, 4, 4));
  r.res.array.array = a2; cudaSurfaceObject_t s = 0;
  RECORD(cudaCreateSurfaceObject(&s, &r));  // array without cudaArraySurfaceLoadStore
  printf("surfobj_without_flag %llu\n", (unsigned long long)s);
  cudaFreeArray(a2);
  cudaFree(di); cudaFree(dout); cudaFree(df); cudaFree(dc); cudaFree(ds);
}

static void run_surface(bool trap) {
  const int W = 4, H = 3; cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a; CHECK(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore));
  float h[W * H]; for (int i = 0; i < W * H; ++i) h[i] = (float)i;
  CHECK(cudaMemcpy2DToArray(a, 0, 0, h, W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaSurfaceObject_t s = 0; CHECK(cudaCreateSurfaceObject(&s, &r));
  if (trap) {
    ksurf<<<1, 1>>>(s, W * 4, 0, 0, 5.0f);
    cudaError_t e = cudaDeviceSynchronize();
    printf("surf.trap.write x=%d = %d %s\n", W * 4, (int)e, cudaGetErrorName(e));
    e = cudaGetLastError(); printf("surf.trap.after.lasterror = %d %s\n", (int)e, cudaGetErrorName(e));
    e = cudaMalloc((void**)&h, 4); printf("surf.trap.after.malloc = %d %s\n", (int)e, cudaGetErrorName(e));
    return;
  }
  // clamp writes: x (bytes) beyond the row, negative, unaligned; zero-mode writes are dropped
  int xs[6] = {W * 4, 100, -4, 2, 5, -1}; int ys[6] = {0, 1, 2, 3, -1, 1};
  for (int i = 0; i < 6; ++i) { ksurf<<<1, 1>>>(s, xs[i], ys[i], 1, 100.0f + i); cudaError_t e = cudaDeviceSynchronize();
    printf("surf.clamp.write %d %d = %d\n", xs[i], ys[i], (int)e); }
  for (int i = 0; i < 6; ++i) { ksurf<<<1, 1>>>(s, xs[i], ys[i], 2, 200.0f + i); cudaError_t e = cudaDeviceSynchronize();
    printf("surf.zero.write %d %d = %d\n", xs[i], ys[i], (int)e); }
  float back[W * H]; CHECK(cudaMemcpy2DFromArray(back, W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  printf("surf.after"); for (int i = 0; i < W * H; ++i) printf(" %g", back[i]); printf("\n");
  const int N = 12; int rx[N] = {0, 4, 8, 12, 16, 20, -4, -8, 0, 4, 2, 6}; int ry[N] = {0, 0, 0, 0, 0, 1, 1, 2, 3, -1, 0, 1};
  int* dx = dev(rx, N); int* dy = dev(ry, N); float* dout; CHECK(cudaMalloc(&dout, N * 4)); float out[N];
  for (int mode = 1; mode <= 2; ++mode) {
    ksurfread<<<1, 32>>>(s, dx, dy, dout, N, mode); cudaError_t e = cudaDeviceSynchronize();
    CHECK(cudaMemcpy(out, dout, N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) printf("surf.read.%s %d %d = %d %08x (%.9g)\n", mode == 1 ? "clamp" : "zero", rx[i], ry[i], (int)e, bits(out[i]), out[i]);
  }
  cudaDestroySurfaceObject(s); cudaFreeArray(a);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "trap") == 0) { run_surface(true); return 0; }
  if (argc > 1 && strcmp(argv[1], "trapunaligned") == 0) {
    // an unaligned x in trap mode
    const int W = 4, H = 3; cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a; CHECK(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore));
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = a;
    cudaSurfaceObject_t s = 0; CHECK(cudaCreateSurfaceObject(&s, &r));
    ksurf<<<1, 1>>>(s, 2, 0, 0, 5.0f); cudaError_t e = cudaDeviceSynchronize();
    printf("surf.trap.write.unaligned x=2 = %d %s\n", (int)e, cudaGetErrorName(e)); return 0;
  }
  run_1d(); run_2d(); run_3d_layered_cube(); run_fetch_and_formats(); run_surface(false);
  return 0;
}
