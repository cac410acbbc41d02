// Inline PTX in kernels and __device__ functions, translated by cu2cxx into C++ (docs/tools/
// cu2cxx.md, "Inline PTX"): special registers, the carry chain, predicates, shuffles, bit-field,
// permute and logic-table instructions, loads and stores. Every expected value is computed on the
// host from the PTX ISA's definition of the instruction, never by the same helper.
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernel_test.h"

namespace {

__device__ unsigned ptx_laneid() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__global__ void ptx_ids(unsigned* out) {
  unsigned warp, tid, lt;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm("mov.u32 %0, %%tid.y;\n\tmov.u32 %1, %%lanemask_lt;" : "=r"(tid), "=r"(lt));
  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  out[4 * t] = ptx_laneid();
  out[4 * t + 1] = warp;
  out[4 * t + 2] = tid;
  out[4 * t + 3] = lt;
}

// 64-bit add and subtract through 32-bit pieces and the carry flag; 128-bit through 64-bit ones.
__global__ void ptx_carry(const unsigned long long* a, const unsigned long long* b, unsigned long long* out) {
  const int i = threadIdx.x;
  const unsigned long long x = a[i], y = b[i];
  unsigned lo, hi, slo, shi;
  asm("add.cc.u32 %0, %2, %4;\n\taddc.u32 %1, %3, %5;"
      : "=r"(lo), "=r"(hi)
      : "r"(unsigned(x)), "r"(unsigned(x >> 32)), "r"(unsigned(y)), "r"(unsigned(y >> 32)));
  asm("sub.cc.u32 %0, %2, %4;\n\tsubc.u32 %1, %3, %5;"
      : "=r"(slo), "=r"(shi)
      : "r"(unsigned(x)), "r"(unsigned(x >> 32)), "r"(unsigned(y)), "r"(unsigned(y >> 32)));
  unsigned long long w0, w1, w2;  // (x, x) + (y, y) as 128 bits, then the carry out in w2
  asm("add.cc.u64 %0, %3, %4;\n\taddc.cc.u64 %1, %3, %4;\n\taddc.u64 %2, 0, 0;"
      : "=l"(w0), "=l"(w1), "=l"(w2)
      : "l"(x), "l"(y));
  out[5 * i] = (static_cast<unsigned long long>(hi) << 32) | lo;
  out[5 * i + 1] = (static_cast<unsigned long long>(shi) << 32) | slo;
  out[5 * i + 2] = w0;
  out[5 * i + 3] = w1;
  out[5 * i + 4] = w2;
}

// A predicate declared in the template's braces: setp then selp, signed, unsigned and float.
__global__ void ptx_predicates(const int* a, const int* b, const float* f, unsigned* out) {
  const int i = threadIdx.x;
  unsigned lt, lo, ne, neu, both;
  asm("{\n\t.reg .pred p, q;\n\t"
      "setp.lt.s32 p|q, %5, %6;\n\tselp.u32 %0, 1, 0, p;\n\t"
      "setp.lo.u32 p, %5, %6;\n\tselp.u32 %1, 1, 0, p;\n\t"
      "setp.ne.f32 p, %7, %8;\n\tselp.u32 %2, 1, 0, p;\n\t"
      "setp.neu.f32 p, %7, %8;\n\tselp.u32 %3, 1, 0, p;\n\t"
      "setp.lt.and.s32 p, %5, %6, q;\n\t@!p mov.u32 %4, 5;\n\t@p mov.u32 %4, 6;\n\t}"
      : "=r"(lt), "=r"(lo), "=r"(ne), "=r"(neu), "=r"(both)
      : "r"(a[i]), "r"(b[i]), "f"(f[2 * i]), "f"(f[2 * i + 1]));
  out[5 * i] = lt;
  out[5 * i + 1] = lo;
  out[5 * i + 2] = ne;
  out[5 * i + 3] = neu;
  out[5 * i + 4] = both;
}

// shfl.sync as nvcc emits it for __shfl_*_sync with a width: c = (32 - width) << 8 | clamp.
__global__ void ptx_shuffles(unsigned* out) {
  const unsigned t = threadIdx.x, v = t * 7 + 3;
  unsigned idx, up, down, bfly;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(idx) : "r"(v), "r"((t * 5) % 32));
  asm volatile("shfl.sync.up.b32 %0, %1, 3, 0x1000, 0xffffffff;" : "=r"(up) : "r"(v));
  asm volatile("shfl.sync.down.b32 %0, %1, 2, 0x101f, 0xffffffff;" : "=r"(down) : "r"(v));
  asm volatile("shfl.sync.bfly.b32 %0, %1, 5, 0x1f, 0xffffffff;" : "=r"(bfly) : "r"(v));
  out[8 * t] = idx;
  out[8 * t + 1] = __shfl_sync(0xffffffff, v, (t * 5) % 32);
  out[8 * t + 2] = up;
  out[8 * t + 3] = __shfl_up_sync(0xffffffff, v, 3, 16);
  out[8 * t + 4] = down;
  out[8 * t + 5] = __shfl_down_sync(0xffffffff, v, 2, 16);
  out[8 * t + 6] = bfly;
  out[8 * t + 7] = __shfl_xor_sync(0xffffffff, v, 5);
}

