// failSample.cu: a sample of compat.sh's test corpus (check_nvcc.sh compat_script) that fails at run time: a kernel writes through a null pointer (700).
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int* p) { p[threadIdx.x] = 1; }
int main() { k<<<1, 32>>>(nullptr); cudaError_t e = cudaDeviceSynchronize(); printf("CUDA error: %s\n", cudaGetErrorString(e)); return 1; }
