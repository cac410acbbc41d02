// A kernel whose module (this file) makes no device heap call: its launch gives the context no
// heap (test_device_heap.cu).
#include <cuda_runtime.h>

__global__ void no_heap_here(int* out) { *out = 1; }

void launch_no_heap_here(int* out) { no_heap_here<<<1, 1>>>(out); }
