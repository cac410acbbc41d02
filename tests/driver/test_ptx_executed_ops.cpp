// PTX warp operations, atomics and reductions, and the errors a PTX kernel raises, run end to end
// through libcuda (cuModuleLoadData, cuLaunchKernel) on the SIMT executor: the forms the lowering
// tests only compile - shfl up and idx, vote.uni, match.all, redux min/and/or/xor, atom
// min/max/and/or/xor/inc/dec, 64-bit and f64 atomics, 64-bit cas, red on global and shared
// memory - and trap and __assertfail, which end the grid with 719 and 710 as C++ kernels do.
// The expected values are PTX ISA's definitions, computed on the host.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry warp_ops(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd3, %r1, 52;
  add.s64 %rd4, %rd2, %rd3;
  mul.lo.u32 %r2, %r1, 10;
  shfl.sync.up.b32 %r3|%p1, %r2, 1, 0, -1;
  shfl.sync.idx.b32 %r4, %r2, 5, 31, -1;
  selp.u32 %r5, 1, 0, %p1;
  setp.lt.u32 %p2, %r1, 16;
  vote.sync.uni.pred %p3, %p2, -1;
  setp.lt.u32 %p4, %r1, 64;
  vote.sync.uni.pred %p5, %p4, -1;
  selp.u32 %r6, 1, 0, %p3;
  selp.u32 %r7, 1, 0, %p5;
  shr.u32 %r8, %r1, 4;
  match.all.sync.b32 %r9|%p6, %r8, -1;
  mov.u32 %r10, 7;
  match.all.sync.b32 %r11|%p7, %r10, -1;
  selp.u32 %r12, 1, 0, %p6;
  selp.u32 %r13, 1, 0, %p7;
  add.u32 %r14, %r1, 3;
  redux.sync.min.u32 %r15, %r14, -1;
  redux.sync.and.b32 %r16, %r14, -1;
  redux.sync.or.b32 %r17, %r14, -1;
  redux.sync.xor.b32 %r18, %r14, -1;
  st.global.u32 [%rd4], %r3;
  st.global.u32 [%rd4+4], %r5;
  st.global.u32 [%rd4+8], %r4;
  st.global.u32 [%rd4+12], %r6;
  st.global.u32 [%rd4+16], %r7;
  st.global.u32 [%rd4+20], %r9;
  st.global.u32 [%rd4+24], %r12;
  st.global.u32 [%rd4+28], %r11;
  st.global.u32 [%rd4+32], %r13;
  st.global.u32 [%rd4+36], %r15;
  st.global.u32 [%rd4+40], %r16;
  st.global.u32 [%rd4+44], %r17;
  st.global.u32 [%rd4+48], %r18;
  ret;
}

.visible .entry atomics(.param .u64 out)
{
  .shared .align 4 .b32 sh[3];
  .reg .pred %p<2>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .reg .f64 %fd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra READY;
  mov.u32 %r2, 0;
  st.shared.u32 [sh], %r2;
  st.shared.u32 [sh+4], %r2;
  st.shared.u32 [sh+8], %r2;
READY:
  bar.sync 0;
  sub.s32 %r3, %r1, 16;
  atom.global.min.s32 %r4, [%rd2], %r3;
  mul.lo.u32 %r5, %r1, 3;
  atom.global.max.s32 %r4, [%rd2+4], %r5;
  mov.u32 %r6, 1;
  shl.b32 %r7, %r6, %r1;
  not.b32 %r8, %r7;
  atom.global.and.b32 %r4, [%rd2+8], %r8;
  atom.global.or.b32 %r4, [%rd2+12], %r7;
  mad.lo.u32 %r9, %r1, 7, 1;
  atom.global.xor.b32 %r4, [%rd2+16], %r9;
  atom.global.inc.u32 %r4, [%rd2+20], 9;
  atom.global.dec.u32 %r4, [%rd2+24], 9;
  cvt.u64.u32 %rd3, %r1;
  shl.b64 %rd4, %rd3, 32;
  atom.global.add.u64 %rd5, [%rd2+32], %rd4;
  mov.f64 %fd1, 0d3FE0000000000000;
  atom.global.add.f64 %fd2, [%rd2+40], %fd1;
  mov.u64 %rd6, 0x1234567890;
  atom.global.cas.b64 %rd5, [%rd2+48], 0, %rd6;
  red.global.add.u32 [%rd2+56], 1;
  red.shared.add.u32 [sh], %r1;
  atom.shared.max.u32 %r4, [sh+4], %r1;
  atom.shared.inc.u32 %r4, [sh+8], 100;
  bar.sync 0;
  @!%p1 bra DONE;
  ld.shared.u32 %r10, [sh];
  ld.shared.u32 %r11, [sh+4];
  ld.shared.u32 %r12, [sh+8];
  st.global.u32 [%rd2+60], %r10;
  st.global.u32 [%rd2+64], %r11;
  st.global.u32 [%rd2+68], %r12;
DONE:
  ret;
}

