// Warp intrinsics with partial masks and divergent lanes (device_sim/src/sm_warp.cpp): votes with
// any non-zero predicate, __activemask per branch, __match_any_sync / __match_all_sync (32- and
// 64-bit, float, double), __reduce_*_sync (unsigned and int), __syncwarp with a partial mask, and
// shuffles within segments of `width` lanes with PTX's rules for out-of-segment sources.
#include <cuda_runtime.h>

#include <bit>
#include <climits>
#include <cstdint>
#include <vector>

#include "kernel_test.h"

namespace {
constexpr unsigned kFull = 0xffffffffu;
}

// --- kernels --------------------------------------------------------------------------------

// Every lane votes with the same predicate p (non-zero values other than 1).
__global__ void votes_with_predicate(unsigned* out, int p) {
  const unsigned t = threadIdx.x;
  out[3 * t] = static_cast<unsigned>(__all_sync(kFull, p));
  out[3 * t + 1] = static_cast<unsigned>(__any_sync(kFull, p));
  out[3 * t + 2] = __ballot_sync(kFull, p);
}

// Lane l votes with predicate l % 3 ? big : 0 (big non-zero), over the lanes of the even half.
__global__ void votes_partial_mask(unsigned* out, int big) {
  const unsigned lane = threadIdx.x % 32;
  if (lane % 2 != 0) return;
  const int p = lane % 3 != 0 ? big : 0;
  out[3 * lane] = static_cast<unsigned>(__all_sync(0x55555555u, p));
  out[3 * lane + 1] = static_cast<unsigned>(__any_sync(0x55555555u, p));
  out[3 * lane + 2] = __ballot_sync(0x55555555u, p);
}

// Three branches of one warp, each asks for its active mask and votes over it.
__global__ void activemask_three_ways(unsigned* masks, unsigned* ballots) {
  const unsigned lane = threadIdx.x % 32;
  unsigned m = 0;
  if (lane < 5) {
    m = __activemask();
  } else if (lane % 2 == 0) {
    m = __activemask();
  } else {
    m = __activemask();
  }
  masks[threadIdx.x] = m;
  ballots[threadIdx.x] = __ballot_sync(m, lane & 1);
}

template <class T>
__global__ void match_kernel(const T* values, unsigned* any_out, unsigned* all_out, int* pred_out, unsigned mask) {
  const unsigned lane = threadIdx.x % 32;
  if (!((mask >> lane) & 1)) return;
  any_out[lane] = __match_any_sync(mask, values[lane]);
  int pred = -1;
  all_out[lane] = __match_all_sync(mask, values[lane], &pred);
  pred_out[lane] = pred;
}

__global__ void reduce_kernel(const int* values, unsigned* uout, int* iout, unsigned mask) {
  const unsigned lane = threadIdx.x % 32;
  if (!((mask >> lane) & 1)) return;
  const int v = values[lane];
  const auto u = static_cast<unsigned>(v);
  unsigned* o = uout + lane * 6;
  o[0] = __reduce_add_sync(mask, u);
  o[1] = __reduce_min_sync(mask, u);
  o[2] = __reduce_max_sync(mask, u);
  o[3] = __reduce_and_sync(mask, u);
  o[4] = __reduce_or_sync(mask, u);
  o[5] = __reduce_xor_sync(mask, u);
  int* io = iout + lane * 3;
  io[0] = __reduce_add_sync(mask, v);
  io[1] = __reduce_min_sync(mask, v);
  io[2] = __reduce_max_sync(mask, v);
}

// Lanes 0..15 exchange through shared memory behind __syncwarp(0xffff) while lanes 16..31 are at
// a __syncthreads: the partial-mask barrier must not wait for them.
__global__ void syncwarp_partial(int* out) {
  __shared__ int s[32];
  const unsigned lane = threadIdx.x;
  if (lane < 16) {
    s[lane] = static_cast<int>(lane) * 7;
    __syncwarp(0x0000ffffu);
    out[lane] = s[15 - lane];
  }
  __syncthreads();
}

// Shuffles in segments of 8 with sources outside the segment (own value) and delta >= 32 (5 bits).
__global__ void shfl_width_edges(int* out) {
  const int t = threadIdx.x;
  const int v = 100 + t;
  int* o = out + t * 4;
  o[0] = __shfl_down_sync(kFull, v, 6, 8);   // past the segment's end: own
  o[1] = __shfl_up_sync(kFull, v, 3, 8);     // before its start: own
  o[2] = __shfl_down_sync(kFull, v, 33, 32); // delta taken modulo 32: 1
  o[3] = __shfl_sync(kFull, v, -1, 8);       // lane -1: the segment's last lane
}

