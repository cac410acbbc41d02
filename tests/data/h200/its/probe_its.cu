// Independent thread scheduling on the H200: lanes of one warp that spin for each other, run as
// SASS (these kernels built in) and as PTX through the JIT (spin.ptx, nvcc -ptx of spin.cu).
// Each run has a watchdog: a kernel not done in 10 s is reported as hung and the probe exits.
// Build: nvcc -O2 -arch=sm_90 -o probe_its probe_its.cu spin.cu -lcuda   Usage: probe_its spin.ptx
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" __global__ void spin_do_while(int*, int*, int*);
extern "C" __global__ void spin_done_flag(int*, int*, int*);
extern "C" __global__ void lane_waits_for_lane(int*, int*);
extern "C" __global__ void divergent_loop(long long*, long long*, int, int*);

static CUmodule g_ptx;

static void wait_or_die(const char* what) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t e = cudaStreamQuery(0);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) { std::printf("%s = error %d %s\n", what, e, cudaGetErrorName(e)); std::exit(1); }
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) {
      std::printf("%s = hung (not done after 10 s)\n", what);
      std::fflush(stdout);
      std::_Exit(2);
    }
  }
}

// Runs one lock kernel over blocks x threads, as SASS or PTX; prints the count and the order.
static void run_lock(const char* name, void (*sass)(int*, int*, int*), bool ptx, int blocks, int threads) {
  int *lock, *count, *order;
  const int n = blocks * threads;
  cudaMalloc(&lock, 4); cudaMalloc(&count, 4); cudaMalloc(&order, 4 * n);
  cudaMemset(lock, 0, 4); cudaMemset(count, 0, 4); cudaMemset(order, 0xff, 4 * n);
  if (ptx) {
    CUfunction f; cuModuleGetFunction(&f, g_ptx, name);
    void* args[] = {&lock, &count, &order};
    CUresult r = cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, 0, args, nullptr);
    if (r != CUDA_SUCCESS) std::printf("launch = %d\n", r);
  } else {
    sass<<<blocks, threads>>>(lock, count, order);
  }
  std::string key = std::string(ptx ? "ptx." : "sass.") + name + "." + std::to_string(blocks) + "x" + std::to_string(threads);
  wait_or_die(key.c_str());
  int c = 0; std::vector<int> o(n);
  cudaMemcpy(&c, count, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(o.data(), order, 4 * n, cudaMemcpyDeviceToHost);
  std::printf("%s = done count %d order", key.c_str(), c);
  for (int i = 0; i < n && i < 64; ++i) std::printf(" %d", o[i]);
  std::printf("\n");
  cudaFree(lock); cudaFree(count); cudaFree(order);
}

static void run_lane_wait(bool ptx, int threads) {
  int *flag, *out;
  cudaMalloc(&flag, 4); cudaMalloc(&out, 8);
  cudaMemset(flag, 0, 4); cudaMemset(out, 0, 8);
  if (ptx) {
    CUfunction f; cuModuleGetFunction(&f, g_ptx, "lane_waits_for_lane");
    void* args[] = {&flag, &out};
    cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, 0, args, nullptr);
  } else {
    lane_waits_for_lane<<<1, threads>>>(flag, out);
  }
  std::string key = std::string(ptx ? "ptx" : "sass") + ".lane_waits_for_lane.1x" + std::to_string(threads);
  wait_or_die(key.c_str());
  int o[2]; cudaMemcpy(o, out, 8, cudaMemcpyDeviceToHost);
  std::printf("%s = done out %d spun %d\n", key.c_str(), o[0], o[1]);
  cudaFree(flag); cudaFree(out);
}

static void run_divergent(bool ptx, int n) {
  long long *leave, *after; int* sink;
  cudaMalloc(&leave, 256); cudaMalloc(&after, 256); cudaMalloc(&sink, 128);
  if (ptx) {
    CUfunction f; cuModuleGetFunction(&f, g_ptx, "divergent_loop");
    void* args[] = {&leave, &after, &n, &sink};
    cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, args, nullptr);
  } else {
    divergent_loop<<<1, 32>>>(leave, after, n, sink);
  }
  std::string key = std::string(ptx ? "ptx" : "sass") + ".divergent_loop.n" + std::to_string(n);
  wait_or_die(key.c_str());
  long long l[32], a[32];
  cudaMemcpy(l, leave, 256, cudaMemcpyDeviceToHost);
  cudaMemcpy(a, after, 256, cudaMemcpyDeviceToHost);
  std::printf("%s.leave_cycles =", key.c_str());
  for (int i = 0; i < 32; ++i) std::printf(" %lld", l[i]);
  std::printf("\n%s.after_cycles =", key.c_str());
  for (int i = 0; i < 32; ++i) std::printf(" %lld", a[i]);
  std::printf("\n");
  cudaFree(leave); cudaFree(after); cudaFree(sink);
}

int main(int argc, char** argv) {
  cudaFree(0);
  std::ifstream in(argc > 1 ? argv[1] : "spin.ptx");
  std::stringstream text; text << in.rdbuf();
  CUresult r = cuModuleLoadData(&g_ptx, text.str().c_str());
  std::printf("ptx.load = %d\n", r);
  for (int ptx = 0; ptx < 2; ++ptx) {
    run_lock("spin_do_while", spin_do_while, ptx, 1, 32);
    run_lock("spin_do_while", spin_do_while, ptx, 1, 8);
    run_lock("spin_do_while", spin_do_while, ptx, 2, 64);
    run_lock("spin_done_flag", spin_done_flag, ptx, 1, 32);
    run_lock("spin_done_flag", spin_done_flag, ptx, 2, 64);
    run_lane_wait(ptx, 32);
    run_divergent(ptx, 100000);
    run_divergent(ptx, 100);
  }
  return 0;
}
