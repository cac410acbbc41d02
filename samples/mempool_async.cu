// mempool_async: the stream-ordered allocator in four steps. cudaMallocAsync asks the kernel for
// a whole chunk the first time, then serves from the pool's cache; cudaFreeAsync returns a block
// in stream order, and the next allocation in the same stream gets it back at once; the
// synchronize gives the chunk back to the kernel (the default pool keeps nothing: release
// threshold 0), unless the threshold says to keep it. Run with MINICUDA_TRACE=1 to see which
// calls reach the kernel (NV_ESC_RM_ALLOC, UVM_*) and which say "no syscall".
#include <cstdio>

#include <cuda_runtime.h>

__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}

static unsigned long long reserved(cudaMemPool_t pool) {
  unsigned long long v = 0;
  cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v);
  return v;
}

int main() {
  const int n = 1 << 16;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);

  int* a = nullptr;
  cudaMallocAsync(&a, n * sizeof(int), s);  // [step 1] the pool's first chunk: syscalls
  std::printf("[step 1] cudaMallocAsync(256 KiB): reserved %llu MiB\n", reserved(pool) >> 20);
  fill<<<n / 256, 256, 0, s>>>(a, 7, n);
  int host[4] = {};
  cudaMemcpyAsync(host, a + n - 4, sizeof host, cudaMemcpyDeviceToHost, s);
  cudaFreeAsync(a, s);  // [step 2] back to the pool's cache, ordered after the copy

  int* b = nullptr;
  cudaMallocAsync(&b, n * sizeof(int), s);  // [step 3] same stream: the same block, no syscall
  std::printf("[step 3] same stream, same block: %s\n", a == b ? "yes" : "no");
  cudaFreeAsync(b, s);
  cudaStreamSynchronize(s);  // [step 4] release threshold 0: the chunk goes back to the kernel
  std::printf("[step 4] after cudaStreamSynchronize: reserved %llu MiB\n", reserved(pool) >> 20);

  bool ok = host[3] == 7 + n - 1 && a == b && reserved(pool) == 0 && cudaGetLastError() == cudaSuccess;
  std::printf("values %d..%d: %s\n", host[0], host[3], ok ? "PASS" : "FAIL");
  cudaStreamDestroy(s);
  return ok ? 0 : 1;
}
