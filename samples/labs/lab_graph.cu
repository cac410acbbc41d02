// lab_graph: the same eight small kernels, launched one by one into a stream, then captured into
// a graph and launched twice. Each run is timed by events on the simulated GPU. Lab 12
// (docs/labs/graph-or-stream-launch.md) reads what each launch submits with MINICUDA_TRACE.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void step(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

constexpr int kKernels = 8, kN = 1024;

static void eight_steps(int* x, cudaStream_t s) {
  for (int k = 0; k < kKernels; ++k) step<<<kN / 256, 256, 0, s>>>(x, kN);
}

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  int* x = nullptr;
  cudaMalloc(&x, kN * sizeof(int));
  cudaMemset(x, 0, kN * sizeof(int));
  cudaDeviceSynchronize();  // the memset done: the runs below start from an idle GPU
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float ms = 0;

  cudaEventRecord(start, s);
  eight_steps(x, s);  // [stream] eight launches
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  cudaEventElapsedTime(&ms, start, stop);
  std::printf("[stream] %d kernels: %.1f us\n", kKernels, ms * 1000);

  cudaGraph_t graph;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  eight_steps(x, s);
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  for (int launch = 1; launch <= 2; ++launch) {
    cudaEventRecord(start, s);
    cudaGraphLaunch(exec, s);  // [graph] one launch
    cudaEventRecord(stop, s);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    std::printf("[graph, launch %d] %d kernels: %.1f us\n", launch, kKernels, ms * 1000);
  }

  int last = 0;
  cudaMemcpy(&last, x + kN - 1, sizeof last, cudaMemcpyDeviceToHost);
  const bool ok = last == 3 * kKernels && cudaGetLastError() == cudaSuccess;
  std::printf("x[%d] = %d: %s\n", kN - 1, last, ok ? "PASS" : "FAIL");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(x);
  return ok ? 0 : 1;
}
