// Tests of the SIMT executor (device_sim/src/simt*.cpp, docs/simt.md) on hand-assembled SASS:
// values computed by straight-line code, divergent branches, loops, barriers, warp operations
// and atomics, the same at every host thread count.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "sass_builder.h"

namespace minicuda::gpu::testing {
namespace {

// r3 = blockIdx.x * blockDim.x + threadIdx.x (and r2 = threadIdx.x).
void global_index(SassBuilder& b) {
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(0), S(NV_SASS_SR_CTAID_X)});
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(1), S(NV_SASS_SR_NTID_X)});
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
  b.op(NV_SASS_OP_MAD, NV_SASS_TYPE_S32, {R(3), R(0), R(1), R(2)});
}

// r9 = param (u64 at `param_offset`) + r3 * 4: the address of element i of a 4-byte array.
void element_address(SassBuilder& b, int64_t param_offset) {
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, param_offset);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_S32, {R(8), R(3), I(4)}).mode = NV_SASS_MUL_WIDE;
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S64, {R(9), R(5), R(8)});
}

// vector_add(const float* a, const float* b, float* c, int n): c[i] = a[i] + b[i] for i < n.
const NvSassProgram& vector_add(SassBuilder& b) {
  global_index(b);
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U32, R(4), -1, 24);
  b.setp(NV_SASS_CMP_GE, NV_SASS_TYPE_S32, 0, R(3), R(4));
  b.bra("end", 0);
  element_address(b, 0);
  b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, R(10), 9, 0);
  element_address(b, 8);
  b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, R(11), 9, 0);
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_F32, {R(12), R(10), R(11)});
  element_address(b, 16);
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, 9, 0, R(12));
  b.label("end");
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(28);
  return b.finish();
}

TEST(Simt, VectorAddComputesEveryElementAndStopsAtN) {
  const int n = 1000;
  std::vector<float> a(1024), bv(1024), c(1024, -1.0f);
  for (int i = 0; i < 1024; ++i) a[i] = static_cast<float>(i), bv[i] = 0.5f * static_cast<float>(i);
  SassBuilder b;
  const NvSassProgram& program = vector_add(b);
  SassGrid g;
  g.grid = dim3(4), g.block = dim3(256);
  g.params = {address_of(a), address_of(bv), address_of(c), static_cast<uint64_t>(n)};
  ASSERT_FALSE(g.run(program, 2).has_value());
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.5f * static_cast<float>(i)) << i;
  for (int i = n; i < 1024; ++i) ASSERT_EQ(c[i], -1.0f) << i;  // the threads past n stored nothing
}

// out[tid] = tid odd ? tid * 10 : -tid, through a branch that splits every warp.
const NvSassProgram& if_else(SassBuilder& b) {
  global_index(b);
  b.op(NV_SASS_OP_AND, NV_SASS_TYPE_B32, {R(4), R(3), I(1)});
  b.setp(NV_SASS_CMP_EQ, NV_SASS_TYPE_U32, 0, R(4), I(0));
  b.bra("even", 0);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_S32, {R(6), R(3), I(10)});
  b.bra("join");
  b.label("even");
  b.op(NV_SASS_OP_NEG, NV_SASS_TYPE_S32, {R(6), R(3)});
  b.label("join");
  element_address(b, 0);
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_S32, 9, 0, R(6));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(8);
  return b.finish();
}

TEST(Simt, DivergentIfElseGivesEachLaneItsPath) {
  std::vector<int32_t> out(96, 0);
  SassBuilder b;
  const NvSassProgram& program = if_else(b);
  SassGrid g;
  g.block = dim3(96);
  g.params = {address_of(out)};
  ASSERT_FALSE(g.run(program).has_value());
  for (int i = 0; i < 96; ++i) EXPECT_EQ(out[i], i % 2 ? i * 10 : -i) << i;
}

