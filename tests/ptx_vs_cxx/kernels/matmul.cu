// C = A * B for n x n row-major float matrices, 16 x 16 tiles staged through shared memory. The
// product is accumulated with fmaf in a fixed k order, so the C++ and PTX paths (fma.rn.f32) round
// identically.
#define XC_TILE 16
extern "C" __global__ void xc_matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[XC_TILE][XC_TILE];
  __shared__ float Bs[XC_TILE][XC_TILE];
  int row = blockIdx.y * XC_TILE + threadIdx.y;
  int col = blockIdx.x * XC_TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + XC_TILE - 1) / XC_TILE; ++t) {
    int ac = t * XC_TILE + threadIdx.x, br = t * XC_TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < XC_TILE; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}

void xc_matmul_cxx(int n, const float* A, const float* B, float* C) {
  dim3 grid((n + XC_TILE - 1) / XC_TILE, (n + XC_TILE - 1) / XC_TILE), block(XC_TILE, XC_TILE);
  xc_matmul<<<grid, block>>>(A, B, C, n);
}
