// Tests of the SIMT executor's errors, printf and warp trace (device_sim/src/simt*.cpp,
// docs/simt.md): faults name the SASS instruction and its source line, trap and __assertfail
// stop the grid as C++ kernels' do, vprintf writes the printf FIFO, and the warp trace shows
// each warp-instruction with its active mask, where a branch diverges and where lanes
// reconverge.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <vector>

#include <fmt/format.h>

#include "minicuda/trace.h"
#include "sass_builder.h"

namespace minicuda::gpu::testing {
namespace {

// r2 = threadIdx.x, r9 = the u64 parameter at 0 + tid * 4.
void thread_address(SassBuilder& b) {
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(8), R(2), I(4)}).mode = NV_SASS_MUL_WIDE;
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U64, {R(9), R(5), R(8)});
}

TEST(SimtErrors, StoreToAnUnmappedPageIsIllegalAddressWithItsLine) {
  // A page with no access: the store of thread 5 (block 1) faults there.
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  std::vector<uint32_t> ok(64, 0);
  SassBuilder b;
  thread_address(b);
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(0), S(NV_SASS_SR_CTAID_X)});
  b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 0, R(2), I(5));
  b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 1, R(0), I(1));
  b.op(NV_SASS_OP_OR, NV_SASS_TYPE_PRED, {P(0), P(0), P(1)});
  b.bra("store", 0);
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(9), -1, 8);  // the bad pointer
  b.label("store");
  b.line(42);
  b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 0, R(2));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(16);
  SassGrid g;
  g.grid = dim3(2), g.block = dim3(32);
  g.params = {address_of(ok), reinterpret_cast<uint64_t>(page)};
  std::optional<BlockError> e = g.run(b.finish());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->block, 1u);
  EXPECT_EQ(e->error.kind, KernelErrorKind::IllegalAddress);
  EXPECT_EQ(e->error.address, reinterpret_cast<uint64_t>(page));
  EXPECT_TRUE(e->error.write);
  EXPECT_EQ(e->error.thread.x, 5u);
  EXPECT_EQ(e->error.message,
            fmt::format("illegal write of address {:#x} at st.global.u32 [r9], r2 (kernel.cu:42)",
                        reinterpret_cast<uint64_t>(page)));
  munmap(page, 4096);
}

TEST(SimtErrors, MisalignedLoadIsMisalignedAddress) {
  std::vector<uint32_t> data(8, 0);
  SassBuilder b;
  b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
  b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, R(6), 5, 2);
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.param_bytes(8);
  SassGrid g;
  g.params = {address_of(data)};
  std::optional<BlockError> e = g.run(b.finish());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, KernelErrorKind::MisalignedAddress);
  EXPECT_EQ(e->error.address, address_of(data) + 2);
}

TEST(SimtErrors, SharedAccessPastTheBlocksSharedMemoryIsIllegalAddress) {
  SassBuilder b;
  b.st(NV_SASS_SPACE_SHARED, NV_SASS_TYPE_U32, -1, 64, I(1));
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.shared_bytes(64);
  SassGrid g;
  std::optional<BlockError> e = g.run(b.finish());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, KernelErrorKind::IllegalAddress);
}

TEST(SimtErrors, TrapStopsTheGridWithTrap) {
  SassBuilder b;
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
  b.setp(NV_SASS_CMP_EQ, NV_SASS_TYPE_U32, 0, R(2), I(3));
  b.line(7);
  SassBuilder::guard(b.op(NV_SASS_OP_TRAP, NV_SASS_TYPE_NONE, {}), 0);
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  SassGrid g;
  std::optional<BlockError> e = g.run(b.finish());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, KernelErrorKind::Trap);
  EXPECT_EQ(e->error.thread.x, 3u);
  EXPECT_EQ(e->error.message, "trap executed at @p0 trap (kernel.cu:7)");
}

TEST(SimtErrors, AssertfailIsAssertWithCudasMessage) {
  static const char message[] = "x < 4", file[] = "k.cu", function[] = "void k(int)";
  SassBuilder b;
  b.op(NV_SASS_OP_ASSERTFAIL, NV_SASS_TYPE_NONE,
       {I(reinterpret_cast<uint64_t>(message)), I(reinterpret_cast<uint64_t>(file)), I(12),
        I(reinterpret_cast<uint64_t>(function))});
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  SassGrid g;
  g.grid = dim3(1, 2);
  std::optional<BlockError> e = g.run(b.finish());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, KernelErrorKind::Assert);
  EXPECT_EQ(e->error.message, "k.cu:12: void k(int): block: [0,0,0], thread: [0,0,0] Assertion `x < 4` failed.");
}

TEST(SimtErrors, BarrierThatCanNeverOpenIsADeadlock) {
  // Lanes 0..15 wait at bar.sync while 16..31 wait at a shuffle that needs lanes 0..15.
  SassBuilder b;
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
  b.setp(NV_SASS_CMP_LT, NV_SASS_TYPE_U32, 0, R(2), I(16));
  b.bra("low", 0);
  b.op(NV_SASS_OP_SHFL, NV_SASS_TYPE_B32, {R(3), R(2), I(1), I(31), I(0xFFFFFFFF)}).mode = NV_SASS_SHFL_BFLY;
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.label("low");
  b.op(NV_SASS_OP_BAR_SYNC, NV_SASS_TYPE_NONE, {I(0)});
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  SassGrid g;
  std::optional<BlockError> e = g.run(b.finish());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, KernelErrorKind::Trap);
  EXPECT_EQ(e->error.message.rfind("deadlock: 16 of 32 threads wait at bar.sync", 0), 0u) << e->error.message;
}

