// Probe: the optimisation ladders that GPU courses teach, timed on the H200 with events, so the
// simulator's work-aware cost model (docs/timing.md) can be calibrated against the real device.
// The same file, compiled to PTX (ladders.ptx next to it), is what the simulator runs.
//
//   ./probe_ladders          time every rung at several sizes: one line per rung and size,
//                            "rung LADDER NAME size=N ms=MEDIAN min=MIN GBps=X" (or GFLOPs=X)
//   ./probe_ladders --once   run each rung once at the simulator's sizes and the small
//                            hand-worked kernels once (for ncu --metrics)
//
// Build and run on the H200: nvcc -O3 -arch=sm_90 -o probe_ladders probe_ladders.cu && ./probe_ladders
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("error %s at line %d: %s\n", #x, __LINE__, cudaGetErrorName(e_));    \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

constexpr int kTile = 32;        // transpose tile edge
constexpr int kRows = 8;         // transpose block is kTile x kRows threads, 4 elements each
constexpr int kReduceBlock = 256;
constexpr int kMatTile = 16;

// ---- small kernels whose counters can be worked out by hand (one warp each) ----

extern "C" __global__ void hw_load_coalesced(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x];
}

extern "C" __global__ void hw_load_strided(const float* in, float* out, int stride) {
  out[threadIdx.x] = in[threadIdx.x * stride];
}

extern "C" __global__ void hw_shared_stride(float* out, int stride) {
  __shared__ float cells[32 * 32];
  cells[threadIdx.x * stride] = (float)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = cells[threadIdx.x * stride];
}

// Lanes 0-15 and 16-31 take different loops (a loop cannot be turned into selects), so the
// warp runs each loop with half its lanes.
extern "C" __global__ void hw_half_divergent(float* out, int rounds) {
  float v = (float)threadIdx.x;
  if ((threadIdx.x & 31) < 16) {
    for (int k = 0; k < rounds; ++k) v = v * 0.5f + 1.0f;
  } else {
    for (int k = 0; k < rounds; ++k) v = v * v - 1.0f;
  }
  out[threadIdx.x] = v;
}

// ---- transpose of an n x n float matrix ----

extern "C" __global__ void transpose_copy(const float* in, float* out, int n) {
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[(y + j) * n + x] = in[(y + j) * n + x];
}

extern "C" __global__ void transpose_naive(const float* in, float* out, int n) {
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[x * n + (y + j)] = in[(y + j) * n + x];
}

