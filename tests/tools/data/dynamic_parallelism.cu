// A kernel that launches a kernel: CUDA dynamic parallelism, which cu2cxx refuses (cu2cxx_cli_*).
__global__ void child(int* p) { *p = 1; }

__global__ void parent(int* p) {
  child<<<1, 1>>>(p);
}
