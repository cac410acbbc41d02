// Atomics under contention (device_code.h: the host's __atomic builtins and CAS loops): every
// atomic function on one global word from 1024 blocks x 256 threads, the same on shared memory
// from every thread of a block, float and double atomicAdd. Each result is exact: a final value
// the operation defines, and where the order is free, the multiset of returned old values.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernel_test.h"

namespace {

constexpr int kBlocks = 1024, kThreads = 256, kN = kBlocks * kThreads;

struct Counters {
  int add;
  int sub;
  int exch;
  int min;
  int max;
  unsigned inc;
  unsigned dec;
  int cas;
  unsigned and_bits;
  unsigned or_bits;
  unsigned xor_bits;
  unsigned long long add64;
  long long min64;
  unsigned long long max64;
  float fadd;
  double dadd;
  unsigned long long cas64;
};

// A scrambled signed key per thread, for min/max.
__host__ __device__ inline int key_of(unsigned id) { return static_cast<int>(id * 2654435761u) >> 1; }

}  // namespace

// --- kernels --------------------------------------------------------------------------------

// Every thread of the grid applies each atomic to one shared global word; returned old values are
// kept where they must form an exact multiset.
__global__ void global_atomics(Counters* c, int* exch_old, unsigned* inc_old, int* cas_old, unsigned* hist) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c->add, 3);
  atomicSub(&c->sub, 2);
  exch_old[id] = atomicExch(&c->exch, static_cast<int>(id) + 1);
  atomicMin(&c->min, key_of(id));
  atomicMax(&c->max, key_of(id));
  inc_old[id] = atomicInc(&c->inc, 999);
  atomicDec(&c->dec, 999);
  // An increment through a CAS loop: the old values are 0 .. N-1, each exactly once.
  int old = *reinterpret_cast<volatile int*>(&c->cas), assumed;
  do {
    assumed = old;
    old = atomicCAS(&c->cas, assumed, assumed + 1);
  } while (old != assumed);
  cas_old[id] = old;
  atomicAnd(&c->and_bits, ~(1u << (id % 31)));  // bit 31 is never cleared
  atomicOr(&c->or_bits, 1u << (id % 29));
  atomicXor(&c->xor_bits, id * 2654435761u);
  atomicAdd(&c->add64, static_cast<unsigned long long>(id) << 20);
  atomicMin(&c->min64, static_cast<long long>(key_of(id)) * 1000003);
  atomicMax(&c->max64, static_cast<unsigned long long>(id) * 0x100000001ull);
  atomicAdd(&c->fadd, 1.0f);
  atomicAdd(&c->dadd, 0.25);
  unsigned long long old64 = *reinterpret_cast<volatile unsigned long long*>(&c->cas64), assumed64;
  do {
    assumed64 = old64;
    old64 = atomicCAS(&c->cas64, assumed64, assumed64 + (1ull << 33));
  } while (old64 != assumed64);
  atomicAdd(&hist[id % 256], 1u);
}

// The same on shared memory: every thread of the block, then thread 0 publishes the block's words.
__global__ void shared_atomics(int* out, int* exch_old) {
  __shared__ int s_add, s_sub, s_exch, s_min, s_max, s_cas;
  __shared__ unsigned s_inc, s_dec, s_and, s_or, s_xor;
  __shared__ float s_fadd;
  __shared__ double s_dadd;
  const unsigned t = threadIdx.x;
  if (t == 0) {
    s_add = 0, s_sub = 0, s_exch = -1, s_min = 1 << 30, s_max = -(1 << 30), s_cas = 0;
    s_inc = 0, s_dec = 0, s_and = ~0u, s_or = 0, s_xor = 0;
    s_fadd = 0.0f, s_dadd = 0.0;
  }
  __syncthreads();
  const unsigned salt = blockIdx.x * 7919;
  atomicAdd(&s_add, static_cast<int>(t));
  atomicSub(&s_sub, 1);
  exch_old[blockIdx.x * blockDim.x + t] = atomicExch(&s_exch, static_cast<int>(t));
  atomicMin(&s_min, key_of(t + salt));
  atomicMax(&s_max, key_of(t + salt));
  atomicInc(&s_inc, 100);
  atomicDec(&s_dec, 100);
  int old = s_cas, assumed;
  do {
    assumed = old;
    old = atomicCAS(&s_cas, assumed, assumed + 2);
  } while (old != assumed);
  atomicAnd(&s_and, ~(1u << (t % 16)));
  atomicOr(&s_or, 1u << (t % 20));
  atomicXor(&s_xor, t * 2654435761u);
  atomicAdd(&s_fadd, 0.5f);
  atomicAdd(&s_dadd, 0.125);
  __syncthreads();
  if (t == 0) {
    int* o = out + blockIdx.x * 14;
    o[0] = s_add, o[1] = s_sub, o[2] = s_exch, o[3] = s_min, o[4] = s_max, o[5] = s_cas;
    o[6] = static_cast<int>(s_inc), o[7] = static_cast<int>(s_dec), o[8] = static_cast<int>(s_and);
    o[9] = static_cast<int>(s_or), o[10] = static_cast<int>(s_xor);
    o[11] = static_cast<int>(s_fadd), o[12] = static_cast<int>(s_dadd * 8), o[13] = 1;
  }
}