__global__ void ptx_bits(const unsigned* in, unsigned* out) {
  unsigned r[12];
  int s;
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r[0]) : "r"(in[0]));
  asm("bfe.u32 %0, %1, 28, 8;" : "=r"(r[1]) : "r"(in[0]));
  asm("bfe.s32 %0, %1, 4, 4;" : "=r"(s) : "r"(in[1]));
  r[2] = unsigned(s);
  asm("bfe.s32 %0, %1, 28, 8;" : "=r"(r[3]) : "r"(in[2]));
  asm("bfe.s32 %0, %1, 3, 0;" : "=r"(r[4]) : "r"(in[2]));
  asm("prmt.b32 %0, %1, %2, 0x0123;" : "=r"(r[5]) : "r"(in[3]), "r"(in[4]));
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r[6]) : "r"(in[5]), "r"(in[6]), "r"(0x4089u));
  asm("bfi.b32 %0, %1, %2, 8, 12;" : "=r"(r[7]) : "r"(in[3]), "r"(in[4]));
  asm("brev.b32 %0, %1;" : "=r"(r[8]) : "r"(in[0]));
  r[10] = 0;
  asm("popc.b32 %0, %1;\n\tclz.b32 %1, %1;" : "=r"(r[9]), "+r"(r[10]) : );
  asm("shl.b32 %0, %1, 33;" : "=r"(r[11]) : "r"(in[0]));
  for (int k = 0; k < 12; ++k) out[k] = r[k];
  unsigned long long wide, hi;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(wide) : "r"(in[0]), "r"(in[2]));
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(hi) : "l"(wide), "l"(wide));
  out[12] = unsigned(wide);
  out[13] = unsigned(wide >> 32);
  out[14] = unsigned(hi);
  int sr;
  asm("shr.s32 %0, %1, 40;" : "=r"(sr) : "r"(int(in[2])));
  out[15] = unsigned(sr);
}

template <unsigned Lut>
__device__ unsigned ptx_lop3(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(Lut));
  return d;
}
template <unsigned... L>
__device__ void all_lop3(unsigned* out, std::integer_sequence<unsigned, L...>) {
  ((out[L] = (ptx_lop3<L>(0xF0u, 0xCCu, 0xAAu) & 0xffu) | (ptx_lop3<L>(0xF0F0F0F0u, 0xCCCCCCCCu, 0xAAAAAAAAu) == L * 0x01010101u ? 0 : 0x100u)), ...);
}
__global__ void ptx_lop3_tables(unsigned* out) { all_lop3(out, std::make_integer_sequence<unsigned, 256>{}); }

// ld/st through a generic address, a global one with an offset, and a read-write operand.
__global__ void ptx_memory(unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1+4];" : "=r"(v) : "l"(p) : "memory");
  asm volatile("add.u32 %0, %0, 100;" : "+r"(v));
  asm volatile("st.u32 [%0], %1;" : : "l"(p + 2), "r"(v) : "memory");
}

// %globaltimer and its halves, read in one statement.
__global__ void ptx_globaltimer(unsigned long long* out) {
  unsigned long long t;
  unsigned lo, hi;
  asm volatile("mov.u64 %0, %%globaltimer;\n\tmov.u32 %1, %%globaltimer_lo;\n\tmov.u32 %2, %%globaltimer_hi;"
               : "=l"(t), "=r"(lo), "=r"(hi));
  out[0] = t;
  out[1] = lo;
  out[2] = hi;
}

