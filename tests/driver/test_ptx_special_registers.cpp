// PTX kernels run through libcuda (cuModuleLoadData, cuLaunchKernel) that read the special
// registers a program uses to see where it runs - %smid, %nsmid, %warpid, %nwarpid, %laneid,
// %globaltimer - and reduce a predicate across the block with bar.red (popc, and, or). What is
// asserted is what PTX's ISA promises of them, on the simulated H200.
#include <chrono>
#include <cstdint>
#include <set>
#include <vector>

#include "driver_fixtures.h"

namespace {
const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry ids(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd3, %r4, 20;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r5, %smid;
  mov.u32 %r6, %nsmid;
  mov.u32 %r7, %warpid;
  mov.u32 %r8, %nwarpid;
  mov.u32 %r9, %laneid;
  st.global.u32 [%rd4], %r5;
  st.global.u32 [%rd4+4], %r6;
  st.global.u32 [%rd4+8], %r7;
  st.global.u32 [%rd4+12], %r8;
  st.global.u32 [%rd4+16], %r9;
  ret;
}

.visible .entry timer(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u64 %rd3, %globaltimer;
  mov.u32 %r1, %globaltimer_lo;
  mov.u32 %r2, %globaltimer_hi;
  mov.u64 %rd4, %globaltimer;
  st.global.u64 [%rd2], %rd3;
  st.global.u64 [%rd2+8], %rd4;
  st.global.u32 [%rd2+16], %r1;
  st.global.u32 [%rd2+20], %r2;
  ret;
}

.visible .entry barred(.param .u64 out, .param .u32 threshold)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [threshold];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  setp.lt.u32 %p1, %r2, %r1;
  bar.red.popc.u32 %r3, 0, %p1;
  bar.red.and.pred %p2, 1, %p1;
  bar.red.or.pred %p3, 2, %p1;
  selp.u32 %r4, 1, 0, %p2;
  selp.u32 %r5, 1, 0, %p3;
  mul.wide.u32 %rd3, %r2, 12;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  st.global.u32 [%rd4+4], %r4;
  st.global.u32 [%rd4+8], %r5;
  ret;
}
)";
}  // namespace

namespace minicuda::testing {
namespace {

class PtxSpecialRegisters : public Ready {
 protected:
  void SetUp() override {
    Ready::SetUp();
    ASSERT_EQ(cuModuleLoadData(&module_, kPtx), CUDA_SUCCESS);
  }
  void TearDown() override {
    if (module_ != nullptr) EXPECT_EQ(cuModuleUnload(module_), CUDA_SUCCESS);
  }
  CUfunction function(const char* name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, module_, name), CUDA_SUCCESS);
    return f;
  }
  // Launches name<<<blocks, threads>>> with args and reads back words 32-bit words of out.
  std::vector<uint32_t> run(const char* name, unsigned blocks, unsigned threads, size_t words,
                            std::vector<void*> extra_args = {}) {
    CUdeviceptr out = 0;
    EXPECT_EQ(cuMemAlloc_v2(&out, words * 4), CUDA_SUCCESS);
    std::vector<void*> args{&out};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    EXPECT_EQ(cuLaunchKernel(function(name), blocks, 1, 1, threads, 1, 1, 0, nullptr, args.data(), nullptr),
              CUDA_SUCCESS);
    EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    std::vector<uint32_t> h(words);
    EXPECT_EQ(cuMemcpyDtoH_v2(h.data(), out, words * 4), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFree_v2(out), CUDA_SUCCESS);
    return h;
  }
  CUmodule module_ = nullptr;
};

TEST_F(PtxSpecialRegisters, SmAndWarpIdsStayInRangeAndAreTheSameAcrossABlockOrAWarp) {
  constexpr unsigned kBlocks = 264, kThreads = 96;  // two blocks per SM of the H200, three warps each
  const std::vector<uint32_t> h = run("ids", kBlocks, kThreads, kBlocks * kThreads * 5);
  std::set<uint32_t> sms;
  for (unsigned b = 0; b < kBlocks; ++b) {
    std::set<uint32_t> warp_ids;
    for (unsigned t = 0; t < kThreads; ++t) {
      const uint32_t* v = &h[(b * kThreads + t) * 5];
      const uint32_t smid = v[0], nsmid = v[1], warpid = v[2], nwarpid = v[3], laneid = v[4];
      ASSERT_EQ(nsmid, 132u);
      ASSERT_LT(smid, nsmid);
      ASSERT_EQ(smid, h[b * kThreads * 5]) << "block " << b << ": one SM runs a block";
      ASSERT_LT(warpid, nwarpid);
      ASSERT_EQ(warpid, h[(b * kThreads + t / 32 * 32) * 5 + 2]) << "block " << b << " thread " << t;
      ASSERT_EQ(laneid, t % 32);
      warp_ids.insert(warpid);
    }
    EXPECT_EQ(warp_ids.size(), kThreads / 32) << "the warps of a block run at once: each has its own id";
    sms.insert(h[b * kThreads * 5]);
  }
  EXPECT_EQ(sms.size(), 132u);  // 264 blocks spread over every SM
}

TEST_F(PtxSpecialRegisters, TheGlobalTimerCountsNanosecondsForward) {
  const auto before = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const std::vector<uint32_t> h = run("timer", 1, 1, 6);
  const auto after = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const uint64_t first = h[0] | uint64_t{h[1]} << 32, second = h[2] | uint64_t{h[3]} << 32;
  const uint64_t halves = h[4] | uint64_t{h[5]} << 32;
  EXPECT_LE(before, first);
  EXPECT_LE(first, halves);
  EXPECT_LE(halves, second);
  EXPECT_LE(second, after);
}

TEST_F(PtxSpecialRegisters, BarRedCountsAndCombinesTheBlocksPredicates) {
  constexpr unsigned kThreads = 128;
  for (unsigned threshold : {0u, 1u, 37u, 127u, 128u}) {
    const std::vector<uint32_t> h = run("barred", 1, kThreads, kThreads * 3, {&threshold});
    for (unsigned t = 0; t < kThreads; ++t) {
      ASSERT_EQ(h[t * 3], threshold) << "popc, threshold " << threshold << ", thread " << t;
      ASSERT_EQ(h[t * 3 + 1], threshold >= kThreads ? 1u : 0u) << "and, threshold " << threshold;
      ASSERT_EQ(h[t * 3 + 2], threshold > 0 ? 1u : 0u) << "or, threshold " << threshold;
    }
  }
}

}  // namespace
}  // namespace minicuda::testing