// Returned values of atomicInc/atomicDec/atomicCAS in a single thread, where the order is known.
__global__ void atomic_sequences(unsigned* out, unsigned* word) {
  *word = 5;
  for (int i = 0; i < 8; ++i) out[i] = atomicInc(word, 7);       // 5 6 7 0 1 2 3 4
  out[8] = *word;                                                 // 5
  *word = 2;
  for (int i = 0; i < 8; ++i) out[9 + i] = atomicDec(word, 4);   // 2 1 0 4 3 2 1 0
  out[17] = *word;                                                // 4
  *word = 9;
  for (int i = 0; i < 3; ++i) out[18 + i] = atomicDec(word, 4);  // 9 (> limit: to 4) 4 3
  out[21] = atomicCAS(word, 2u, 100u);                            // 2, swapped
  out[22] = atomicCAS(word, 2u, 200u);                            // 100, not swapped
  out[23] = *word;                                                // 100
  out[24] = atomicInc(word, 50);                                  // 100 (>= limit: to 0)
  out[25] = *word;                                                // 0
}

namespace minicuda::kernels_test {
namespace {

class KernelAtomics : public FreshProcess {};

TEST_F(KernelAtomics, GlobalMemoryUnderContention) {
  Counters init{};
  init.min = 1 << 30;
  init.max = -(1 << 30);
  init.and_bits = ~0u;
  init.min64 = 0;
  init.max64 = 0;
  DeviceArray<Counters> c(std::vector<Counters>{init});
  DeviceArray<int> exch_old(kN), cas_old(kN);
  DeviceArray<unsigned> inc_old(kN), hist(256);
  global_atomics<<<kBlocks, kThreads>>>(c.get(), exch_old.get(), inc_old.get(), cas_old.get(), hist.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const Counters r = c.read()[0];

  EXPECT_EQ(r.add, 3 * kN);
  EXPECT_EQ(r.sub, -2 * kN);
  int want_min = init.min, want_max = init.max;
  long long want_min64 = 0;
  unsigned xor_bits = 0;
  for (unsigned id = 0; id < kN; ++id) {
    want_min = std::min(want_min, key_of(id));
    want_max = std::max(want_max, key_of(id));
    want_min64 = std::min(want_min64, static_cast<long long>(key_of(id)) * 1000003);
    xor_bits ^= id * 2654435761u;
  }
  EXPECT_EQ(r.min, want_min);
  EXPECT_EQ(r.max, want_max);
  // atomicInc wraps to 0 after 999: N increments from 0 leave N mod 1000. atomicDec from 0 goes
  // to 999 first, then down: N decrements leave (1000 - N mod 1000) mod 1000.
  EXPECT_EQ(r.inc, kN % 1000u);
  EXPECT_EQ(r.dec, (1000u - kN % 1000u) % 1000u);
  EXPECT_EQ(r.cas, kN);
  EXPECT_EQ(r.and_bits, 0x80000000u);
  EXPECT_EQ(r.or_bits, (1u << 29) - 1);
  EXPECT_EQ(r.xor_bits, xor_bits);
  EXPECT_EQ(r.add64, (static_cast<unsigned long long>(kN) * (kN - 1) / 2) << 20);
  EXPECT_EQ(r.min64, want_min64);
  EXPECT_EQ(r.max64, static_cast<unsigned long long>(kN - 1) * 0x100000001ull);
  EXPECT_EQ(r.fadd, static_cast<float>(kN));  // integers below 2^24: exact in any order
  EXPECT_EQ(r.dadd, kN * 0.25);
  EXPECT_EQ(r.cas64, static_cast<unsigned long long>(kN) << 33);

  // atomicExch: the old values and the final value are 0, 1, ..., N, each once.
  std::vector<int> ex = exch_old.read();
  ex.push_back(r.exch);
  std::sort(ex.begin(), ex.end());
  for (int i = 0; i <= kN; ++i) ASSERT_EQ(ex[i], i) << "atomicExch values";
  // The CAS-loop increment: every ticket 0 .. N-1 handed out once.
  std::vector<int> tickets = cas_old.read();
  std::sort(tickets.begin(), tickets.end());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(tickets[i], i) << "atomicCAS tickets";
  // atomicInc's old values run 0..999 round and round in some order: 0..143 appear 263 times
  // (N = 262 * 1000 + 144), the others 262 times.
  std::vector<unsigned> incs = inc_old.read();
  std::vector<int> seen(1000, 0);
  for (unsigned v : incs) {
    ASSERT_LT(v, 1000u);
    ++seen[v];
  }
  for (int v = 0; v < 1000; ++v) ASSERT_EQ(seen[v], v < kN % 1000 ? kN / 1000 + 1 : kN / 1000) << v;
  for (unsigned h : hist.read()) EXPECT_EQ(h, static_cast<unsigned>(kN / 256));
}

TEST_F(KernelAtomics, SharedMemoryUnderContention) {
  constexpr int blocks = 64, threads = 1024;
  DeviceArray<int> out(blocks * 14), exch_old(blocks * threads);
  shared_atomics<<<blocks, threads>>>(out.get(), exch_old.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read(), ex = exch_old.read();
  unsigned xor_bits = 0;
  for (unsigned t = 0; t < threads; ++t) xor_bits ^= t * 2654435761u;
  for (int b = 0; b < blocks; ++b) {
    const int* o = &h[b * 14];
    int want_min = 1 << 30, want_max = -(1 << 30);
    for (unsigned t = 0; t < threads; ++t) {
      want_min = std::min(want_min, key_of(t + b * 7919));
      want_max = std::max(want_max, key_of(t + b * 7919));
    }
    SCOPED_TRACE(::testing::Message() << "block " << b);
    EXPECT_EQ(o[0], threads * (threads - 1) / 2);
    EXPECT_EQ(o[1], -threads);
    EXPECT_EQ(o[3], want_min);
    EXPECT_EQ(o[4], want_max);
    EXPECT_EQ(o[5], 2 * threads);
    EXPECT_EQ(o[6], threads % 101);
    EXPECT_EQ(o[7], (101 - threads % 101) % 101);
    EXPECT_EQ(static_cast<unsigned>(o[8]), 0xffff0000u);
    EXPECT_EQ(static_cast<unsigned>(o[9]), (1u << 20) - 1);
    EXPECT_EQ(static_cast<unsigned>(o[10]), xor_bits);
    EXPECT_EQ(o[11], threads / 2);
    EXPECT_EQ(o[12], threads);  // 1024 x 0.125 = 128, times 8
    EXPECT_EQ(o[13], 1);
    // atomicExch: -1, 0, ..., threads-1 among the old values and the final value, each once.
    std::vector<int> values(ex.begin() + b * threads, ex.begin() + (b + 1) * threads);
    values.push_back(o[2]);
    std::sort(values.begin(), values.end());
    for (int i = 0; i <= threads; ++i) ASSERT_EQ(values[i], i - 1);
  }
}

TEST_F(KernelAtomics, IncDecCasReturnValuesInOrder) {
  DeviceArray<unsigned> out(26), word(1);
  atomic_sequences<<<1, 1>>>(out.get(), word.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned> want = {5, 6, 7, 0, 1, 2, 3, 4, 5,      // atomicInc(7) from 5
                                      2, 1, 0, 4, 3, 2, 1, 0, 4,      // atomicDec(4) from 2
                                      9, 4, 3, 2, 100, 100, 100, 0};  // atomicDec from 9, CAS, Inc
  EXPECT_EQ(out.read(), want);
}

}  // namespace
}  // namespace minicuda::kernels_test