// nvcc passes a % before a letter through as a PTX register even beside operands, where GCC's
// rule would want %%: the form cuda-samples' cudaGraphsPerfScaling uses.
__device__ __forceinline__ unsigned long long single_percent_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__global__ void ptx_globaltimer_single_percent(unsigned long long* out) { out[0] = single_percent_globaltimer(); }

}  // namespace

using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

class KernelInlinePtx : public FreshProcess {};

TEST_F(KernelInlinePtx, LaneWarpAndThreadRegisters) {
  DeviceArray<unsigned> out(4 * 48 * 2);
  ptx_ids<<<1, dim3(48, 2)>>>(out.get());
  const auto got = out.read();
  for (unsigned t = 0; t < 96; ++t) {
    EXPECT_EQ(got[4 * t], t % 32) << t;
    EXPECT_EQ(got[4 * t + 1], t / 32) << t;
    EXPECT_EQ(got[4 * t + 2], t / 48) << t;
    EXPECT_EQ(got[4 * t + 3], (1u << (t % 32)) - 1u) << t;
  }
}

// The GPU's nanosecond timer reads the same clock as the PTX executor's %globaltimer: the host's
// system clock, so a read falls between the host's readings before the launch and after it.
TEST_F(KernelInlinePtx, GlobalTimerIsNanosecondsOfTheSystemClock) {
  const auto now = [] {
    return static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
  };
  DeviceArray<unsigned long long> out(3);
  const unsigned long long before = now();
  ptx_globaltimer<<<1, 1>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const unsigned long long after = now();
  const auto got = out.read();
  EXPECT_GE(got[0], before);
  EXPECT_LE(got[0], after);
  EXPECT_GE(got[2], got[0] >> 32);  // the halves are read after the whole, an instant later
  EXPECT_LE(got[2], after >> 32);
  EXPECT_LE((got[2] << 32 | got[1]) - got[0], after - before);
}

TEST_F(KernelInlinePtx, ARegisterNamedWithOnePercentBesideOperands) {
  const auto now = [] {
    return static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
  };
  DeviceArray<unsigned long long> out(1);
  const unsigned long long before = now();
  ptx_globaltimer_single_percent<<<1, 1>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const unsigned long long after = now();
  EXPECT_GE(out.read()[0], before);
  EXPECT_LE(out.read()[0], after);
}

TEST_F(KernelInlinePtx, CarryChainsAddAndSubtractAsWideIntegers) {
  const std::vector<unsigned long long> a = {0, 0xffffffffull, 0xffffffffffffffffull, 0x123456789abcdef0ull, 1, 0x80000000ffffffffull};
  const std::vector<unsigned long long> b = {0, 1, 1, 0xfedcba9876543210ull, 2, 0x7fffffff00000001ull};
  DeviceArray<unsigned long long> da(a), db(b), out(5 * a.size());
  ptx_carry<<<1, unsigned(a.size())>>>(da.get(), db.get(), out.get());
  const auto got = out.read();
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned __int128 x = (static_cast<unsigned __int128>(a[i]) << 64) | a[i];
    const unsigned __int128 y = (static_cast<unsigned __int128>(b[i]) << 64) | b[i];
    const unsigned __int128 sum = x + y;
    EXPECT_EQ(got[5 * i], a[i] + b[i]) << i;
    EXPECT_EQ(got[5 * i + 1], a[i] - b[i]) << i;
    EXPECT_EQ(got[5 * i + 2], static_cast<unsigned long long>(sum)) << i;
    EXPECT_EQ(got[5 * i + 3], static_cast<unsigned long long>(sum >> 64)) << i;
    EXPECT_EQ(got[5 * i + 4], sum < x ? 1u : 0u) << i;  // the carry out of the 128-bit sum
  }
}

