// The kernel driver_ptx.cpp loads: nvcc -ptx turns it into the .ptx file the program reads.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