extern "C" __global__ void transpose_shared(const float* in, float* out, int n) {
  __shared__ float tile[kTile][kTile];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transpose_padded(const float* in, float* out, int n) {
  __shared__ float tile[kTile][kTile + 1];  // one spare column moves each row to the next bank
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// ---- reduction: each block writes the sum of its part of the input ----

extern "C" __global__ void reduce_divergent(const float* in, float* partial, int n) {
  __shared__ float sum[kReduceBlock];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  sum[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) sum[t] += sum[t + s];  // active threads scattered over every warp
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sum[0];
}

extern "C" __global__ void reduce_strided_index(const float* in, float* partial, int n) {
  __shared__ float sum[kReduceBlock];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  sum[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned k = 2 * s * t;  // active threads packed, but their cells collide in banks
    if (k < blockDim.x) sum[k] += sum[k + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sum[0];
}

extern "C" __global__ void reduce_sequential(const float* in, float* partial, int n) {
  __shared__ float sum[kReduceBlock];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  sum[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) sum[t] += sum[t + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sum[0];
}

// From here on a block reads 2 * blockDim.x inputs, adding a pair while loading.
extern "C" __global__ void reduce_add_on_load(const float* in, float* partial, int n) {
  __shared__ float sum[kReduceBlock];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sum[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) sum[t] += sum[t + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sum[0];
}

// The last 32 partial sums live in one warp: no block barrier is needed for them.
__device__ void last_warp(float* sum, unsigned t) {
  float v = sum[t];
  for (int s = 32; s > 0; s /= 2) {
    v += sum[t + s];
    __syncwarp();
    sum[t] = v;
    __syncwarp();
  }
}

extern "C" __global__ void reduce_unroll_last_warp(const float* in, float* partial, int n) {
  __shared__ float sum[kReduceBlock + 32];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + t;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sum[t] = v;
  if (t < 32) sum[blockDim.x + t] = 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
    if (t < s) sum[t] += sum[t + s];
    __syncthreads();
  }
  if (t < 32) last_warp(sum, t);
  if (t == 0) partial[blockIdx.x] = sum[0];
}

// The block size is a compile-time constant: every loop is unrolled and its tests fold away.
extern "C" __global__ void reduce_complete_unroll(const float* in, float* partial, int n) {
  __shared__ float sum[kReduceBlock + 32];
  unsigned t = threadIdx.x, i = blockIdx.x * kReduceBlock * 2 + t;
  float v = i < n ? in[i] : 0.0f;
  if (i + kReduceBlock < n) v += in[i + kReduceBlock];
  sum[t] = v;
  if (t < 32) sum[kReduceBlock + t] = 0.0f;
  __syncthreads();
#pragma unroll
  for (unsigned s = kReduceBlock / 2; s > 32; s /= 2) {
    if (t < s) sum[t] += sum[t + s];
    __syncthreads();
  }
  if (t < 32) {
    float w = sum[t];
#pragma unroll
    for (int s = 32; s > 0; s /= 2) {
      w += sum[t + s];
      __syncwarp();
      sum[t] = w;
      __syncwarp();
    }
  }
  if (t == 0) partial[blockIdx.x] = sum[0];
}

// ---- matrix multiply C = A * B, n x n floats ----

extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kMatTile][kMatTile], tb[kMatTile][kMatTile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * kMatTile + ty, col = blockIdx.x * kMatTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kMatTile) {
    ta[ty][tx] = a[row * n + k0 + tx];
    tb[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kMatTile; ++k) acc += ta[ty][k] * tb[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// ---- streaming and compute-bound references ----

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Eight independent FMA chains per thread, `iters` rounds: 16 flops per round.
extern "C" __global__ void fma_bound(float* out, int iters) {
  float x = (float)threadIdx.x * 1e-3f, y = 1.0001f, z = 0.9999f;
  float a0 = x, a1 = x + 1, a2 = x + 2, a3 = x + 3, a4 = x + 4, a5 = x + 5, a6 = x + 6, a7 = x + 7;
  for (int k = 0; k < iters; ++k) {
    a0 = fmaf(a0, y, z); a1 = fmaf(a1, y, z); a2 = fmaf(a2, y, z); a3 = fmaf(a3, y, z);
    a4 = fmaf(a4, y, z); a5 = fmaf(a5, y, z); a6 = fmaf(a6, y, z); a7 = fmaf(a7, y, z);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// ---- host side ----

struct Launch {
  const char* ladder;
  const char* name;
  long size;      // n of the problem (matrix edge, element count, or FMA rounds)
  double bytes;   // bytes a perfect kernel moves (GB/s), or 0
  double flops;   // floating-point operations (GFLOP/s), or 0
  dim3 grid, block;
  void* fn;
  std::vector<void*> args;
};

static int timed(Launch& l, int reps, bool print) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int r = -2; r < reps; ++r) {  // two warm-up launches first
    CHECK(cudaEventRecord(start));
    CHECK(cudaLaunchKernel(l.fn, l.grid, l.block, l.args.data(), 0, 0));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (r >= 0) ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  if (print && !ms.empty()) {
    double med = ms[ms.size() / 2];
    std::printf("rung %s %s size=%ld ms=%.5f min=%.5f", l.ladder, l.name, l.size, med, ms[0]);
    if (l.bytes > 0) std::printf(" GBps=%.1f", l.bytes / (med * 1e-3) / 1e9);
    if (l.flops > 0) std::printf(" GFLOPs=%.1f", l.flops / (med * 1e-3) / 1e9);
    std::printf(" grid=%u,%u block=%u,%u\n", l.grid.x, l.grid.y, l.block.x, l.block.y);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return 0;
}

int main(int argc, char** argv) {
  bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
  const long kMaxElems = 1L << 24;  // 64 MiB per buffer
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, kMaxElems * 4));
  CHECK(cudaMalloc(&b, kMaxElems * 4));
  CHECK(cudaMalloc(&c, kMaxElems * 4));
  std::vector<float> host(kMaxElems);
  for (long i = 0; i < kMaxElems; ++i) host[i] = (float)(i % 1000) * 0.001f;
  CHECK(cudaMemcpy(a, host.data(), kMaxElems * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), kMaxElems * 4, cudaMemcpyHostToDevice));

  // Parameters live in these arrays so the argument pointers stay valid.
  static int ints[256];
  int next = 0;
  auto iarg = [&](int v) { ints[next] = v; return (void*)&ints[next++]; };
  static float* ptrs[3];
  ptrs[0] = a; ptrs[1] = b; ptrs[2] = c;
  void* pa = &ptrs[0]; void* pb = &ptrs[1]; void* pc = &ptrs[2];

  std::vector<Launch> all;
  if (once) {
    all.push_back({"hand", "hw_load_coalesced", 32, 0, 0, dim3(1), dim3(32), (void*)hw_load_coalesced, {pa, pc}});
    all.push_back({"hand", "hw_load_strided", 2, 0, 0, dim3(1), dim3(32), (void*)hw_load_strided, {pa, pc, iarg(2)}});
    all.push_back({"hand", "hw_load_strided", 32, 0, 0, dim3(1), dim3(32), (void*)hw_load_strided, {pa, pc, iarg(32)}});
    all.push_back({"hand", "hw_shared_stride", 2, 0, 0, dim3(1), dim3(32), (void*)hw_shared_stride, {pc, iarg(2)}});
    all.push_back({"hand", "hw_shared_stride", 32, 0, 0, dim3(1), dim3(32), (void*)hw_shared_stride, {pc, iarg(32)}});
    all.push_back({"hand", "hw_half_divergent", 32, 0, 0, dim3(1), dim3(32), (void*)hw_half_divergent, {pc, iarg(64)}});
  }
  std::vector<int> tsizes = once ? std::vector<int>{1024} : std::vector<int>{1024, 2048, 4096};
  for (int n : tsizes) {
    dim3 g(n / kTile, n / kTile), bl(kTile, kRows);
    double bytes = 2.0 * n * n * 4;
    all.push_back({"transpose", "copy", n, bytes, 0, g, bl, (void*)transpose_copy, {pa, pc, iarg(n)}});
    all.push_back({"transpose", "naive", n, bytes, 0, g, bl, (void*)transpose_naive, {pa, pc, iarg(n)}});
    all.push_back({"transpose", "shared", n, bytes, 0, g, bl, (void*)transpose_shared, {pa, pc, iarg(n)}});
    all.push_back({"transpose", "padded", n, bytes, 0, g, bl, (void*)transpose_padded, {pa, pc, iarg(n)}});
  }
  std::vector<int> rsizes = once ? std::vector<int>{1 << 20} : std::vector<int>{1 << 20, 1 << 22, 1 << 24};
  for (int n : rsizes) {
    dim3 bl(kReduceBlock), g1(n / kReduceBlock), g2(n / kReduceBlock / 2);
    double bytes = 4.0 * n;
    all.push_back({"reduce", "divergent", n, bytes, 0, g1, bl, (void*)reduce_divergent, {pa, pc, iarg(n)}});
    all.push_back({"reduce", "strided_index", n, bytes, 0, g1, bl, (void*)reduce_strided_index, {pa, pc, iarg(n)}});
    all.push_back({"reduce", "sequential", n, bytes, 0, g1, bl, (void*)reduce_sequential, {pa, pc, iarg(n)}});
    all.push_back({"reduce", "add_on_load", n, bytes, 0, g2, bl, (void*)reduce_add_on_load, {pa, pc, iarg(n)}});
    all.push_back({"reduce", "unroll_last_warp", n, bytes, 0, g2, bl, (void*)reduce_unroll_last_warp, {pa, pc, iarg(n)}});
    all.push_back({"reduce", "complete_unroll", n, bytes, 0, g2, bl, (void*)reduce_complete_unroll, {pa, pc, iarg(n)}});
  }
  std::vector<int> msizes = once ? std::vector<int>{256} : std::vector<int>{256, 512, 1024, 2048};
  for (int n : msizes) {
    dim3 g(n / kMatTile, n / kMatTile), bl(kMatTile, kMatTile);
    double flops = 2.0 * n * n * n;
    all.push_back({"matmul", "naive", n, 0, flops, g, bl, (void*)matmul_naive, {pa, pb, pc, iarg(n)}});
    all.push_back({"matmul", "tiled", n, 0, flops, g, bl, (void*)matmul_tiled, {pa, pb, pc, iarg(n)}});
  }
  std::vector<int> vsizes = once ? std::vector<int>{1 << 20}
                                 : std::vector<int>{1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 24};
  for (int n : vsizes) {
    dim3 bl(256), g((n + 255) / 256);
    all.push_back({"vector_add", "vector_add", n, 12.0 * n, 0, g, bl, (void*)vector_add, {pa, pb, pc, iarg(n)}});
  }
  std::vector<int> fsizes = once ? std::vector<int>{16} : std::vector<int>{16, 256, 4096};
  for (int it : fsizes) {
    dim3 bl(256), g(132 * 8);
    double flops = 16.0 * it * g.x * bl.x;
    all.push_back({"fma", "fma_bound", it, 0, flops, g, bl, (void*)fma_bound, {pc, iarg(it)}});
  }

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s sms=%d l2=%d smem_per_sm=%zu\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize, prop.sharedMemPerMultiprocessor);
  for (Launch& l : all) {
    if (once) {
      CHECK(cudaLaunchKernel(l.fn, l.grid, l.block, l.args.data(), 0, 0));
      CHECK(cudaDeviceSynchronize());
      std::printf("once %s %s size=%ld\n", l.ladder, l.name, l.size);
    } else if (timed(l, 9, true) != 0) {
      return 1;
    }
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return 0;
}
