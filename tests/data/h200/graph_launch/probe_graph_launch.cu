// What a graph launch costs the host and the GPU on the H200, against the same kernels launched
// into a stream: the host time of the calls (steady_clock around them, median of 20 after 3
// warm-ups) and the GPU time from the first kernel's start to the last one's end (events).
// Build: nvcc -O2 -arch=sm_90 -o p probe_graph_launch.cu && ./p
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty_kernel() {}

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  empty_kernel<<<1, 1, 0, s>>>();
  cudaStreamSynchronize(s);
  const int sizes[] = {1, 10, 100, 1000};
  for (int n : sizes) {
    // Stream launches.
    std::vector<double> host, gpu;
    for (int rep = 0; rep < 23; ++rep) {
      cudaEventRecord(a, s);
      double t0 = now_us();
      for (int i = 0; i < n; ++i) empty_kernel<<<1, 1, 0, s>>>();
      double t1 = now_us();
      cudaEventRecord(b, s);
      cudaStreamSynchronize(s);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (rep >= 3) host.push_back(t1 - t0), gpu.push_back(ms * 1000.0);
    }
    printf("stream_%d_kernels_host_us = %.3f\n", n, median(host));
    printf("stream_%d_kernels_gpu_us = %.3f\n", n, median(gpu));

    // The same kernels captured into a graph (a chain).
    cudaGraph_t g;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 1, 0, s>>>();
    cudaStreamEndCapture(s, &g);
    double t0 = now_us();
    cudaGraphExec_t e;
    cudaGraphInstantiate(&e, g, 0);
    double t1 = now_us();
    printf("graph_%d_instantiate_host_us = %.3f\n", n, t1 - t0);
    t0 = now_us();
    cudaGraphLaunch(e, s);
    t1 = now_us();
    cudaStreamSynchronize(s);
    printf("graph_%d_first_launch_host_us = %.3f\n", n, t1 - t0);
    host.clear(), gpu.clear();
    for (int rep = 0; rep < 23; ++rep) {
      cudaEventRecord(a, s);
      t0 = now_us();
      cudaGraphLaunch(e, s);
      t1 = now_us();
      cudaEventRecord(b, s);
      cudaStreamSynchronize(s);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      if (rep >= 3) host.push_back(t1 - t0), gpu.push_back(ms * 1000.0);
    }
    printf("graph_%d_launch_host_us = %.3f\n", n, median(host));
    printf("graph_%d_launch_gpu_us = %.3f\n", n, median(gpu));

    // Instantiated again, uploaded first: the upload's host time and the first launch after it.
    cudaGraphExec_t e2;
    cudaGraphInstantiate(&e2, g, 0);
    t0 = now_us();
    cudaGraphUpload(e2, s);
    t1 = now_us();
    cudaStreamSynchronize(s);
    printf("graph_%d_upload_host_us = %.3f\n", n, t1 - t0);
    t0 = now_us();
    cudaGraphLaunch(e2, s);
    t1 = now_us();
    cudaStreamSynchronize(s);
    printf("graph_%d_launch_after_upload_host_us = %.3f\n", n, t1 - t0);
    cudaGraphExecDestroy(e2);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
  }
  printf("status = %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