// A shuffle inside a divergent branch over the branch's own mask.
__global__ void shfl_divergent(int* out) {
  const unsigned lane = threadIdx.x % 32;
  if (lane >= 8 && lane < 24) {
    const unsigned m = __activemask();
    out[threadIdx.x] = __shfl_down_sync(m, static_cast<int>(lane), 4);
  } else {
    out[threadIdx.x] = -1;
  }
}

namespace minicuda::kernels_test {
namespace {

class KernelWarpIntrinsics : public FreshProcess {};

TEST_F(KernelWarpIntrinsics, VotePredicateIsAnyNonZeroValue) {
  for (int p : {2, 0x100, static_cast<int>(0xFFFFFFFFu), -7, INT_MIN}) {
    DeviceArray<unsigned> out(64 * 3, 0xff);
    votes_with_predicate<<<1, 64>>>(out.get(), p);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned> h = out.read();
    for (int t = 0; t < 64; ++t) {
      EXPECT_EQ(h[3 * t], 1u) << "all, p=" << p << " t=" << t;
      EXPECT_EQ(h[3 * t + 1], 1u) << "any, p=" << p << " t=" << t;
      EXPECT_EQ(h[3 * t + 2], kFull) << "ballot, p=" << p << " t=" << t;
    }
  }
  DeviceArray<unsigned> out(32 * 3, 0xff);
  votes_with_predicate<<<1, 32>>>(out.get(), 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(h[3 * t] + h[3 * t + 1] + h[3 * t + 2], 0u) << t;
}

TEST_F(KernelWarpIntrinsics, VotesOverPartialMask) {
  for (int big : {1, 0x100, -1}) {
    DeviceArray<unsigned> out(32 * 3, 0xff);
    votes_partial_mask<<<1, 32>>>(out.get(), big);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned> h = out.read();
    unsigned want = 0;
    for (unsigned l = 0; l < 32; l += 2)
      if (l % 3 != 0) want |= 1u << l;
    for (unsigned l = 0; l < 32; l += 2) {
      EXPECT_EQ(h[3 * l], 0u) << l;  // lanes 0, 6, ... vote 0
      EXPECT_EQ(h[3 * l + 1], 1u) << l;
      EXPECT_EQ(h[3 * l + 2], want) << l;
    }
  }
}

TEST_F(KernelWarpIntrinsics, ActivemaskIsTheLanesOfTheBranch) {
  DeviceArray<unsigned> masks(64, 0xff), ballots(64, 0xff);
  activemask_three_ways<<<1, 64>>>(masks.get(), ballots.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> m = masks.read(), b = ballots.read();
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32;
    const unsigned want = lane < 5 ? 0x1fu : lane % 2 == 0 ? 0x55555555u & ~0x1fu : 0xaaaaaaaau & ~0x1fu;
    EXPECT_EQ(m[t], want) << t;
    EXPECT_EQ(b[t], want & 0xaaaaaaaau) << t;
  }
}

template <class T>
void check_match(const std::vector<T>& values, unsigned mask) {
  DeviceArray<T> d(values);
  DeviceArray<unsigned> any(32, 0xff), all(32, 0xff);
  DeviceArray<int> pred(32, 0xff);
  match_kernel<T><<<1, 32>>>(d.get(), any.get(), all.get(), pred.get(), mask);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> a = any.read(), l = all.read();
  std::vector<int> p = pred.read();
  bool same = true;
  unsigned first = std::countr_zero(mask);
  for (unsigned j = 0; j < 32; ++j)
    if ((mask >> j) & 1 && bits_of(static_cast<double>(values[j])) != bits_of(static_cast<double>(values[first])))
      same = false;
  for (unsigned i = 0; i < 32; ++i) {
    if (!((mask >> i) & 1)) continue;
    unsigned want = 0;
    for (unsigned j = 0; j < 32; ++j)
      if ((mask >> j) & 1 && values[j] == values[i]) want |= 1u << j;
    EXPECT_EQ(a[i], want) << i;
    EXPECT_EQ(l[i], same ? mask : 0u) << i;
    EXPECT_EQ(p[i], same ? 1 : 0) << i;
  }
}

TEST_F(KernelWarpIntrinsics, MatchAnyAndAllOverEveryType) {
  std::vector<unsigned> u(32);
  std::vector<long long> ll(32);
  std::vector<double> d(32);
  std::vector<float> f(32);
  for (int i = 0; i < 32; ++i) {
    u[i] = static_cast<unsigned>(i % 5);
    ll[i] = (i % 3) * (1LL << 40);  // differ only above bit 31
    d[i] = (i % 4) * 0.5;
    f[i] = static_cast<float>(i % 2);
  }
  check_match(u, kFull);
  check_match(u, 0x00ff00ffu);
  check_match(ll, kFull);
  check_match(d, 0xf0f0f0f0u);
  check_match(f, kFull);
  check_match(std::vector<int>(32, -3), kFull);               // all equal
  check_match(std::vector<unsigned long long>(32, 7), 0x11u);  // all equal, two lanes
}

TEST_F(KernelWarpIntrinsics, ReduceUnsignedAndSigned) {
  std::vector<int> values(32);
  for (int i = 0; i < 32; ++i) values[i] = (i * 37 % 19) - 9 + (i == 7 ? INT_MIN / 2 : 0);
  for (unsigned mask : {kFull, 0x0000ffffu, 0x80000001u, 0x00000004u}) {
    DeviceArray<int> d(values);
    DeviceArray<unsigned> u(32 * 6, 0xff);
    DeviceArray<int> s(32 * 3, 0xff);
    reduce_kernel<<<1, 32>>>(d.get(), u.get(), s.get(), mask);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<unsigned> hu = u.read();
    std::vector<int> hs = s.read();
    unsigned add = 0, umin = ~0u, umax = 0, uand = ~0u, uor = 0, uxor = 0;
    int smin = INT_MAX, smax = INT_MIN;
    for (unsigned l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1)) continue;
      const auto x = static_cast<unsigned>(values[l]);
      add += x, umin = std::min(umin, x), umax = std::max(umax, x), uand &= x, uor |= x, uxor ^= x;
      smin = std::min(smin, values[l]), smax = std::max(smax, values[l]);
    }
    for (unsigned l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1)) continue;
      EXPECT_EQ(hu[l * 6 + 0], add) << l;
      EXPECT_EQ(hu[l * 6 + 1], umin) << l;
      EXPECT_EQ(hu[l * 6 + 2], umax) << l;
      EXPECT_EQ(hu[l * 6 + 3], uand) << l;
      EXPECT_EQ(hu[l * 6 + 4], uor) << l;
      EXPECT_EQ(hu[l * 6 + 5], uxor) << l;
      EXPECT_EQ(hs[l * 3 + 0], static_cast<int>(add)) << l;
      EXPECT_EQ(hs[l * 3 + 1], smin) << l;
      EXPECT_EQ(hs[l * 3 + 2], smax) << l;
    }
  }
}

