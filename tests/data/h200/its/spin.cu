// spin.cu: lanes of one warp that wait for each other, the code independent thread scheduling
// (sm_70+) must run to completion. probe_its runs it as SASS (built in) and as PTX (JIT).
// Build (run_probe_its.sh): nvcc -ptx -arch=sm_90 -o spin.ptx spin.cu

// Every thread takes the lock in a do-while spin, appends its thread index to order[], releases.
extern "C" __global__ void spin_do_while(int* lock, int* count, int* order) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  int slot = *(volatile int*)count;
  order[slot] = blockIdx.x * blockDim.x + threadIdx.x;
  *(volatile int*)count = slot + 1;
  __threadfence();
  atomicExch(lock, 0);
}

// The same with the critical section inside the loop, behind a done flag.
extern "C" __global__ void spin_done_flag(int* lock, int* count, int* order) {
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {
      __threadfence();
      int slot = *(volatile int*)count;
      order[slot] = blockIdx.x * blockDim.x + threadIdx.x;
      *(volatile int*)count = slot + 1;
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    }
  }
}

// Lane 0 waits on a flag that lane 31 of its warp sets: no atomics, a plain volatile spin.
extern "C" __global__ void lane_waits_for_lane(int* flag, int* out) {
  unsigned lane = threadIdx.x % 32;
  if (lane == 0) {
    int spins = 0;
    while (*(volatile int*)flag == 0) ++spins;
    out[0] = 1;
    out[1] = spins > 0;
  } else if (lane == 31) {
    *(volatile int*)flag = 1;
  }
}

// Lanes 0-15 loop `n` times, lanes 16-31 once: each lane's clock when it leaves the loop and when it
// reaches the code after it, relative to the warp's start. Do the short lanes run ahead?
extern "C" __global__ void divergent_loop(long long* leave, long long* after, int n, int* sink) {
  unsigned lane = threadIdx.x % 32;
  long long t0 = clock64();
  int iters = lane < 16 ? n : 1;
  int acc = lane;
  for (int i = 0; i < iters; ++i) acc = acc * 1664525 + 1013904223;
  leave[lane] = clock64() - t0;
  sink[lane] = acc;
  after[lane] = clock64() - t0;
}
