// probe_wmma_misuse.cu: what the H200 reports when wmma is misused. One case per process (errors
// are sticky): argv[1] names it. Prints "misuse <case> launch=<name> sync=<name> d00=<hex>".
//   offset<E>     load_matrix_sync of a half matrix_a from a pointer E elements past a 256-byte boundary
//   ldm<L>        ldm = L (a multiple of 8 is required for half)
//   halfwarp      a 16-thread block calls load/mma/store
//   diverge       only lanes 0..15 of a 32-thread block call mma_sync (not run: it may hang the GPU)
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
using namespace nvcuda;

__global__ void k(const half* a, const half* b, float* d, int ldm, int diverge) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, ldm);
  wmma::load_matrix_sync(fb, b, 16);
  if (!diverge || threadIdx.x < 16) wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

int main(int argc, char** argv) {
  const char* c = argc > 1 ? argv[1] : "offset0";
  int offset = 0, ldm = 16, threads = 32, diverge = 0;
  if (!strncmp(c, "offset", 6)) offset = atoi(c + 6);
  if (!strncmp(c, "ldm", 3)) ldm = atoi(c + 3);
  if (!strcmp(c, "halfwarp")) threads = 16;
  if (!strcmp(c, "diverge")) diverge = 1;
  half *a, *b; float* d;
  cudaMalloc(&a, 64 * 64 * sizeof(half)); cudaMalloc(&b, 64 * 64 * sizeof(half)); cudaMalloc(&d, 256 * sizeof(float));
  half h[64 * 64];
  for (int i = 0; i < 64 * 64; ++i) h[i] = __float2half(1.0f);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice); cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(d, 0, 256 * sizeof(float));
  k<<<1, threads>>>(a + offset, b, d, ldm, diverge);
  cudaError_t l = cudaGetLastError();
  cudaError_t s = cudaDeviceSynchronize();
  float out = 0;
  cudaMemcpy(&out, d, sizeof out, cudaMemcpyDeviceToHost);
  unsigned bits; memcpy(&bits, &out, 4);
  printf("misuse %s launch=%s sync=%s d00=%08x\n", c, cudaGetErrorName(l), cudaGetErrorName(s), bits);
  return 0;
}
