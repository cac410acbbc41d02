// Region fission of template kernels (docs/tools/cu2cxx.md, "Region fission"): a kernel whose
// template parameters are non-type constants is split like a plain one; its block function is a
// template too, and the instantiation launched runs through it (registered at its first launch).
// So is a kernel that synchronises through its cooperative-groups block handle, advances its
// pointer parameters per thread and holds barriers in a nested { } block.
// The shapes are those of tiled multiplies and sorting networks: `__shared__` tiles declared in
// the body of a loop around barriers, loop bounds from template parameters, compare-exchange
// loops nested two deep with a per-thread local across their barriers. Each result is checked
// against a host computation; the whole binary also runs with MINICUDA_FISSION=0 (fibers) and
// under MINICUDA_FISSION=check (the fission gate), where the same checks hold.
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "fission_test.h"
#include "kernel_test.h"
#include "minicuda/trace.h"

// C = A x B for n x n matrices, n a multiple of TILE: per block one TILE x TILE tile of C, the
// tiles of A and B staged in shared memory declared inside the loop, as NVIDIA's matrixMul does.
template <int TILE>
__global__ void fission_tiled_template(float* c, const float* a, const float* b, int n) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int first = n * TILE * blockIdx.y, last = first + n - 1, step = TILE;
  float sum = 0;
  for (int ia = first, ib = TILE * blockIdx.x; ia <= last; ia += step, ib += step * n) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    as[ty][tx] = a[ia + n * ty + tx];
    bs[ty][tx] = b[ib + n * ty + tx];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Sorts each run of 2 * THREADS keys with a bitonic network in shared memory: every thread
// compares and exchanges one pair per step; `descending` (per thread, from its index) lives
// across the barriers of the inner loop; a final merge sorts the whole run ascending. (Names
// declared at two split levels must differ, or the kernel keeps fibers: `half`, `at`.)
template <unsigned THREADS>
__global__ void fission_bitonic_template(unsigned* keys) {
  constexpr unsigned kRun = 2 * THREADS;
  __shared__ unsigned s[kRun];
  unsigned* const run = keys + blockIdx.x * kRun;
  s[threadIdx.x] = run[threadIdx.x];
  s[threadIdx.x + THREADS] = run[threadIdx.x + THREADS];
  for (unsigned size = 2; size < kRun; size <<= 1) {
    const bool descending = (threadIdx.x & (size / 2)) != 0;
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      if ((s[pos] > s[pos + stride]) != descending) {
        const unsigned t = s[pos];
        s[pos] = s[pos + stride];
        s[pos + stride] = t;
      }
    }
  }
  for (unsigned half = THREADS; half > 0; half >>= 1) {
    __syncthreads();
    const unsigned at = 2 * threadIdx.x - (threadIdx.x & (half - 1));
    if (s[at] > s[at + half]) {
      const unsigned t = s[at];
      s[at] = s[at + half];
      s[at + half] = t;
    }
  }
  __syncthreads();
  run[threadIdx.x] = s[threadIdx.x];
  run[threadIdx.x + THREADS] = s[threadIdx.x + THREADS];
}

namespace cg = cooperative_groups;

// One compare-exchange: the pair ends up in order `up` (ascending when true).
__device__ void fission_order_pair(unsigned& a, unsigned& b, bool up) {
  if ((a > b) == up) {
    const unsigned t = a;
    a = b;
    b = t;
  }
}