TEST_F(KernelWarpIntrinsics, SyncwarpWithPartialMaskDoesNotWaitForOtherLanes) {
  DeviceArray<int> out(16, 0xff);
  syncwarp_partial<<<1, 32>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int l = 0; l < 16; ++l) EXPECT_EQ(h[l], (15 - l) * 7) << l;
}

TEST_F(KernelWarpIntrinsics, ShuffleSourcesOutsideTheSegment) {
  DeviceArray<int> out(64 * 4, 0xff);
  shfl_width_edges<<<1, 64>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32, v = 100 + t;
    EXPECT_EQ(h[t * 4 + 0], lane % 8 + 6 < 8 ? v + 6 : v) << t;
    EXPECT_EQ(h[t * 4 + 1], lane % 8 >= 3 ? v - 3 : v) << t;
    EXPECT_EQ(h[t * 4 + 2], lane + 1 < 32 ? v + 1 : v) << t;
    EXPECT_EQ(h[t * 4 + 3], 100 + t / 8 * 8 + 7) << t;
  }
}

TEST_F(KernelWarpIntrinsics, ShuffleInsideDivergentBranch) {
  DeviceArray<int> out(32, 0xff);
  shfl_divergent<<<1, 32>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int l = 0; l < 32; ++l) {
    if (l < 8 || l >= 24) {
      EXPECT_EQ(h[l], -1) << l;
    } else if (l < 20) {
      EXPECT_EQ(h[l], l + 4) << l;  // 20..23 would read lanes outside the mask: undefined
    }
  }
}

}  // namespace
}  // namespace minicuda::kernels_test
