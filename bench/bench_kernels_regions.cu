// The barrier kernels of bench_kernels.cpp again (the tree, the barrier-reduction count and the
// tiled multiply), in a .cu file: cu2cxx splits them at their barriers (region fission,
// docs/tools/cu2cxx.md), so the SM runs each block through the block function, with no fibers.
// bench_kernels.cpp keeps the same kernels in C++ (not translated: loop mode, then fibers at the
// first barrier), so one run measures both. tests/kernels/test_fission.cu and
// test_fission_reductions.cu check these kernels' results and that they run as regions.

// The classic shared-memory tree: 1 barrier after the loads, then one per halving (8 for 256).
__global__ void block_sum_tree_regions(const int* in, int* out) {
  __shared__ int partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// How many of the block's elements are odd, through one barrier reduction: cu2cxx splits it at
// the __syncthreads_count (the region before folds each thread's predicate into the block's count).
__global__ void block_count_odd_regions(const int* in, int* out) {
  const int odd = __syncthreads_count(in[blockIdx.x * blockDim.x + threadIdx.x] & 1);
  if (threadIdx.x == 0) out[blockIdx.x] = odd;
}

constexpr int kMatmulTile = 16;

// C = A B for n x n matrices, n a multiple of 16: 16 x 16 tiles through shared memory, two
// barriers per tile. Each thread sums its products in k order, as matmul_plain does.
__global__ void matmul_tiled_regions(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kMatmulTile][kMatmulTile];
  __shared__ float tb[kMatmulTile][kMatmulTile];
  const int row = blockIdx.y * kMatmulTile + threadIdx.y, col = blockIdx.x * kMatmulTile + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < n / kMatmulTile; ++t) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + t * kMatmulTile + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t * kMatmulTile + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < kMatmulTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