// The same sort as fission_bitonic_template, written as NVIDIA's sortingNetworks writes it: the
// block synchronises through `cg::sync(cta)` and `cta.sync()`, the pointer parameters are moved
// to the thread's own pair first, and the final merge sits in a nested block.
template <unsigned THREADS>
__global__ void fission_bitonic_cg(unsigned* dst, const unsigned* src) {
  cg::thread_block cta = cg::this_thread_block();
  constexpr unsigned kRun = 2 * THREADS;
  __shared__ unsigned s[kRun];
  src += blockIdx.x * kRun + threadIdx.x;
  dst += blockIdx.x * kRun + threadIdx.x;
  s[threadIdx.x] = src[0];
  s[threadIdx.x + THREADS] = src[THREADS];
  for (unsigned size = 2; size < kRun; size <<= 1) {
    const bool up = (threadIdx.x & (size / 2)) == 0;
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      cg::sync(cta);
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      fission_order_pair(s[pos], s[pos + stride], up);
    }
  }
  {
    for (unsigned half = THREADS; half > 0; half >>= 1) {
      cta.sync();
      const unsigned at = 2 * threadIdx.x - (threadIdx.x & (half - 1));
      fission_order_pair(s[at], s[at + half], true);
    }
  }
  cg::sync(cta);
  dst[0] = s[threadIdx.x];
  dst[THREADS] = s[threadIdx.x + THREADS];
}

namespace minicuda::kernels_test {
namespace {

class FissionTemplates : public FreshProcess {};

// Small integers: every product and partial sum is exact in float, whatever the order.
std::vector<float> small_ints(int count, int seed) {
  std::vector<float> v(count);
  for (int i = 0; i < count; ++i) v[i] = static_cast<float>((i * 7 + seed) % 11 - 5);
  return v;
}

template <int TILE>
void check_tiled(int n) {
  const std::vector<float> a = small_ints(n * n, 3), b = small_ints(n * n, 8);
  DeviceArray<float> da(a), db(b), dc(n * n);
  const std::string name = "fission_tiled_template<" + std::to_string(TILE) + ">";
  EXPECT_EQ(mode_of(name,
                    [&] {
                      fission_tiled_template<TILE><<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(dc.get(), da.get(),
                                                                                                  db.get(), n);
                    }),
            split_mode());
  const std::vector<float> c = dc.read();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int k = 0; k < n; ++k) want += a[i * n + k] * b[k * n + j];
      ASSERT_EQ(c[i * n + j], want) << TILE << ": (" << i << ", " << j << ")";
    }
}

TEST_F(FissionTemplates, TiledMultiplyWithTilesDeclaredInTheLoop) {
  check_tiled<8>(32);
  check_tiled<16>(48);
}

template <unsigned THREADS>
void check_bitonic(int runs) {
  const unsigned run = 2 * THREADS;
  std::vector<unsigned> keys(runs * run);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<unsigned>((i * 2654435761u) >> 7) % 1000;
  DeviceArray<unsigned> d(keys);
  const std::string name = "fission_bitonic_template<" + std::to_string(THREADS) + ">";
  EXPECT_EQ(mode_of(name, [&] { fission_bitonic_template<THREADS><<<runs, THREADS>>>(d.get()); }), split_mode());
  for (int r = 0; r < runs; ++r) std::sort(keys.begin() + r * run, keys.begin() + (r + 1) * run);
  EXPECT_EQ(d.read(), keys);
}

TEST_F(FissionTemplates, BitonicCompareExchangeLoopsSortEveryRun) {
  check_bitonic<32>(5);
  check_bitonic<128>(3);
}

TEST_F(FissionTemplates, CooperativeGroupsSyncAndParametersMovedPerThread) {
  constexpr unsigned kThreads = 64, kRuns = 4, kRun = 2 * kThreads;
  std::vector<unsigned> keys(kRuns * kRun);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<unsigned>((i * 40503u) >> 3) % 777;
  DeviceArray<unsigned> src(keys), dst(keys.size());
  EXPECT_EQ(mode_of("fission_bitonic_cg<64>", [&] { fission_bitonic_cg<kThreads><<<kRuns, kThreads>>>(dst.get(), src.get()); }),
            split_mode());
  EXPECT_EQ(src.read(), keys);
  for (unsigned r = 0; r < kRuns; ++r) std::sort(keys.begin() + r * kRun, keys.begin() + (r + 1) * kRun);
  EXPECT_EQ(dst.read(), keys);
}

}  // namespace
}  // namespace minicuda::kernels_test