.visible .entry traps(.param .u32 which)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [which];
  mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r2, %r1;
  @%p1 trap;
  ret;
}
)";

class PtxExecutedOps : public Ready {
 protected:
  void SetUp() override {
    Ready::SetUp();
    ASSERT_EQ(cuModuleLoadData(&module_, kPtx), CUDA_SUCCESS);
  }
  CUresult launch(CUmodule m, const char* name, unsigned threads, std::vector<void*> args) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, m, name), CUDA_SUCCESS);
    CUresult r = cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, nullptr, args.data(), nullptr);
    return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
  }
  CUmodule module_ = nullptr;
};

TEST_F(PtxExecutedOps, WarpShufflesVotesMatchesAndReductionsGivePtxsValues) {
  constexpr unsigned kFields = 13;  // per lane
  CUdeviceptr out = 0;
  ASSERT_EQ(cuMemAlloc_v2(&out, 32 * kFields * 4), CUDA_SUCCESS);
  ASSERT_EQ(launch(module_, "warp_ops", 32, {&out}), CUDA_SUCCESS);
  std::vector<uint32_t> h(32 * kFields);
  ASSERT_EQ(cuMemcpyDtoH_v2(h.data(), out, h.size() * 4), CUDA_SUCCESS);
  uint32_t all_and = ~0u, all_or = 0, all_xor = 0;
  for (uint32_t l = 0; l < 32; ++l) all_and &= l + 3, all_or |= l + 3, all_xor ^= l + 3;
  for (uint32_t l = 0; l < 32; ++l) {
    SCOPED_TRACE(l);
    const uint32_t* f = &h[l * kFields];
    EXPECT_EQ(f[0], l >= 1 ? (l - 1) * 10 : 0u);  // shfl.up 1: lane 0 keeps its own value
    EXPECT_EQ(f[1], l >= 1 ? 1u : 0u);            // and its predicate is false
    EXPECT_EQ(f[2], 50u);                         // shfl.idx from lane 5
    EXPECT_EQ(f[3], 0u);                          // vote.uni of lane < 16: not uniform
    EXPECT_EQ(f[4], 1u);                          // vote.uni of true
    EXPECT_EQ(f[5], 0u);                          // match.all of lane / 16: no mask
    EXPECT_EQ(f[6], 0u);
    EXPECT_EQ(f[7], 0xffffffffu);                 // match.all of 7: every lane
    EXPECT_EQ(f[8], 1u);
    EXPECT_EQ(f[9], 3u);                          // redux.min of lane + 3
    EXPECT_EQ(f[10], all_and);
    EXPECT_EQ(f[11], all_or);
    EXPECT_EQ(f[12], all_xor);
  }
  EXPECT_EQ(cuMemFree_v2(out), CUDA_SUCCESS);
}