// out[i] = 0 + 1 + ... + (in[i] - 1): a loop whose trip count differs per lane.
TEST(Simt, LoopWithAPerLaneTripCount) {
  std::vector<int32_t> in(64), out(64, -1);
  for (int i = 0; i < 64; ++i) in[i] = (i * 7) % 23;
  SassBuilder b;
  global_index(b);
  element_address(b, 0);
  b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_S32, R(10), 9, 0);  // trips
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_S32, {R(11), I(0)});        // k
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_S32, {R(12), I(0)});        // sum
  b.label("loop");
  b.setp(NV_SASS_CMP_GE, NV_SASS_TYPE_S32, 0, R(11), R(10));
  b.bra("done", 0);
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S32, {R(12), R(12), R(11)});
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S32, {R(11), R(11), I(1)});
  b.bra("loop");
  b.label("done");
  element_address(b, 8);
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_S32, 9, 0, R(12));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(16);
  SassGrid g;
  g.grid = dim3(2), g.block = dim3(32);
  g.params = {address_of(in), address_of(out)};
  ASSERT_FALSE(g.run(b.finish()).has_value());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], in[i] * (in[i] - 1) / 2) << i;
}

// The classic shared-memory tree reduction: one sum per block of 256, bar.sync between steps.
const NvSassProgram& block_sum(SassBuilder& b) {
  global_index(b);
  element_address(b, 0);
  b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, R(10), 9, 0);
  b.op(NV_SASS_OP_SHL, NV_SASS_TYPE_B32, {R(13), R(2), I(2)});   // tid * 4: the shared slot
  b.st(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, 13, 0, R(10));
  b.op(NV_SASS_OP_BAR_SYNC, NV_SASS_TYPE_NONE, {I(0)});
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(14), I(128)});        // s
  b.label("step");
  b.setp(NV_SASS_CMP_GE, NV_SASS_TYPE_U32, 0, R(2), R(14));
  b.bra("skip", 0);
  b.op(NV_SASS_OP_SHL, NV_SASS_TYPE_B32, {R(15), R(14), I(2)});
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U32, {R(15), R(15), R(13)});
  b.ld(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, R(16), 15, 0);
  b.ld(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, R(17), 13, 0);
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U32, {R(17), R(17), R(16)});
  b.st(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, 13, 0, R(17));
  b.label("skip");
  b.op(NV_SASS_OP_BAR_SYNC, NV_SASS_TYPE_NONE, {I(0)});
  b.op(NV_SASS_OP_SHR, NV_SASS_TYPE_U32, {R(14), R(14), I(1)});
  b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 0, R(14), I(0));
  b.bra("step", 0);
  b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 0, R(2), I(0));
  b.bra("end", 0);
  b.ld(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, R(17), -1, 0);
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 8);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(8), R(0), I(4)}).mode = NV_SASS_MUL_WIDE;
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U64, {R(9), R(5), R(8)});
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 0, R(17));
  b.label("end");
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(16);
  b.shared_bytes(256 * 4);
  return b.finish();
}

TEST(Simt, BarSyncBlockReductionSumsEachBlock) {
  const unsigned blocks = 40;
  std::vector<uint32_t> in(blocks * 256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i * 2654435761u >> 20);
  SassBuilder b;
  const NvSassProgram& program = block_sum(b);
  std::vector<uint32_t> sums1(blocks), sums4(blocks);
  for (auto [threads, out] : {std::pair{1u, &sums1}, std::pair{4u, &sums4}}) {
    SassGrid g;
    g.grid = dim3(blocks), g.block = dim3(256);
    g.params = {address_of(in), address_of(*out)};
    ASSERT_FALSE(g.run(program, threads).has_value());
  }
  for (unsigned k = 0; k < blocks; ++k) {
    const uint32_t expected = std::accumulate(in.begin() + k * 256, in.begin() + (k + 1) * 256, 0u);
    EXPECT_EQ(sums1[k], expected) << k;
  }
  EXPECT_EQ(sums1, sums4);  // the same at every host thread count
}