TEST_F(KernelInlinePtx, PredicateBlockWithSetpAndSelp) {
  const std::vector<int> a = {1, -1, 5, 7, 0};
  const std::vector<int> b = {2, 1, 5, -3, 0};
  const float nan = std::nanf("");
  const std::vector<float> f = {1.0f, 2.0f, nan, 1.0f, 3.0f, 3.0f, nan, nan, -0.0f, 0.0f};
  DeviceArray<int> da(a), db(b);
  DeviceArray<float> df(f);
  DeviceArray<unsigned> out(5 * a.size());
  ptx_predicates<<<1, unsigned(a.size())>>>(da.get(), db.get(), df.get(), out.get());
  const auto got = out.read();
  for (size_t i = 0; i < a.size(); ++i) {
    const float x = f[2 * i], y = f[2 * i + 1];
    const bool lt = a[i] < b[i];
    EXPECT_EQ(got[5 * i], lt ? 1u : 0u) << i;
    EXPECT_EQ(got[5 * i + 1], unsigned(a[i]) < unsigned(b[i]) ? 1u : 0u) << i;
    EXPECT_EQ(got[5 * i + 2], (x < y || x > y) ? 1u : 0u) << i;                      // ordered: NaN gives false
    EXPECT_EQ(got[5 * i + 3], (x != y || std::isnan(x) || std::isnan(y)) ? 1u : 0u) << i;  // unordered: NaN gives true
    EXPECT_EQ(got[5 * i + 4], 5u) << i;  // lt and (not lt) is always false
  }
}

TEST_F(KernelInlinePtx, ShflSyncMatchesTheIntrinsics) {
  DeviceArray<unsigned> out(8 * 64);
  ptx_shuffles<<<1, 64>>>(out.get());
  const auto got = out.read();
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32, base = t - lane;
    auto v = [&](unsigned l) { return (base + l) * 7 + 3; };
    EXPECT_EQ(got[8 * t], v((t * 5) % 32)) << t;
    EXPECT_EQ(got[8 * t + 2], lane % 16 >= 3 ? v(lane - 3) : v(lane)) << t;
    EXPECT_EQ(got[8 * t + 4], lane % 16 + 2 < 16 ? v(lane + 2) : v(lane)) << t;
    EXPECT_EQ(got[8 * t + 6], v(lane ^ 5)) << t;
    for (int k = 0; k < 8; k += 2) EXPECT_EQ(got[8 * t + k], got[8 * t + k + 1]) << t << " " << k;
  }
}

TEST_F(KernelInlinePtx, BitFieldPermuteAndCountsAsThePtxIsaDefinesThem) {
  const std::vector<unsigned> in = {0x12345678u, 0x000000f0u, 0x92345678u, 0x33221100u, 0x77665544u, 0x000080ffu, 0x00000011u};
  DeviceArray<unsigned> din(in), out(16);
  ptx_bits<<<1, 1>>>(din.get(), out.get());
  const auto got = out.read();
  EXPECT_EQ(got[0], 0x67u);        // bits 4..11
  EXPECT_EQ(got[1], 0x1u);         // bits 28..31, nothing above bit 31
  EXPECT_EQ(got[2], 0xffffffffu);  // 0xf sign-extended
  EXPECT_EQ(got[3], 0xfffffff9u);  // bits 28..31 = 0x9, sign from bit 31 above them
  EXPECT_EQ(got[4], 0u);           // length 0
  EXPECT_EQ(got[5], 0x00112233u);  // bytes 3, 2, 1, 0 of a in reverse
  EXPECT_EQ(got[6], 0x11ffffffu);  // selectors 9 and 8 replicate sign bits, 0 takes a's byte 0, 4 b's
  EXPECT_EQ(got[7], 0x77610044u);  // 12 bits of a at bit 8 of b
  EXPECT_EQ(got[8], 0x1e6a2c48u);  // bit reverse of 0x12345678
  EXPECT_EQ(got[9], 0u);           // popc of 0
  EXPECT_EQ(got[10], 32u);         // clz of 0
  EXPECT_EQ(got[11], 0u);          // shl by 33: every bit shifted out
  const unsigned long long wide = 0x12345678ull * 0x92345678ull;
  EXPECT_EQ(got[12], unsigned(wide));
  EXPECT_EQ(got[13], unsigned(wide >> 32));
  EXPECT_EQ(got[14], unsigned((static_cast<unsigned __int128>(wide) * wide) >> 64));
  EXPECT_EQ(got[15], 0xffffffffu);  // shr.s32 by 40 of a negative value: the sign
}

TEST_F(KernelInlinePtx, Lop3ComputesEveryTruthTable) {
  DeviceArray<unsigned> out(256);
  ptx_lop3_tables<<<1, 1>>>(out.get());
  const auto got = out.read();
  for (unsigned lut = 0; lut < 256; ++lut) EXPECT_EQ(got[lut], lut) << lut;  // F(0xF0, 0xCC, 0xAA) is the table
}