TEST_F(PtxExecutedOps, AtomicsAndReductionsOnGlobalAndSharedMemory) {
  CUdeviceptr out = 0;
  ASSERT_EQ(cuMemAlloc_v2(&out, 72), CUDA_SUCCESS);
  std::vector<uint8_t> init(72, 0);
  const uint32_t ones = 0xffffffffu;
  std::memcpy(&init[8], &ones, 4);  // the and's start
  ASSERT_EQ(cuMemcpyHtoD_v2(out, init.data(), 72), CUDA_SUCCESS);
  ASSERT_EQ(launch(module_, "atomics", 32, {&out}), CUDA_SUCCESS);
  std::vector<uint8_t> h(72);
  ASSERT_EQ(cuMemcpyDtoH_v2(h.data(), out, 72), CUDA_SUCCESS);
  auto u32 = [&](size_t at) { uint32_t v; std::memcpy(&v, &h[at], 4); return v; };
  auto u64 = [&](size_t at) { uint64_t v; std::memcpy(&v, &h[at], 8); return v; };
  uint32_t xored = 0, inc = 0, dec = 0;
  for (uint32_t t = 0; t < 32; ++t) {
    xored ^= t * 7 + 1;
    inc = inc >= 9 ? 0 : inc + 1;               // atom.inc: wraps to 0 past its bound
    dec = (dec == 0 || dec > 9) ? 9 : dec - 1;  // atom.dec: wraps to its bound at 0
  }
  EXPECT_EQ(static_cast<int32_t>(u32(0)), -16);  // min of tid - 16
  EXPECT_EQ(u32(4), 93u);                        // max of tid * 3
  EXPECT_EQ(u32(8), 0u);                         // and of ~(1 << tid) from all ones
  EXPECT_EQ(u32(12), 0xffffffffu);               // or of 1 << tid
  EXPECT_EQ(u32(16), xored);
  EXPECT_EQ(u32(20), inc);
  EXPECT_EQ(u32(24), dec);
  EXPECT_EQ(u64(32), uint64_t{496} << 32);       // add.u64 of tid << 32
  double sum = 0;
  std::memcpy(&sum, &h[40], 8);
  EXPECT_EQ(sum, 16.0);                          // add.f64 of 0.5, 32 times
  EXPECT_EQ(u64(48), 0x1234567890ull);           // cas.b64: the first thread's swap
  EXPECT_EQ(u32(56), 32u);                       // red.global.add
  EXPECT_EQ(u32(60), 496u);                      // red.shared.add of tid
  EXPECT_EQ(u32(64), 31u);                       // atom.shared.max
  EXPECT_EQ(u32(68), 32u);                       // atom.shared.inc below its bound
  EXPECT_EQ(cuMemFree_v2(out), CUDA_SUCCESS);
}

TEST_F(PtxExecutedOps, ATrapEndsTheGridWithLaunchFailedAndTheContextStaysBroken) {
  unsigned which = 3;
  EXPECT_EQ(launch(module_, "traps", 32, {&which}), CUDA_ERROR_LAUNCH_FAILED);  // 719
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAlloc_v2(&p, 4), CUDA_ERROR_LAUNCH_FAILED);  // sticky, as after a C++ kernel's trap
}

TEST_F(PtxExecutedOps, AFailedAssertEndsTheGridWithCudaErrorAssert) {
  // nvcc's PTX of a kernel with assert(v[i] >= 0) (tests/data/ptx/corpus/printf_assert.ptx).
  std::ifstream in(std::string(MINICUDA_H200_DATA) + "/../ptx/corpus/printf_assert.ptx");
  std::stringstream text;
  text << in.rdbuf();
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, text.str().c_str()), CUDA_SUCCESS);
  std::vector<int32_t> v = {0, 1, -2, 3};
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc_v2(&d, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(d, v.data(), 16), CUDA_SUCCESS);
  int n = 4;
  EXPECT_EQ(launch(m, "report", 4, {&d, &n}), CUDA_ERROR_ASSERT);  // 710
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ASSERT);
}

}  // namespace
}  // namespace minicuda::testing
