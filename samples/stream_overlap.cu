// stream_overlap: why streams exist. The same work - 4 chunks, each copied to the GPU, scaled by a
// kernel and copied back - runs twice: first on one stream, where every step waits for the one
// before, then with each chunk on a stream of its own, where chunk k+1's copy to the GPU runs
// while chunk k is computed and chunk k-1 comes back. The copy engines (one per direction) and
// the compute engine work at once.
//
// The times are the simulated GPU's (docs/timing.md), measured with events: the same on every
// run and every machine. Both results are checked against the host.
//
// Run it:  build/bin/stream_overlap [chunks]      (default 4, at most 16)
// Traced:  MINICUDA_TRACE=gpu build/bin/stream_overlap
//   the GPU's lines show each copy on ce0 (to the GPU) or ce1 (back) and each kernel on the
//   compute engine, with their simulated times: in the second run they overlap.
// As a timeline (docs/trace.md, "Chrome trace"): open overlap.json in ui.perfetto.dev after
//   MINICUDA_TRACE=cudart,libcuda,gpu MINICUDA_TRACE_FORMAT=chrome MINICUDA_TRACE_FILE=overlap.json
//   build/bin/stream_overlap 2
//   a track per engine and one for the host thread, each API call at its simulated host time
//   with an arrow to the copy or grid it caused; in the second run ce0 and compute overlap.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * factor + 1;
}

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

constexpr int kChunkInts = 1 << 20;  // 4 MiB a chunk
constexpr int kFactor = 3;

// Runs every chunk's copy in, kernel, copy out on streams[k % streams.size()]; returns the
// simulated milliseconds from an event before the first to an event after the last.
static float run(const std::vector<cudaStream_t>& streams, int chunks, const int* h_in, int* h_out, int* d) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate(start)");
  check(cudaEventCreate(&stop), "cudaEventCreate(stop)");
  check(cudaEventRecord(start, 0), "cudaEventRecord(start)");  // the NULL stream: before every stream's work
  const size_t bytes = kChunkInts * sizeof(int);
  for (int k = 0; k < chunks; ++k) {
    cudaStream_t s = streams[k % streams.size()];
    const size_t at = static_cast<size_t>(k) * kChunkInts;
    check(cudaMemcpyAsync(d + at, h_in + at, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync(to the GPU)");
    scale<<<kChunkInts / 256, 256, 0, s>>>(d + at, kChunkInts, kFactor);
    check(cudaGetLastError(), "scale<<<...>>>");
    check(cudaMemcpyAsync(h_out + at, d + at, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync(back)");
  }
  check(cudaEventRecord(stop, 0), "cudaEventRecord(stop)");  // after every blocking stream's work
  check(cudaEventSynchronize(stop), "cudaEventSynchronize(stop)");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

static int wrong(const int* h_in, const int* h_out, int n) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += h_out[i] != h_in[i] * kFactor + 1;
  return bad;
}

int main(int argc, char** argv) {
  int chunks = argc > 1 ? std::atoi(argv[1]) : 4;
  if (chunks < 1 || chunks > 16) chunks = 4;
  const int n = chunks * kChunkInts;

  // Pinned host memory: copies from and to it are truly asynchronous.
  int *h_in = nullptr, *h_out = nullptr, *d = nullptr;
  check(cudaMallocHost(&h_in, n * sizeof(int)), "cudaMallocHost(h_in)");
  check(cudaMallocHost(&h_out, n * sizeof(int)), "cudaMallocHost(h_out)");
  check(cudaMalloc(&d, n * sizeof(int)), "cudaMalloc(d)");
  for (int i = 0; i < n; ++i) h_in[i] = i % 1000 - 500;

  std::vector<cudaStream_t> streams(chunks);
  for (cudaStream_t& s : streams) check(cudaStreamCreate(&s), "cudaStreamCreate");

  const float serial = run({streams[0]}, chunks, h_in, h_out, d);
  const int serial_wrong = wrong(h_in, h_out, n);
  for (int i = 0; i < n; ++i) h_out[i] = 0;
  const float overlapped = run(streams, chunks, h_in, h_out, d);
  const int overlapped_wrong = wrong(h_in, h_out, n);

  std::printf("%d chunks of %d ints: copy to the GPU, scale<<<%d, 256>>>, copy back\n", chunks, kChunkInts,
              kChunkInts / 256);
  std::printf("one stream:         %.3f ms (simulated)\n", serial);
  std::printf("%2d streams:         %.3f ms (simulated), %.2fx faster\n", chunks, overlapped, serial / overlapped);
  std::printf("results: %d wrong on one stream, %d wrong on %d streams\n", serial_wrong, overlapped_wrong, chunks);

  for (cudaStream_t s : streams) check(cudaStreamDestroy(s), "cudaStreamDestroy");
  cudaFree(d);
  cudaFreeHost(h_in);
  cudaFreeHost(h_out);
  if (overlapped >= serial)
    std::printf("no overlap: with CUDA_DEVICE_MAX_CONNECTIONS=1 every stream shares one channel\n");
  const bool ok = serial_wrong == 0 && overlapped_wrong == 0;
  std::printf("stream_overlap: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
