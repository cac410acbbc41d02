// kernels.cu: the device code of the Driver API samples, compiled to PTX by nvcc once and kept
// beside it (regenerate.sh); the samples load the .ptx files at run time with cuModuleLoad, so
// building them needs no CUDA compiler.
#define TILE 16

// c[i] = a[i] + b[i]: one thread per element.
extern "C" __global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// c = a * b for n x n row-major float matrices, in TILE x TILE tiles staged in shared memory.
extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[TILE][TILE];
  __shared__ float tb[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = row < n && ac < n ? a[row * n + ac] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = br < n && col < n ? b[br * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = sum;
}
