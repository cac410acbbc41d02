// Concurrent kernels (docs/timing.md, "Concurrent kernels"): grids of different streams share the
// SMs in simulated time when each leaves room, and wait when not. Every test holds its streams
// behind one event (recorded after a long memset on a gate stream), so that their kernels become
// ready at the same simulated moment, and reads the times back with events:
//   - four small grids of four streams run together: the four take as long as one;
//   - a grid that fills all 132 SMs and a small one take turns, so do two full grids, and of
//     three grids that each hold half of every SM, two run together and the third waits;
//   - the same work repeated in one process gives the same times every time.
// test_concurrency runs these again with MINICUDA_ENGINE_THREADS=0 (tests/concurrency/
// CMakeLists.txt): the same figures, pinned here, hold both ways.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "runtime_fixtures.h"

namespace {

// Named Concurrency* so that the tsan preset's filter runs them too.
using ConcurrencyKernels = minicuda::testing::FreshProcess;

__global__ void fill(int* out, int tag) { out[blockIdx.x * blockDim.x + threadIdx.x] = tag; }

constexpr int kBlock = 256;
constexpr int kFullBlocks = 132 * 8;  // 8 blocks of 256 threads on every SM: 2048 threads each

// The streams' kernels, held behind one event; returns for each stream its kernel's start and
// end in microseconds after the event, and checks every element.
std::vector<float> run_held(const std::vector<int>& blocks_per_stream) {
  const size_t streams = blocks_per_stream.size();
  cudaStream_t gate;
  EXPECT_EQ(cudaStreamCreateWithFlags(&gate, cudaStreamNonBlocking), cudaSuccess);
  std::vector<cudaStream_t> s(streams);
  std::vector<cudaEvent_t> start(streams), stop(streams);
  std::vector<int*> out(streams);
  cudaEvent_t open;
  EXPECT_EQ(cudaEventCreate(&open), cudaSuccess);
  void* gate_memory = nullptr;
  const size_t gate_bytes = size_t{128} << 20;  // 32 us on ce2: longer than every launch below
  EXPECT_EQ(cudaMalloc(&gate_memory, gate_bytes), cudaSuccess);
  for (size_t i = 0; i < streams; ++i) {
    EXPECT_EQ(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaEventCreate(&start[i]), cudaSuccess);
    EXPECT_EQ(cudaEventCreate(&stop[i]), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&out[i], sizeof(int) * kBlock * blocks_per_stream[i]), cudaSuccess);
  }
  EXPECT_EQ(cudaMemsetAsync(gate_memory, 0, gate_bytes, gate), cudaSuccess);
  EXPECT_EQ(cudaEventRecord(open, gate), cudaSuccess);
  for (size_t i = 0; i < streams; ++i) {
    EXPECT_EQ(cudaStreamWaitEvent(s[i], open, 0), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(start[i], s[i]), cudaSuccess);
    fill<<<blocks_per_stream[i], kBlock, 0, s[i]>>>(out[i], static_cast<int>(i) + 1);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(stop[i], s[i]), cudaSuccess);
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> times;
  for (size_t i = 0; i < streams; ++i) {
    float ms = -1;
    EXPECT_EQ(cudaEventElapsedTime(&ms, open, start[i]), cudaSuccess);
    times.push_back(ms * 1000);
    EXPECT_EQ(cudaEventElapsedTime(&ms, open, stop[i]), cudaSuccess);
    times.push_back(ms * 1000);
    std::vector<int> host(static_cast<size_t>(kBlock) * blocks_per_stream[i]);
    EXPECT_EQ(cudaMemcpy(host.data(), out[i], host.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    int wrong = 0;
    for (int v : host) wrong += v != static_cast<int>(i) + 1;
    EXPECT_EQ(wrong, 0) << "stream " << i;
    cudaFree(out[i]);
    cudaEventDestroy(start[i]);
    cudaEventDestroy(stop[i]);
    cudaStreamDestroy(s[i]);
  }
  cudaFree(gate_memory);
  cudaEventDestroy(open);
  cudaStreamDestroy(gate);
  return times;
}

// After the event that holds them, each stream's start event lands at 0.1 us (the PBDMA's fetch
// of its segment, docs/timing.md), its kernel runs from 0.2 us for 1.2 us + one wave of 0.8 us
// when the SMs have room, and its stop event follows 0.1 us after the kernel (the next fetch).
constexpr float kStartUs = 0.1f, kGridUs = 2.0f, kAloneEndUs = 2.3f;

TEST_F(ConcurrencyKernels, FourSmallGridsOfFourStreamsRunTogether) {
  std::vector<float> t = run_held({4, 4, 4, 4});
  ASSERT_EQ(t.size(), 8u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(t[2 * i], kStartUs, 1e-3) << "stream " << i;
    EXPECT_NEAR(t[2 * i + 1], kAloneEndUs, 1e-3) << "stream " << i << " waited for another's grid";
  }
}

TEST_F(ConcurrencyKernels, AGridFillingEverySmAndASmallOneTakeTurns) {
  std::vector<float> t = run_held({kFullBlocks, 4});
  ASSERT_EQ(t.size(), 4u);
  EXPECT_NEAR(t[0], kStartUs, 1e-3);
  EXPECT_NEAR(t[1], kAloneEndUs, 1e-3);
  EXPECT_NEAR(t[2], kStartUs, 1e-3);
  EXPECT_NEAR(t[3], kAloneEndUs + kGridUs, 1e-3);  // no SM had room beside the full grid
  // Two full grids: one after the other.
  std::vector<float> two = run_held({kFullBlocks, kFullBlocks});
  EXPECT_NEAR(two[1], kAloneEndUs, 1e-3);
  EXPECT_NEAR(two[3], kAloneEndUs + kGridUs, 1e-3);
  // Half of every SM each (4 blocks of 256 threads on each of the 132): two fit, a third waits.
  std::vector<float> halves = run_held({132 * 4, 132 * 4, 132 * 4});
  EXPECT_NEAR(halves[1], kAloneEndUs, 1e-3);
  EXPECT_NEAR(halves[3], kAloneEndUs, 1e-3);
  EXPECT_NEAR(halves[5], kAloneEndUs + kGridUs, 1e-3);
}

TEST_F(ConcurrencyKernels, TheSameTimesOnEveryRepetition) {
  const std::vector<int> mix = {4, kFullBlocks, 132 * 4, 1, 300};
  const std::vector<float> first = run_held(mix);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run_held(mix), first) << "repetition " << i;
}

}  // namespace
