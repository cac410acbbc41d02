// okSample.cu: a sample of compat.sh's test corpus (check_nvcc.sh compat_script) that passes: prints Test passed, exits 0.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x; }
int main() { int* d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); int h[32]; cudaMemcpy(h, d, 128, cudaMemcpyDeviceToHost); printf(h[31] == 31 ? "Test passed\n" : "Test failed\n"); return h[31] == 31 ? 0 : 1; }
