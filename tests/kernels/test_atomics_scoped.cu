// Atomics on __half, __half2, __nv_bfloat16 and __nv_bfloat162 (cuda_fp16.hpp, cuda_bf16.hpp) and
// the _block / _system variant of every atomic function (sm_60_atomic_functions.h), each under
// contention from 4096 threads. The narrow sums add the same value every time, so their final
// value is exact whatever the order: it stops growing where adding the value is a tie that
// rounds back to an even value (1.0 to a half stops at 2048, to a bfloat16 at 256).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernel_test.h"

namespace {

constexpr int kBlocks = 16, kThreads = 256, kN = kBlocks * kThreads;

struct Narrow {
  __half h;
  __half h_block;
  __half h_system;
  __half h_max;
  __half2 h2;
  __nv_bfloat16 b;
  __nv_bfloat162 b2;
};

struct Scoped {
  int add;
  int sub;
  int exch;
  long long min64;
  unsigned long long max64;
  unsigned inc;
  unsigned dec;
  unsigned and_bits;
  unsigned or_bits;
  unsigned xor_bits;
  float fadd;
  double dadd;
  unsigned short cas16;
  unsigned short pad;
  unsigned cas32;
};

}  // namespace

// --- kernels --------------------------------------------------------------------------------

__global__ void init_narrow(Narrow* n) {
  n->h = __float2half(0.0f);
  n->h_block = __float2half(0.0f);
  n->h_system = __float2half(0.0f);
  n->h_max = __float2half(-1000.0f);
  n->h2 = __floats2half2_rn(0.0f, 0.0f);
  n->b = __float2bfloat16(0.0f);
  n->b2 = __floats2bfloat162_rn(0.0f, 0.0f);
}

__global__ void narrow_atomics(Narrow* n, unsigned short* h_old) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  const __half one = __float2half(1.0f);
  h_old[id] = __half_as_ushort(atomicAdd(&n->h, one));
  atomicAdd_block(&n->h_block, __float2half(0.5f));
  atomicAdd_system(&n->h_system, one);
  atomicMax(&n->h_max, __int2half_rn(static_cast<int>((id * 37) % 1000)));  // at most 999
  atomicAdd(&n->h2, __floats2half2_rn(0.5f, 0.25f));
  atomicAdd(&n->b, __float2bfloat16(1.0f));
  atomicAdd_block(&n->b2, __floats2bfloat162_rn(1.0f, 0.5f));
}

__global__ void scoped_atomics(Scoped* s, unsigned short* cas_old) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd_block(&s->add, 3);
  atomicSub_system(&s->sub, 2);
  atomicExch_block(&s->exch, static_cast<int>(id));
  atomicMin_system(&s->min64, -static_cast<long long>(id) * 1000003);
  atomicMax_block(&s->max64, static_cast<unsigned long long>(id) << 33);
  atomicInc_system(&s->inc, 999u);
  atomicDec_block(&s->dec, 999u);
  atomicAnd_block(&s->and_bits, ~(1u << (id % 31)));
  atomicOr_system(&s->or_bits, 1u << (id % 29));
  atomicXor_block(&s->xor_bits, id * 2654435761u);
  atomicAdd_block(&s->fadd, 1.0f);
  atomicAdd_system(&s->dadd, 0.25);
  // A 16-bit counter incremented through atomicCAS: the old values are 0 .. N-1, once each.
  unsigned short old = *reinterpret_cast<volatile unsigned short*>(&s->cas16), assumed;
  do {
    assumed = old;
    old = atomicCAS_system(&s->cas16, assumed, static_cast<unsigned short>(assumed + 1));
  } while (old != assumed);
  cas_old[id] = old;
  unsigned old32 = s->cas32, assumed32;
  do {
    assumed32 = old32;
    old32 = atomicCAS_block(&s->cas32, assumed32, assumed32 + 5);
  } while (old32 != assumed32);
}

