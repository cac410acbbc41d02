// A kernel that keeps many values live at once (48 accumulators), so that ptxas needs many
// registers for it: what CU_JIT_MAX_REGISTERS changes. Built with nvcc -ptx -arch=sm_90.
extern "C" __global__ void heavy(const float* in, float* out, int n) {
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) acc[k] = in[(threadIdx.x + k * 37) % n];
  for (int round = 0; round < 8; ++round) {
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + 1) % 48] + acc[(k + 7) % 48];
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 48; ++k) s += acc[k] * (k + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