// shfl.down tree sum, ballot of odd lanes, vote.all / vote.any: one warp.
TEST(Simt, ShuffleAndVotesSeeTheWholeWarp) {
  std::vector<uint32_t> out(32 * 4, 0);
  SassBuilder b;
  global_index(b);
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(10), R(2)});  // value = lane
  for (uint32_t delta : {16u, 8u, 4u, 2u, 1u}) {
    b.op(NV_SASS_OP_SHFL, NV_SASS_TYPE_B32, {R(11), R(10), I(delta), I(31), I(0xFFFFFFFF)}).mode = NV_SASS_SHFL_DOWN;
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U32, {R(10), R(10), R(11)});
  }
  b.op(NV_SASS_OP_AND, NV_SASS_TYPE_B32, {R(12), R(2), I(1)});
  b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 1, R(12), I(0));
  b.op(NV_SASS_OP_VOTE, NV_SASS_TYPE_B32, {R(13), P(1), I(0xFFFFFFFF)}).mode = NV_SASS_VOTE_BALLOT;
  b.op(NV_SASS_OP_VOTE, NV_SASS_TYPE_PRED, {P(2), P(1), I(0xFFFFFFFF)}).mode = NV_SASS_VOTE_ALL;
  b.op(NV_SASS_OP_VOTE, NV_SASS_TYPE_PRED, {P(3), P(1), I(0xFFFFFFFF)}).mode = NV_SASS_VOTE_ANY;
  b.op(NV_SASS_OP_SELP, NV_SASS_TYPE_U32, {R(14), I(1), I(0), P(2)});
  b.op(NV_SASS_OP_SELP, NV_SASS_TYPE_U32, {R(15), I(1), I(0), P(3)});
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(8), R(2), I(16)}).mode = NV_SASS_MUL_WIDE;
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U64, {R(9), R(5), R(8)});
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 0, R(10));
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 4, R(13));
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 8, R(14));
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 12, R(15));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(8);
  SassGrid g;
  g.params = {address_of(out)};
  ASSERT_FALSE(g.run(b.finish()).has_value());
  EXPECT_EQ(out[0], 31u * 32 / 2);  // lane 0 holds the sum of every lane
  EXPECT_EQ(out[1], 0xAAAAAAAAu);   // the odd lanes
  EXPECT_EQ(out[2], 0u);            // not all odd
  EXPECT_EQ(out[3], 1u);            // some odd
  EXPECT_EQ(out[31 * 4], 31u * 32);  // lane 31: out of range at every step, so it adds itself
}

// A shuffle inside divergent code waits for its membermask: lanes of both paths meet there.
TEST(Simt, ShuffleAfterDivergenceWaitsForItsMembermask) {
  std::vector<uint32_t> out(32, 0);
  SassBuilder b;
  global_index(b);
  b.op(NV_SASS_OP_AND, NV_SASS_TYPE_B32, {R(4), R(2), I(1)});
  b.setp(NV_SASS_CMP_EQ, NV_SASS_TYPE_U32, 0, R(4), I(0));
  b.bra("even", 0);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(10), R(2), I(100)});
  b.op(NV_SASS_OP_SHFL, NV_SASS_TYPE_B32, {R(11), R(10), I(1), I(0x1F), I(0xFFFFFFFF)}).mode = NV_SASS_SHFL_BFLY;
  b.bra("store");
  b.label("even");
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(10), R(2)});
  b.op(NV_SASS_OP_SHFL, NV_SASS_TYPE_B32, {R(11), R(10), I(1), I(0x1F), I(0xFFFFFFFF)}).mode = NV_SASS_SHFL_BFLY;
  b.label("store");
  element_address(b, 0);
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 0, R(11));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(8);
  SassGrid g;
  g.params = {address_of(out)};
  ASSERT_FALSE(g.run(b.finish()).has_value());
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t partner = l ^ 1;
    EXPECT_EQ(out[l], partner % 2 ? partner * 100 : partner) << l;
  }
}

// atom.global.add by every thread of 8 blocks, atom.shared.add per block then one global
// store per block, atom.global.max and atom.global.add.f32.
TEST(Simt, AtomicsOnGlobalAndSharedMemory) {
  std::vector<uint32_t> counters(4 + 8, 0);
  std::vector<float> fsum(1, 0.0f);
  SassBuilder b;
  global_index(b);
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
  b.atom(NV_SASS_SPACE_GLOBAL, NV_SASS_ATOM_ADD, NV_SASS_TYPE_U32, R(6), 5, {I(1)});
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U64, {R(7), R(5), I(4)});
  b.atom(NV_SASS_SPACE_GLOBAL, NV_SASS_ATOM_MAX, NV_SASS_TYPE_U32, R(6), 7, {R(3)});
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(8), -1, 8);
  b.atom(NV_SASS_SPACE_GLOBAL, NV_SASS_ATOM_ADD, NV_SASS_TYPE_F32, R(6), 8, {F(0.25f)});
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U64, {R(9), I(0)});
  b.atom(NV_SASS_SPACE_SHARED, NV_SASS_ATOM_ADD, NV_SASS_TYPE_U32, R(6), 9, {R(2)});
  b.op(NV_SASS_OP_BAR_SYNC, NV_SASS_TYPE_NONE, {I(0)});
  b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 0, R(2), I(0));
  b.bra("end", 0);
  b.ld(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, R(10), -1, 0);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(11), R(0), I(4)}).mode = NV_SASS_MUL_WIDE;
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U64, {R(11), R(11), R(5)});
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 11, 16, R(10));
  b.label("end");
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(16);
  b.shared_bytes(4);
  SassGrid g;
  g.grid = dim3(8), g.block = dim3(128);
  g.params = {address_of(counters), address_of(fsum)};
  ASSERT_FALSE(g.run(b.finish(), 4).has_value());
  EXPECT_EQ(counters[0], 8u * 128);
  EXPECT_EQ(counters[1], 8u * 128 - 1);
  EXPECT_EQ(fsum[0], 0.25f * 8 * 128);
  for (unsigned k = 0; k < 8; ++k) EXPECT_EQ(counters[4 + k], 127u * 128 / 2) << k;
}