TEST_F(KernelInlinePtx, LoadsAndStoresThroughAddresses) {
  DeviceArray<unsigned> p(std::vector<unsigned>{1, 42, 3});
  ptx_memory<<<1, 1>>>(p.get());
  EXPECT_EQ(p.read(), (std::vector<unsigned>{1, 42, 142}));
}

// The same instructions as a PTX module run by device_sim's PTX executor (cuModuleLoadData) and as
// inline PTX translated to C++: the two implementations of the ISA must agree bit for bit.
namespace {

constexpr int kOps = 10;
constexpr const char* kXcheckPtx = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry xcheck(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 12;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  ld.global.u32 %r3, [%rd4+4];
  ld.global.u32 %r4, [%rd4+8];
  bfe.u32 %r5, %r2, %r3, %r4;
  bfe.s32 %r6, %r2, %r3, %r4;
  prmt.b32 %r7, %r2, %r3, %r4;
  lop3.b32 %r8, %r2, %r3, %r4, 0x96;
  add.cc.u32 %r9, %r2, %r3;
  addc.u32 %r10, %r4, 0;
  sub.cc.u32 %r11, %r2, %r3;
  subc.u32 %r12, %r4, 0;
  bfi.b32 %r13, %r2, %r3, %r4, 7;
  shr.s32 %r14, %r2, %r3;
  mul.wide.u32 %rd5, %r1, 40;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r5;
  st.global.u32 [%rd6+4], %r6;
  st.global.u32 [%rd6+8], %r7;
  st.global.u32 [%rd6+12], %r8;
  st.global.u32 [%rd6+16], %r9;
  st.global.u32 [%rd6+20], %r10;
  st.global.u32 [%rd6+24], %r11;
  st.global.u32 [%rd6+28], %r12;
  st.global.u32 [%rd6+32], %r13;
  st.global.u32 [%rd6+36], %r14;
  ret;
}
)";

__global__ void ptx_xcheck(const unsigned* in, unsigned* out) {
  const unsigned t = threadIdx.x;
  unsigned* o = out + kOps * t;
  asm("bfe.u32 %0, %10, %11, %12;\n\tbfe.s32 %1, %10, %11, %12;\n\tprmt.b32 %2, %10, %11, %12;\n\t"
      "lop3.b32 %3, %10, %11, %12, 0x96;\n\tadd.cc.u32 %4, %10, %11;\n\taddc.u32 %5, %12, 0;\n\t"
      "sub.cc.u32 %6, %10, %11;\n\tsubc.u32 %7, %12, 0;\n\tbfi.b32 %8, %10, %11, %12, 7;\n\tshr.s32 %9, %10, %11;"
      : "=r"(o[0]), "=r"(o[1]), "=r"(o[2]), "=r"(o[3]), "=r"(o[4]), "=r"(o[5]), "=r"(o[6]), "=r"(o[7]), "=r"(o[8]), "=r"(o[9])
      : "r"(in[3 * t]), "r"(in[3 * t + 1]), "r"(in[3 * t + 2]));
}

}  // namespace

TEST_F(KernelInlinePtx, AgreesWithThePtxExecutorOnTheSameInstructions) {
  constexpr unsigned kThreads = 128;
  std::vector<unsigned> in(3 * kThreads);
  uint32_t x = 0x2545f491u;
  for (unsigned i = 0; i < in.size(); ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    // Every third thread gets small positions and lengths (the bit-field cases), the rest raw bits.
    in[i] = (i / 3) % 3 == 0 && i % 3 != 0 ? x % 40 : x;
  }
  in[0] = 0xffffffffu, in[1] = 0xffffffffu, in[2] = 0xffffffffu;  // carries out of every piece
  DeviceArray<unsigned> din(in), from_cxx(kOps * kThreads), from_ptx(kOps * kThreads);
  ptx_xcheck<<<1, kThreads>>>(din.get(), from_cxx.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  ASSERT_EQ(cuModuleLoadData(&module, kXcheckPtx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&function, module, "xcheck"), CUDA_SUCCESS);
  const unsigned* in_ptr = din.get();
  unsigned* out_ptr = from_ptx.get();
  void* params[] = {&in_ptr, &out_ptr};
  ASSERT_EQ(cuLaunchKernel(function, 1, 1, 1, kThreads, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  const auto cxx = from_cxx.read(), ptx = from_ptx.read();
  for (unsigned i = 0; i < cxx.size(); ++i) EXPECT_EQ(cxx[i], ptx[i]) << "thread " << i / kOps << " op " << i % kOps;
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}
