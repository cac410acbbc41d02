// CUDA dynamic parallelism (CDP2): kernels that launch kernels (docs/dynamic-parallelism.md).
// A parent grid completes after its children; children see what the parent wrote before the
// launch; recursion past depth 24 (as on the H200) to the simulator's cap; tail launches
// after every other child; the device runtime's errors through cudaGetLastError in device code;
// the pending-launch limit; a child's fault fails the host's wait; and the order children run
// in does not depend on how many host threads run the SMs.
#include <cuda_runtime.h>

#include <vector>

#include "kernel_test.h"
#include "minicuda/trace.h"

namespace {

using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

class DynamicParallelism : public FreshProcess {};

// Appends `tag` to a log (log[0] is the count).
__device__ void log_tag(int* log, int tag) {
  const int i = atomicAdd(&log[0], 1);
  log[1 + i] = tag;
}

__global__ void child_doubles(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

// Writes the input, then launches a child that reads it: the child sees the parent's writes.
__global__ void parent_fills_then_launches(int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) in[i] = i + 1;
  __syncthreads();
  if (threadIdx.x == 0) child_doubles<<<1, blockDim.x>>>(in + blockIdx.x * blockDim.x, out + blockIdx.x * blockDim.x,
                                                       n - static_cast<int>(blockIdx.x * blockDim.x));
}

TEST_F(DynamicParallelism, ParentCompletesAfterItsChildrenWhichSeeItsWrites) {
  const int n = 1000;
  DeviceArray<int> in(n), out(n);
  parent_fills_then_launches<<<4, 256>>>(in.get(), out.get(), n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> got = out.read();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 2 * (i + 1)) << i;
}

TEST_F(DynamicParallelism, TheTraceShowsEachDeviceSideLaunchAndItsSpan) {
  DeviceArray<int> in(64), out(64);
  minicuda::trace::Recorder rec;
  parent_fills_then_launches<<<1, 64>>>(in.get(), out.get(), 64);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::string launch_line, span_line;
  for (const std::string& t : rec.texts(minicuda::trace::Layer::Gpu)) {
    if (t.find("device-side launch (depth 1) of ") != std::string::npos) launch_line = t;
    if (t.find("child_doubles (device-side launch, depth 1) ran t=") != std::string::npos) span_line = t;
  }
  EXPECT_NE(launch_line.find("child_doubles grid (1,1,1) block (64,1,1), 0 B dynamic shared, stream NULL: launched by "
                             "parent_fills_then_launches block (0,0,0) thread (0,0,0)"),
            std::string::npos)
      << rec.tree();
  EXPECT_FALSE(span_line.empty()) << rec.tree();
}

// Each level records the error of launching the next one.
__global__ void recurse(int depth, int max_depth, int* errors) {
  if (depth >= max_depth) return;
  recurse<<<1, 1>>>(depth + 1, max_depth, errors);
  errors[depth] = cudaGetLastError();
}

TEST_F(DynamicParallelism, RecursionPassesDepth24AsOnTheH200AndStopsAtTheSimulatorsCap) {
  // The H200 accepted launches at depth 24 to 29 (tests/data/h200/cdp/out/probe_cdp.txt).
  DeviceArray<int> errors(300, 0xff);
  recurse<<<1, 1>>>(0, 40, errors.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> got = errors.read();
  for (int d = 0; d < 40; ++d) EXPECT_EQ(got[d], cudaSuccess) << "depth " << d;
  EXPECT_EQ(got[40], -1);  // depth 40 launched nothing
  // The simulator's cap (device_launch_queue.h): a grid at depth 256 cannot launch.
  recurse<<<1, 1>>>(0, 299, errors.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  got = errors.read();
  for (int d = 0; d < 256; ++d) ASSERT_EQ(got[d], cudaSuccess) << "depth " << d;
  EXPECT_EQ(got[256], cudaErrorLaunchMaxDepthExceeded);
  EXPECT_EQ(got[257], -1);  // depth 257 never ran
}

__global__ void tag_kernel(int* log, int tag) { log_tag(log, tag); }

__global__ void tag_then_launch(int* log, int tag) {
  log_tag(log, tag);
  tag_kernel<<<1, 1>>>(log, tag * 10);
}

__global__ void launches_every_kind(int* log) {
  tag_kernel<<<1, 1, 0, cudaStreamTailLaunch>>>(log, 100);
  tag_kernel<<<1, 1, 0, cudaStreamTailLaunch>>>(log, 101);
  tag_then_launch<<<1, 1>>>(log, 1);
  tag_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(log, 2);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  tag_kernel<<<1, 1, 0, s>>>(log, 3);
  cudaStreamDestroy(s);
  log_tag(log, 0);
}

TEST_F(DynamicParallelism, TailLaunchesRunAfterTheParentAndAllItsOtherWork) {
  DeviceArray<int> log(16);
  launches_every_kind<<<1, 1>>>(log.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> got = log.read();
  ASSERT_EQ(got[0], 7);
  // The parent's own tag first (children start after its blocks here), the children in launch
  // order (a child's child before the next child), the tail launches last, in their order.
  EXPECT_EQ(std::vector<int>(got.begin() + 1, got.begin() + 8), (std::vector<int>{0, 1, 10, 2, 3, 100, 101}));
}

__global__ void empty_kernel() {}

__global__ void bad_launches(int* errors) {
  empty_kernel<<<1, 2048>>>();
  errors[0] = cudaPeekAtLastError();  // not cleared
  errors[1] = cudaGetLastError();     // cleared
  errors[2] = cudaGetLastError();
  empty_kernel<<<0, 32>>>();
  errors[3] = cudaGetLastError();
  empty_kernel<<<dim3(1, 70000), 1>>>();
  errors[4] = cudaGetLastError();
  empty_kernel<<<1, 32, 64 * 1024>>>();
  errors[5] = cudaGetLastError();
  cudaStream_t s;
  errors[6] = cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  errors[7] = cudaGetLastError();
  errors[8] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  errors[9] = cudaStreamDestroy(s);
  empty_kernel<<<1, 1, 0, s>>>();  // a destroyed stream
  errors[10] = cudaGetLastError();
  errors[11] = cudaStreamDestroy(s);
  errors[12] = cudaGetLastError();  // the failed destroy's; a later success does not clear it
  empty_kernel<<<1, 1>>>();
  errors[13] = cudaGetLastError();
}

TEST_F(DynamicParallelism, BadLaunchesAreTheCallersLastErrorInDeviceCode) {
  DeviceArray<int> errors(16, 0xff);
  bad_launches<<<1, 1>>>(errors.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the parent itself did not fail
  const std::vector<int> e = errors.read();
  EXPECT_EQ(e[0], cudaErrorInvalidConfiguration);
  EXPECT_EQ(e[1], cudaErrorInvalidConfiguration);
  EXPECT_EQ(e[2], cudaSuccess);
  EXPECT_EQ(e[3], cudaErrorInvalidConfiguration);
  EXPECT_EQ(e[4], cudaErrorInvalidConfiguration);
  EXPECT_EQ(e[5], cudaErrorInvalidValue);
  EXPECT_EQ(e[6], cudaErrorInvalidValue);
  EXPECT_EQ(e[7], cudaErrorInvalidValue);
  EXPECT_EQ(e[8], cudaSuccess);
  EXPECT_EQ(e[9], cudaSuccess);
  EXPECT_EQ(e[10], cudaErrorInvalidResourceHandle);
  EXPECT_EQ(e[11], cudaErrorInvalidResourceHandle);
  EXPECT_EQ(e[12], cudaErrorInvalidResourceHandle);
  EXPECT_EQ(e[13], cudaSuccess);
}

__global__ void count_kernel(int* counter) { atomicAdd(counter, 1); }

__global__ void many_children(int n, int* counter, int* first_failure) {
  *first_failure = -1;
  for (int i = 0; i < n; ++i) {
    count_kernel<<<1, 1>>>(counter);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      first_failure[0] = i;
      first_failure[1] = e;
      return;
    }
  }
}

TEST_F(DynamicParallelism, PendingLaunchesBeyondTheLimitFail) {
  size_t limit = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount), cudaSuccess);
  ASSERT_EQ(limit, 2048u);
  DeviceArray<int> counter(1), failure(2);
  many_children<<<1, 1>>>(3000, counter.get(), failure.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(failure.read(), (std::vector<int>{2048, cudaErrorLaunchPendingCountExceeded}));
  EXPECT_EQ(counter.read()[0], 2048);  // the accepted children all ran
  // Completed children are no longer pending: the next grid may launch as many again.
  many_children<<<1, 1>>>(2048, counter.get(), failure.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(failure.read()[0], -1);
  EXPECT_EQ(counter.read()[0], 4096);
  // The context's limit reaches the device with the launch (QMD bank 3).
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 100), cudaSuccess);
  many_children<<<1, 1>>>(3000, counter.get(), failure.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(failure.read(), (std::vector<int>{100, cudaErrorLaunchPendingCountExceeded}));
  EXPECT_EQ(counter.read()[0], 4196);
}

__global__ void faulting_child(int* p) { *p = 1; }
__global__ void launches_a_faulting_child(int* after) {
  faulting_child<<<1, 1>>>(nullptr);
  *after = cudaGetLastError() == cudaSuccess ? 1 : 2;  // the launch itself is fine
}

TEST_F(DynamicParallelism, AChildsFaultIsTheParentsError) {
  DeviceArray<int> after(1);
  launches_a_faulting_child<<<1, 1>>>(after.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
}

// Every block launches a child that logs the block: the children run by launching block, in the
// order each block launched them, however many host threads ran the parent's blocks.
__global__ void log_pair(int* log, int block, int k) { log_tag(log, block * 10 + k); }
__global__ void each_block_launches(int* log) {
  if (threadIdx.x == 0) log_pair<<<1, 1>>>(log, blockIdx.x, 0);
  __syncthreads();
  if (threadIdx.x == 31) log_pair<<<1, 1>>>(log, blockIdx.x, 1);
}

TEST_F(DynamicParallelism, ChildrenRunInAnOrderThatDoesNotDependOnHostThreads) {
  const int blocks = 64;
  DeviceArray<int> log(1 + 2 * blocks);
  each_block_launches<<<blocks, 64>>>(log.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<int> got = log.read();
  ASSERT_EQ(got[0], 2 * blocks);
  for (int b = 0; b < blocks; ++b) {
    EXPECT_EQ(got[1 + 2 * b], b * 10) << b;
    EXPECT_EQ(got[2 + 2 * b], b * 10 + 1) << b;
  }
}

}  // namespace
