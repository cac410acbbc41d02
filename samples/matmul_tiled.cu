// matmul_tiled: matrix multiply with shared-memory tiles, the classic use of __shared__.
//
// Teaches static shared memory and barriers. C = A x B with A (M x K) and B (K x N); each block
// computes one 16 x 16 tile of C. For every 16-wide slice of K, the block's 256 threads first
// copy one tile of A and one of B into __shared__ arrays (each thread one element of each),
// __syncthreads() so every element is there, multiply out of shared memory, and __syncthreads()
// again before the tiles are overwritten. Each global element is then read M/16 or N/16 times
// fewer than by a naive kernel. The sizes are deliberately not multiples of 16: the threads of
// the edge tiles load zeros past the matrix and do not store. The result is checked against a
// host multiply (the inputs are small integers, so the float sums are exact).
//
// Run it:  build/bin/matmul_tiled
// Traced:  MINICUDA_TRACE=1 build/bin/matmul_tiled
//   look for the launch's 2-D grid and block in cudaLaunchKernel (grid=(9,7,1),
//   block=(16,16,1)) with sharedMem=0: static __shared__ arrays belong to the kernel, not to the
//   launch. The simulated SM runs the threads of a block that meet at __syncthreads as fibers,
//   one block at a time per worker thread ("compute: ch 1 launch matmul_tiled ..." on the GPU).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 16;

// C[M x N] = A[M x K] * B[K x N], row-major. Launch with blockDim (kTile, kTile) and
// gridDim (ceil(N / kTile), ceil(M / kTile)).
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int K, int N) {
  // One copy per block, shared by its 256 threads (the 2 KiB of static shared memory).
  __shared__ float tile_a[kTile][kTile];
  __shared__ float tile_b[kTile][kTile];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;  // the element of C this thread computes
  const int col = blockIdx.x * kTile + tx;

  float sum = 0.0f;
  const int slices = (K + kTile - 1) / kTile;
  for (int s = 0; s < slices; ++s) {
    // Cooperative load: thread (ty, tx) fetches A[row][s*16 + tx] and B[s*16 + ty][col], or 0
    // outside the matrices, so the multiply below needs no bounds checks.
    const int a_col = s * kTile + tx;
    const int b_row = s * kTile + ty;
    tile_a[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
    tile_b[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
    __syncthreads();  // the tiles are complete

    for (int k = 0; k < kTile; ++k) sum += tile_a[ty][k] * tile_b[k][tx];
    __syncthreads();  // everyone is done with these tiles before the next slice overwrites them
  }
  // Threads past the edge took part in the loads and barriers, but store nothing.
  if (row < M && col < N) C[row * N + col] = sum;
}

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

int main() {
  // Not multiples of 16: the last row and column of tiles are partial.
  constexpr int M = 100, K = 75, N = 130;

  std::vector<float> h_a(M * K), h_b(K * N), h_c(M * N, -1.0f), ref(M * N, 0.0f);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) h_a[i * K + k] = static_cast<float>((i * 7 + k * 3) % 11 - 5);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) h_b[k * N + j] = static_cast<float>((k * 5 + j * 2) % 9 - 4);

  // The host reference: the same products, summed in the same k order.
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum += h_a[i * K + k] * h_b[k * N + j];
      ref[i * N + j] = sum;
    }

  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  check(cudaMalloc(&d_a, h_a.size() * sizeof(float)), "cudaMalloc(d_a)");
  check(cudaMalloc(&d_b, h_b.size() * sizeof(float)), "cudaMalloc(d_b)");
  check(cudaMalloc(&d_c, h_c.size() * sizeof(float)), "cudaMalloc(d_c)");
  check(cudaMemcpy(d_a, h_a.data(), h_a.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy(d_a)");
  check(cudaMemcpy(d_b, h_b.data(), h_b.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy(d_b)");
  check(cudaMemset(d_c, 0xff, h_c.size() * sizeof(float)), "cudaMemset(d_c)");  // NaNs: unwritten shows

  dim3 block(kTile, kTile);
  dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  matmul_tiled<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
  check(cudaGetLastError(), "matmul_tiled<<<>>>");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cudaMemcpy(h_c.data(), d_c, h_c.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy(h_c)");
  std::printf("matmul_tiled<<<(%u,%u), (%u,%u)>>>: C[%d x %d] = A[%d x %d] x B[%d x %d], %zu bytes of tiles per block\n",
              grid.x, grid.y, block.x, block.y, M, N, M, K, K, N, 2 * sizeof(float) * kTile * kTile);

  int wrong = 0;
  for (int i = 0; i < M * N; ++i) {
    if (!(std::fabs(h_c[i] - ref[i]) <= 1e-3f)) {
      if (wrong < 5) std::printf("  C[%d][%d] = %g, expected %g\n", i / N, i % N, h_c[i], ref[i]);
      ++wrong;
    }
  }
  std::printf("C[0][0] = %g, C[%d][%d] = %g (host: %g, %g)\n", h_c[0], M - 1, N - 1, h_c[M * N - 1], ref[0],
              ref[M * N - 1]);

  check(cudaFree(d_a), "cudaFree(d_a)");
  check(cudaFree(d_b), "cudaFree(d_b)");
  check(cudaFree(d_c), "cudaFree(d_c)");
  if (wrong != 0) {
    std::printf("matmul_tiled: FAIL: %d of %d elements differ from the host's\n", wrong, M * N);
    return 1;
  }
  std::printf("matmul_tiled: PASS (%d elements match the host)\n", M * N);
  return 0;
}
