// The cache-hint loads and stores (sm_32_intrinsics.h) on each kind of type the toolkit overloads
// them for, and __nanosleep (crt/sm_70_rt.h) against the SM's cycle counter, read with clock64() and
// with device-side clock() (cu2cxx's rewrite).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernel_test.h"

namespace {

struct Mixed {
  int i;
  unsigned u;
  long long ll;
  unsigned long long ull;
  float f;
  double d;
  __half h;
  short s;
  signed char c;
  unsigned char uc;
  unsigned short us;
  __half2 h2;
  int2 i2;
  float2 f2;
  float4 f4;
  double2 d2;
  uint4 u4;
};

// Each field goes through a different load (of the six) and a different store (of the four).
template <class T>
__device__ void copy_field(const T* in, T* out, int k) {
  T v;
  switch (k % 6) {
    case 0: v = __ldg(in); break;
    case 1: v = __ldcg(in); break;
    case 2: v = __ldca(in); break;
    case 3: v = __ldcs(in); break;
    case 4: v = __ldlu(in); break;
    default: v = __ldcv(in); break;
  }
  switch (k % 4) {
    case 0: __stwb(out, v); break;
    case 1: __stcg(out, v); break;
    case 2: __stcs(out, v); break;
    default: __stwt(out, v); break;
  }
}

}  // namespace

__global__ void cache_hint_copy(const Mixed* in, Mixed* out) {
  const int k = static_cast<int>(threadIdx.x);  // every thread copies every field with its own hints
  Mixed* o = out + k;
  copy_field(&in->i, &o->i, k + 0);
  copy_field(&in->u, &o->u, k + 1);
  copy_field(&in->ll, &o->ll, k + 2);
  copy_field(&in->ull, &o->ull, k + 3);
  copy_field(&in->f, &o->f, k + 4);
  copy_field(&in->d, &o->d, k + 5);
  copy_field(&in->h, &o->h, k + 6);
  copy_field(&in->s, &o->s, k + 7);
  copy_field(&in->c, &o->c, k + 8);
  copy_field(&in->uc, &o->uc, k + 9);
  copy_field(&in->us, &o->us, k + 10);
  copy_field(&in->h2, &o->h2, k + 11);
  copy_field(&in->i2, &o->i2, k + 12);
  copy_field(&in->f2, &o->f2, k + 13);
  copy_field(&in->f4, &o->f4, k + 14);
  copy_field(&in->d2, &o->d2, k + 15);
  copy_field(&in->u4, &o->u4, k + 16);
  __stcg(&o->i, __ldcv(&o->i) + 0);  // a literal converts to the pointee type
}

__global__ void sleep_for(unsigned ns, long long* cycles) {
  const long long start = clock64();
  const clock_t start32 = clock();  // the 32-bit cycle counter in device code (cu2cxx), not libc's
  __nanosleep(ns);
  const clock_t end32 = clock();
  cycles[0] = clock64() - start;
  cycles[1] = static_cast<unsigned>(end32 - start32);  // modulo 2^32, as the counter wraps
}

namespace minicuda::kernels_test {
namespace {

class KernelCacheHints : public FreshProcess {};

TEST_F(KernelCacheHints, EveryLoadAndStoreMovesEveryTypeExactly) {
  Mixed m;
  std::memset(&m, 0, sizeof m);  // padding too: the whole struct is compared
  m.i = -123456789, m.u = 0xdeadbeefu, m.ll = -(1ll << 50) - 7, m.ull = 0xfedcba9876543210ull;
  m.f = 3.25f, m.d = -1.0 / 3.0, m.h = __float2half(0.1f), m.s = -32000, m.c = -100, m.uc = 250;
  m.us = 65000, m.h2 = __floats2half2_rn(1.5f, -2.5f), m.i2 = make_int2(7, -8);
  m.f2 = make_float2(0.5f, 1e-30f), m.f4 = make_float4(1, 2, 3, 4), m.d2 = make_double2(1e300, -0.0);
  m.u4 = uint4{1u, 2u, 3u, 0xffffffffu};
  constexpr int kThreads = 24;  // each field meets each of the 6 x 4 load/store pairs
  DeviceArray<Mixed> in(std::vector<Mixed>{m});
  DeviceArray<Mixed> out(kThreads);
  cache_hint_copy<<<1, kThreads>>>(in.get(), out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<Mixed> got = out.read();
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(std::memcmp(&got[t], &m, sizeof(Mixed)), 0);
  }
}

TEST_F(KernelCacheHints, NanosleepWaitsOnTheCycleCounterUpToAMillisecond) {
  DeviceArray<long long> cycles(2);
  sleep_for<<<1, 1>>>(100000, cycles.get());  // 100 us: 198000 cycles at 1.98 GHz
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const long long short_sleep = cycles.read()[0];
  EXPECT_GE(short_sleep, 198000);
  // clock() counts the same cycles (libc's clock() would count about 100 microseconds).
  EXPECT_GE(cycles.read()[1], 198000);
  EXPECT_LE(cycles.read()[1], short_sleep);
  sleep_for<<<1, 1>>>(2000000000u, cycles.get());  // 2 s asked: at most about 1 ms, as on the GPU
  const long long long_sleep = cycles.read()[0];
  EXPECT_GE(long_sleep, 1980000);
  EXPECT_LT(long_sleep, 1980000000ll);  // far below the 2 s asked, even on a loaded host
}

}  // namespace
}  // namespace minicuda::kernels_test