namespace minicuda::kernels_test {
namespace {

class KernelAtomicsScoped : public FreshProcess {};

float as_float(__half h) { return __half2float(h); }
float as_float(__nv_bfloat16 b) { return __bfloat162float(b); }

TEST_F(KernelAtomicsScoped, HalfAndBfloat16AddsRoundAsTheHardwareDoes) {
  DeviceArray<Narrow> n(1);
  DeviceArray<unsigned short> h_old(kN);
  init_narrow<<<1, 1>>>(n.get());
  narrow_atomics<<<kBlocks, kThreads>>>(n.get(), h_old.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const Narrow r = n.read()[0];
  EXPECT_EQ(as_float(r.h), 2048.0f);         // 2048 + 1 is a tie, to even: 2048
  EXPECT_EQ(as_float(r.h_system), 2048.0f);
  EXPECT_EQ(as_float(r.h_block), 1024.0f);   // 1024 + 0.5 is a tie: 1024
  EXPECT_EQ(as_float(r.h_max), 999.0f);
  EXPECT_EQ(__low2float(r.h2), 1024.0f);
  EXPECT_EQ(__high2float(r.h2), 512.0f);     // 512 + 0.25 is a tie: 512
  EXPECT_EQ(as_float(r.b), 256.0f);          // bfloat16 has 8 significant bits: 256 + 1 is a tie
  EXPECT_EQ(__low2float(r.b2), 256.0f);
  EXPECT_EQ(__high2float(r.b2), 128.0f);
  // The returned old values: 0 .. 2047 once each, then 2048 for the remaining threads.
  std::vector<unsigned short> olds = h_old.read();
  std::vector<float> values;
  for (unsigned short o : olds) values.push_back(__half2float(__ushort_as_half(o)));
  std::sort(values.begin(), values.end());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(values[i], static_cast<float>(std::min(i, 2048))) << i;
}

TEST_F(KernelAtomicsScoped, EveryScopedVariantUnderContention) {
  Scoped init{};
  init.exch = -1, init.min64 = 0, init.and_bits = ~0u;
  DeviceArray<Scoped> s(std::vector<Scoped>{init});
  DeviceArray<unsigned short> cas_old(kN);
  scoped_atomics<<<kBlocks, kThreads>>>(s.get(), cas_old.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const Scoped r = s.read()[0];
  EXPECT_EQ(r.add, 3 * kN);
  EXPECT_EQ(r.sub, -2 * kN);
  EXPECT_GE(r.exch, 0);
  EXPECT_LT(r.exch, kN);
  EXPECT_EQ(r.min64, -static_cast<long long>(kN - 1) * 1000003);
  EXPECT_EQ(r.max64, static_cast<unsigned long long>(kN - 1) << 33);
  EXPECT_EQ(r.inc, kN % 1000u);          // ((old >= 999) ? 0 : old + 1): period 1000
  EXPECT_EQ(r.dec, 1000u - kN % 1000u);  // ((old == 0 || old > 999) ? 999 : old - 1)
  EXPECT_EQ(r.and_bits, 0x80000000u);
  EXPECT_EQ(r.or_bits, (1u << 29) - 1);
  unsigned x = 0;
  for (unsigned id = 0; id < kN; ++id) x ^= id * 2654435761u;
  EXPECT_EQ(r.xor_bits, x);
  EXPECT_EQ(r.fadd, static_cast<float>(kN));
  EXPECT_EQ(r.dadd, kN * 0.25);
  EXPECT_EQ(r.cas16, kN);
  EXPECT_EQ(r.pad, 0);  // the 16-bit CAS never touches the neighbouring bytes
  EXPECT_EQ(r.cas32, 5u * kN);
  std::vector<unsigned short> olds = cas_old.read();
  std::sort(olds.begin(), olds.end());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(olds[i], i);
}

}  // namespace
}  // namespace minicuda::kernels_test
