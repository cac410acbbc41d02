// Region fission of kernels whose barriers sit in __device__ functions (docs/tools/cu2cxx.md,
// "Barriers in device functions"): cu2cxx inlines the calls into the block function, so these
// kernels run as regions; each result is checked against the host, and the fission gate
// (tests/fission) runs every one of them both ways and compares the bytes.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "kernel_test.h"
#include "minicuda/trace.h"

namespace cg = cooperative_groups;

// An inclusive scan of one value per thread (blockDim.x a power of two, s holding 2 * blockDim.x),
// its barriers in a loop of the function, called through a block handle.
__device__ unsigned inline_scan_inclusive(unsigned v, volatile unsigned* s, unsigned size, cg::thread_block cta) {
  unsigned pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  s[pos] = 0;
  pos += size;
  s[pos] = v;
  for (unsigned offset = 1; offset < size; offset <<= 1) {
    cg::sync(cta);
    unsigned t = s[pos] + s[pos - offset];
    cg::sync(cta);
    s[pos] = t;
  }
  return s[pos];
}

// Nested: the call sits in an expression (`- v` reads a parameter the call cannot change).
__device__ unsigned inline_scan_exclusive(unsigned v, volatile unsigned* s, unsigned size, cg::thread_block cta) {
  return inline_scan_inclusive(v, s, size, cta) - v;
}

__device__ uint4 inline_scan4(uint4 v, volatile unsigned* s, unsigned size, cg::thread_block cta) {
  v.y += v.x;
  v.z += v.y;
  v.w += v.z;
  unsigned base = inline_scan_exclusive(v.w, s, size, cta);
  v.x += base;
  v.y += base;
  v.z += base;
  v.w += base;
  return v;
}

__global__ void inline_scan4_kernel(const uint4* in, uint4* out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ unsigned s[2 * 128];
  const unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
  uint4 v = in[pos];
  uint4 r = inline_scan4(v, s, blockDim.x, cta);
  out[pos] = r;
}

// __syncthreads() in a void function called as a statement, with a pointer parameter and a
// reference parameter (replaced by the caller's variable).
__device__ void inline_rotate(int* tile, int& value) {
  tile[threadIdx.x] = value;
  __syncthreads();
  value = tile[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
}

__device__ int inline_block_sum(int* tile, int v) {
  tile[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  int total = tile[0];
  __syncthreads();
  return total;
}

__global__ void inline_rotate_and_sum(const int* in, int* out, int* sums) {
  __shared__ int tile[256];
  int mine = in[blockIdx.x * blockDim.x + threadIdx.x];
  inline_rotate(tile, mine);
  inline_rotate(tile, mine);
  out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
  int total = 0;
  total += inline_block_sum(tile, mine);
  total = 2 * total + inline_block_sum(tile, 1);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

namespace minicuda::kernels_test {
namespace {

class KernelFissionInline : public FreshProcess {};

std::string ran_as(const trace::Recorder& recorder, const std::string& kernel) {
  const std::string key = kernel + " runs as ";
  for (const std::string& text : recorder.texts(trace::Layer::Gpu)) {
    const std::size_t at = text.find(key);
    if (at != std::string::npos) return text.substr(at + key.size(), text.find(' ', at + key.size()) - at - key.size());
  }
  return "";
}

std::string expected_mode() {
  const char* env = std::getenv("MINICUDA_FISSION");
  if (env != nullptr && std::string(env) == "0") return "fibers";
  if (env != nullptr && std::string(env) == "check") return "both";
  return "regions";
}

TEST_F(KernelFissionInline, NestedScanWithBarriersInDeviceFunctions) {
  constexpr unsigned blocks = 5, threads = 128;
  std::vector<unsigned> host(blocks * threads * 4);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned>((i * 2654435761u) % 1000u);
  DeviceArray<uint4> in(blocks * threads), out(blocks * threads);
  ASSERT_EQ(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice), cudaSuccess);
  trace::Recorder recorder;
  inline_scan4_kernel<<<blocks, threads>>>(in.get(), out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(ran_as(recorder, "inline_scan4_kernel"), expected_mode());
  std::vector<unsigned> got(host.size());
  ASSERT_EQ(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
  // Each block scans its 4 * threads values inclusively (the kernel's 4-wide scan).
  for (unsigned b = 0; b < blocks; ++b) {
    unsigned sum = 0;
    for (unsigned i = 0; i < 4 * threads; ++i) {
      sum += host[b * 4 * threads + i];
      ASSERT_EQ(got[b * 4 * threads + i], sum) << "block " << b << " element " << i;
    }
  }
}

TEST_F(KernelFissionInline, VoidCallsReferenceParametersAndAResultInAnExpression) {
  constexpr int blocks = 3, threads = 64;
  std::vector<int> host(blocks * threads);
  std::iota(host.begin(), host.end(), 7);
  DeviceArray<int> in(host), out(blocks * threads), sums(blocks);
  trace::Recorder recorder;
  inline_rotate_and_sum<<<blocks, threads>>>(in.get(), out.get(), sums.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(ran_as(recorder, "inline_rotate_and_sum"), expected_mode());
  std::vector<int> want_out(blocks * threads), want_sums(blocks);
  for (int b = 0; b < blocks; ++b) {
    int total = 0;
    for (int t = 0; t < threads; ++t) {
      want_out[b * threads + t] = host[b * threads + (t + 2) % threads];
      total += host[b * threads + t];
    }
    want_sums[b] = 2 * total + threads;
  }
  EXPECT_EQ(out.read(), want_out);
  EXPECT_EQ(sums.read(), want_sums);
}

}  // namespace
}  // namespace minicuda::kernels_test
