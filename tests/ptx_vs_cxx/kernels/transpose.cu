// out = in^T for a rows x cols float matrix through a 32 x 33 shared tile (the padding column puts
// a tile column in 32 different banks). Blocks are 32 x 8: each thread moves four elements.
extern "C" __global__ void xc_transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

void xc_transpose_cxx(int rows, int cols, const float* in, float* out) {
  dim3 grid((cols + 31) / 32, (rows + 31) / 32), block(32, 8);
  xc_transpose<<<grid, block>>>(in, out, rows, cols);
}
