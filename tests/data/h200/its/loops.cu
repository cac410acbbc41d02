// loops.cu: loop shapes whose SASS shows where ptxas puts YIELD (a scheduling point for the other
// paths of a diverged warp). run_probe_its.sh disassembles them into loops_sass.txt.
extern "C" __global__ void counted_atomic(int* hist, const int* data, int n) {  // a histogram loop
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&hist[data[i] & 15], 1);
}
extern "C" __global__ void pointer_chase(const int* next, int* out) {  // plain loads, data-dependent exit
  int i = threadIdx.x;
  while (next[i] >= 0) i = next[i];
  out[threadIdx.x] = i;
}
extern "C" __global__ void counted_volatile(const int* v, int* out, int n) {  // volatile loads, counted
  int s = 0;
  for (int i = 0; i < n; ++i) s += ((const volatile int*)v)[i];
  out[threadIdx.x] = s;
}
extern "C" __global__ void shared_atomic(int* out, int n) {  // shared-memory atomics in a counted loop
  __shared__ int h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = 0; i < n; ++i) atomicAdd(&h[(threadIdx.x + i) & 15], 1);
  __syncthreads();
  if (threadIdx.x < 16) out[threadIdx.x] = h[threadIdx.x];
}
extern "C" __global__ void acquire_spin(const unsigned* flag, int* out) {  // ld.acquire spin
  unsigned v;
  do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag)); } while (v == 0);
  out[threadIdx.x] = v;
}
extern "C" __global__ void store_loop(int* out, int n) {  // stores only, counted
  for (int i = 0; i < n; ++i) out[i * blockDim.x + threadIdx.x] = i;
}
