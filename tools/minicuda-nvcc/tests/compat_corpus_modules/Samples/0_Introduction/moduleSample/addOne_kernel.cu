// The module's kernel: data[i] += step for i < n.
extern "C" __global__ void addOne(int* data, int step, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += step;
}
