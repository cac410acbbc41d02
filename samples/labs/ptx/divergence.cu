// The kernels of the warp-divergence lab (docs/labs/warp-divergence.md).
// parity_branch, for one warp of 32 threads: an if/else on the lane's parity (even lanes write
// the `even` array, odd lanes the `odd` one), then a loop whose trip count is the lane's number
// modulo 4, so lanes leave it at different iterations.
// warp_branch, for two warps: the same if/else on the warp's parity instead, so every lane of a
// warp takes the same side.
// divergence.ptx is this file compiled once with
//   nvcc -ptx -arch=sm_90 -o divergence.ptx divergence.cu
// and the build reads only the .ptx (nvcc is not needed to build or run the lab).
extern "C" __global__ void parity_branch(int* even, int* odd, int* steps) {
  unsigned lane = threadIdx.x;
  if (lane % 2 == 0) {
    even[lane / 2] = lane * 10;
  } else {
    odd[lane / 2] = lane + 1000;
  }
  int sum = 0;
  for (unsigned i = 0; i < lane % 4; ++i) sum += i + 1;
  steps[lane] = sum;
}

extern "C" __global__ void warp_branch(int* even, int* odd) {
  unsigned warp = threadIdx.x / 32;
  if (warp % 2 == 0) {
    even[threadIdx.x] = warp;
  } else {
    odd[threadIdx.x] = warp + 1000;
  }
}
