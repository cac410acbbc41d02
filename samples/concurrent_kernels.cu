// concurrent_kernels: two kernels of two streams share the GPU's SMs when each leaves room
// (cudaDeviceProp::concurrentKernels = 1 on an H200). Both streams wait for the same event, so
// their kernels become ready at the same simulated moment:
//   - two small grids, <<<4, 256>>>: four blocks each, a few SMs out of 132 - they run at the
//     same time, and the pair takes as long as one;
//   - two full grids, <<<1056, 256>>>: 8 blocks of 256 threads on every SM, all 2048 threads of
//     each - no room for the other, so they run one after the other.
// Each case runs one kernel alone, then one on each of two streams, and times from the event to
// the last stream's stop event. The times are the simulated GPU's (docs/timing.md, "Concurrent
// kernels"): the same on every run. Every element the kernels wrote is checked.
//
// Run it:  build/bin/concurrent_kernels
// As a timeline (docs/trace.md, "Chrome trace"): open kernels.json in ui.perfetto.dev after
//   MINICUDA_TRACE=cudart,libcuda,gpu MINICUDA_TRACE_FORMAT=chrome MINICUDA_TRACE_FILE=kernels.json
//   build/bin/concurrent_kernels
//   on the compute track, the two small_grid slices lie side by side in time; the two full_grid
//   slices follow one another.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void small_grid(int* out, int tag) { out[blockIdx.x * blockDim.x + threadIdx.x] = tag; }
__global__ void full_grid(int* out, int tag) { out[blockIdx.x * blockDim.x + threadIdx.x] = tag; }

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

constexpr int kBlock = 256;
constexpr size_t kGateBytes = size_t{128} << 20;  // the gate: a memset that outlasts the launches

// Launches Kernel<<<blocks, 256>>> once on each of the first `count` streams, all held by one
// event recorded after a long memset on the gate stream, so that the kernels become ready at
// the same moment. Returns the simulated microseconds from that event until the last stream's
// stop event, and counts the elements that do not hold their stream's tag in *wrong.
template <void (*Kernel)(int*, int)>
static float run_held(cudaStream_t gate, const cudaStream_t* streams, int count, int blocks, int* d_out, void* d_gate,
                      int* wrong) {
  const int n = blocks * kBlock;
  cudaEvent_t open, stop[2];
  check(cudaEventCreate(&open), "cudaEventCreate");
  for (int s = 0; s < count; ++s) check(cudaEventCreate(&stop[s]), "cudaEventCreate");
  check(cudaMemsetAsync(d_out, 0, 2 * static_cast<size_t>(n) * sizeof(int), gate), "cudaMemsetAsync(out)");
  check(cudaMemsetAsync(d_gate, 0, kGateBytes, gate), "cudaMemsetAsync(gate)");
  check(cudaEventRecord(open, gate), "cudaEventRecord(open)");
  for (int s = 0; s < count; ++s) {
    check(cudaStreamWaitEvent(streams[s], open, 0), "cudaStreamWaitEvent");
    Kernel<<<blocks, kBlock, 0, streams[s]>>>(d_out + s * n, s + 1);
    check(cudaGetLastError(), "launch");
    check(cudaEventRecord(stop[s], streams[s]), "cudaEventRecord(stop)");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  float us = 0;
  for (int s = 0; s < count; ++s) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, open, stop[s]), "cudaEventElapsedTime");
    if (ms * 1000 > us) us = ms * 1000;
    cudaEventDestroy(stop[s]);
  }
  cudaEventDestroy(open);
  std::vector<int> host(static_cast<size_t>(count) * n);
  check(cudaMemcpy(host.data(), d_out, host.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (size_t i = 0; i < host.size(); ++i) *wrong += host[i] != static_cast<int>(i / n) + 1;
  return us;
}

// One kernel alone, then one on each of two streams; true if the pair took less than twice one.
template <void (*Kernel)(int*, int)>
static bool compare(const char* name, cudaStream_t gate, const cudaStream_t* streams, int blocks, int* d_out,
                    void* d_gate, int* wrong) {
  const float one = run_held<Kernel>(gate, streams, 1, blocks, d_out, d_gate, wrong);
  const float two = run_held<Kernel>(gate, streams, 2, blocks, d_out, d_gate, wrong);
  const bool overlap = two < 1.5f * one;
  std::printf("%s<<<%d, 256>>>: one alone %.3f us, one on each of two streams %.3f us (simulated): %s\n", name,
              blocks, one, two, overlap ? "side by side" : "one after the other");
  return overlap;
}

int main() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("%s: %d SMs, concurrentKernels = %d\n", prop.name, prop.multiProcessorCount, prop.concurrentKernels);
  // Enough blocks to put 2048 threads on every SM at once: one full wave.
  const int full_blocks = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / kBlock);
  cudaStream_t gate, streams[2];
  check(cudaStreamCreateWithFlags(&gate, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  for (cudaStream_t& s : streams) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  int* d_out = nullptr;
  void* d_gate = nullptr;
  check(cudaMalloc(&d_out, 2 * static_cast<size_t>(full_blocks) * kBlock * sizeof(int)), "cudaMalloc(out)");
  check(cudaMalloc(&d_gate, kGateBytes), "cudaMalloc(gate)");

  int wrong = 0;
  const bool small_overlap = compare<small_grid>("small_grid", gate, streams, 4, d_out, d_gate, &wrong);
  const bool full_overlap = compare<full_grid>("full_grid", gate, streams, full_blocks, d_out, d_gate, &wrong);
  std::printf("results: %d wrong\n", wrong);

  cudaFree(d_gate);
  cudaFree(d_out);
  cudaStreamDestroy(gate);
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
  const bool pass = small_overlap && !full_overlap && wrong == 0;
  std::printf("concurrent_kernels: %s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