// Conversions, comparisons and bit operations against C++.
TEST(Simt, ArithmeticMatchesCpp) {
  std::vector<uint64_t> out(12, 0);
  SassBuilder b;
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_F32, {R(1), F(-2.75f)});
  b.op(NV_SASS_OP_CVT, NV_SASS_TYPE_S32, {R(2), R(1)}).stype = NV_SASS_TYPE_F32;  // rz: -2
  auto& rni = b.op(NV_SASS_OP_CVT, NV_SASS_TYPE_S32, {R(3), R(1)});
  rni.stype = NV_SASS_TYPE_F32, rni.rounding = NV_SASS_RND_RNI;                     // -3
  b.op(NV_SASS_OP_CVT, NV_SASS_TYPE_F64, {R(4), R(1)}).stype = NV_SASS_TYPE_F32;  // -2.75
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_S32, {R(5), I(static_cast<uint32_t>(-7))});
  b.op(NV_SASS_OP_DIV, NV_SASS_TYPE_S32, {R(6), R(5), I(2)});                      // -3
  b.op(NV_SASS_OP_REM, NV_SASS_TYPE_S32, {R(7), R(5), I(2)});                      // -1
  b.op(NV_SASS_OP_SHR, NV_SASS_TYPE_S32, {R(8), R(5), I(1)});                      // -4
  b.op(NV_SASS_OP_BFE, NV_SASS_TYPE_U32, {R(9), I(0xABCD1234), I(8), I(12)});      // 0xD12
  b.op(NV_SASS_OP_POPC, NV_SASS_TYPE_B32, {R(10), I(0xF0F0)});                     // 8
  b.op(NV_SASS_OP_CVT, NV_SASS_TYPE_S64, {R(11), R(5)}).stype = NV_SASS_TYPE_S32; // -7 in 64 bits
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(12), I(0x80000000u), I(6)}).mode = NV_SASS_MUL_HI;  // 3
  b.op(NV_SASS_OP_LOP3, NV_SASS_TYPE_B32, {R(13), I(0xF0), I(0xCC), I(0xAA)}).mode = 0x96;  // xor: 0x96
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(20), -1, 0);
  for (uint32_t r = 2; r <= 13; ++r) b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U64, 20, (r - 2) * 8, R(r));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(8);
  SassGrid g;
  g.block = dim3(1);
  g.params = {address_of(out)};
  ASSERT_FALSE(g.run(b.finish()).has_value());
  EXPECT_EQ(static_cast<int32_t>(out[0]), -2);
  EXPECT_EQ(static_cast<int32_t>(out[1]), -3);
  EXPECT_EQ(std::bit_cast<double>(out[2]), -2.75);
  EXPECT_EQ(static_cast<int32_t>(out[4]), -3);
  EXPECT_EQ(static_cast<int32_t>(out[5]), -1);
  EXPECT_EQ(static_cast<int32_t>(out[6]), -4);
  EXPECT_EQ(out[7], 0xD12u);
  EXPECT_EQ(out[8], 8u);
  EXPECT_EQ(static_cast<int64_t>(out[9]), -7);
  EXPECT_EQ(out[10], 3u);
  EXPECT_EQ(out[11], 0x96u ^ 0u);
}

}  // namespace
}  // namespace minicuda::gpu::testing
