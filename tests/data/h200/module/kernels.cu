// kernels.cu: the device code probe_module loads as PTX, cubin and fatbin (see probe_module.cu).
// Build (run_probe_module.sh): nvcc -ptx / -cubin / -fatbin -arch=... kernels.cu
__device__ int g_counter = 7;
__constant__ float c_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i] * c_scale[0];
}

extern "C" __global__ void bump(int* out) {
  atomicAdd(&g_counter, 1);
  if (threadIdx.x == 0) *out = g_counter;
}

extern "C" __global__ void big_shared(float* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}