TEST(SimtErrors, AProgramNamingARegisterPastItsFileIsRefusedBeforeItRuns) {
  SassBuilder b;
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U32, {R(1), R(0), I(1)});
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  NvSassProgram program = b.finish();
  program.register_count = 1;  // r1 is past the file
  SassGrid g;
  std::optional<BlockError> e = g.run(program);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, KernelErrorKind::IllegalInstruction);
  EXPECT_EQ(e->error.message, "the SASS program of test_kernel cannot run: instruction 0 (add.u32 r1, r0, 1) is malformed");
}

TEST(SimtPrintf, VprintfFormatsEachLanesArgumentBuffer) {
  static const char format[] = "thread %d of %u: %.2f %s|%5lld\n";
  static const char word[] = "ok";
  SassBuilder b;
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(3), S(NV_SASS_SR_NTID_X)});
  b.op(NV_SASS_OP_CVT, NV_SASS_TYPE_F64, {R(4), R(2)}).stype = NV_SASS_TYPE_U32;
  b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_F64, {R(4), R(4), I(std::bit_cast<uint64_t>(0.5))});
  // The argument buffer in local memory, each argument at its own alignment: int at 0,
  // unsigned at 4, double at 8, char* at 16, long long at 24.
  b.st(NV_SASS_SPACE_LOCAL, NV_SASS_TYPE_U32, -1, 0, R(2));
  b.st(NV_SASS_SPACE_LOCAL, NV_SASS_TYPE_U32, -1, 4, R(3));
  b.st(NV_SASS_SPACE_LOCAL, NV_SASS_TYPE_F64, -1, 8, R(4));
  b.st(NV_SASS_SPACE_LOCAL, NV_SASS_TYPE_U64, -1, 16, I(reinterpret_cast<uint64_t>(word)));
  b.st(NV_SASS_SPACE_LOCAL, NV_SASS_TYPE_S64, -1, 24, I(static_cast<uint64_t>(-42)));
  auto& cvta = b.op(NV_SASS_OP_CVTA, NV_SASS_TYPE_U64, {R(6), I(0)});
  cvta.space = NV_SASS_SPACE_LOCAL;
  b.op(NV_SASS_OP_PRINTF, NV_SASS_TYPE_NONE, {R(7), I(reinterpret_cast<uint64_t>(format)), R(6)});
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  b.local_bytes(32);
  SassGrid g;
  g.block = dim3(3);
  g.printf_fifo.assign(4096, 0);
  ASSERT_FALSE(g.run(b.finish()).has_value());
  EXPECT_EQ(g.printed(),
            "thread 0 of 3: 0.00 ok|  -42\n"
            "thread 1 of 3: 0.50 ok|  -42\n"
            "thread 2 of 3: 1.00 ok|  -42\n");
}

// if (tid < 2) x = 1; else x = 2; then one instruction after the join, on a warp of 4 lanes.
TEST(SimtTrace, WarpTraceShowsMasksDivergenceAndReconvergence) {
  SassBuilder b;
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
  b.setp(NV_SASS_CMP_LT, NV_SASS_TYPE_U32, 0, R(2), I(2));
  b.bra("then", 0);
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(3), I(2)});
  b.bra("join");
  b.label("then");
  b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(3), I(1)});
  b.label("join");
  b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U32, {R(4), R(3), R(2)});
  b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
  const NvSassProgram& program = b.finish();
  trace::Recorder recorder;
  SassGrid g;
  g.block = dim3(4);
  ASSERT_FALSE(g.run(program).has_value());
  const std::vector<std::string> expected = {
      "block (0,0,0) warp 0 pc 0 mask 0000000f: mov.u32 r2, %tid.x",
      "block (0,0,0) warp 0 pc 1 mask 0000000f: setp.lt.u32 p0, r2, 2",
      "block (0,0,0) warp 0 pc 2 mask 0000000f: @p0 bra 5  // guard 00000003",
      "block (0,0,0) warp 0 pc 2 diverge: 00000003 to 5, 0000000c to 3",
      "block (0,0,0) warp 0 pc 3 mask 0000000c: mov.u32 r3, 2",
      "block (0,0,0) warp 0 pc 4 mask 0000000c: bra 6",
      "block (0,0,0) warp 0 pc 5 mask 00000003: mov.u32 r3, 1",
      "block (0,0,0) warp 0 pc 6 reconverge 0000000f",
      "block (0,0,0) warp 0 pc 6 mask 0000000f: add.u32 r4, r3, r2",
      "block (0,0,0) warp 0 pc 7 mask 0000000f: exit",
  };
  EXPECT_EQ(recorder.texts(trace::Layer::Warp), expected);
}

}  // namespace
}  // namespace minicuda::gpu::testing
