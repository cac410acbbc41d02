// A SASS kernel launched the way libcuda launches one: a code record whose `sass` points at the
// program, a QMD with the grid and constant bank 0, SEND_PCAS through a channel - so the compute
// engine decodes the program (compute_engine.cpp) and the SMs run it on the SIMT executor. C++
// kernels' code records (sass 0) are covered by every kernel test of the suite.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "gpu_channel_builder.h"
#include "minicuda/device.h"
#include "nv_hw_classes.h"
#include "sass_builder.h"

namespace minicuda::gpu {
namespace {

using testing::at;
using testing::I;
using testing::Pushbuffer;
using testing::R;
using testing::S;
using testing::SassBuilder;
using testing::TestChannel;

class SimtLaunchTest : public ::testing::Test {
 protected:
  SimtLaunchTest() { EXPECT_TRUE(device.mmu().map_vidmem(data, kBigPage, kBigPage)); }

  // out[i] = i * 3 for every thread i, and a store to `bad` by thread 70 when bad != 0.
  const NvSassProgram& times_three() {
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(0), S(NV_SASS_SR_CTAID_X)});
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(1), S(NV_SASS_SR_NTID_X)});
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
    b.op(NV_SASS_OP_MAD, NV_SASS_TYPE_S32, {R(3), R(0), R(1), R(2)});
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
    b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(8), R(3), I(4)}).mode = NV_SASS_MUL_WIDE;
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U64, {R(9), R(5), R(8)});
    b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_U32, {R(10), R(3), I(3)});
    b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 9, 0, R(10));
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(11), -1, 8);
    b.setp(NV_SASS_CMP_EQ, NV_SASS_TYPE_U64, 0, R(11), I(0));
    b.setp(NV_SASS_CMP_NE, NV_SASS_TYPE_U32, 1, R(3), I(70));
    b.op(NV_SASS_OP_OR, NV_SASS_TYPE_PRED, {testing::P(0), testing::P(0), testing::P(1)});
    b.bra("end", 0);
    b.line(9);
    b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_U32, 11, 0, R(10));
    b.label("end");
    b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
    b.param_bytes(16);
    return b.finish();
  }

  // Writes the code record, the parameters and a QMD for <<<blocks, threads>>> into the data
  // page and launches it on the channel, then a semaphore release; runs it to the end.
  void launch(const NvSassProgram& program, uint32_t blocks, uint32_t threads, uint64_t out, uint64_t bad) {
    NvMinicudaKernelCode code{};
    code.magic = NV_MINICUDA_KERNEL_CODE_MAGIC;
    code.param_bytes = program.param_bytes;
    code.name = program.name;
    code.sass = nv_ptr_to_p64(&program);
    std::memcpy(at<void>(data + kCode), &code, sizeof code);
    const uint64_t params[2] = {out, bad};
    std::memcpy(at<void>(data + kParams), params, sizeof params);
    NvU32 qmd[NVCBC0_QMD_BYTES / 4] = {};
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_QMD_MAJOR_VERSION, NVCBC0_QMDV03_00_QMD_MAJOR_VERSION_3);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_WIDTH, blocks);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_HEIGHT, 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_DEPTH, 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION0, threads);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION1, 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION2, 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_REGISTER_COUNT_V, program.register_count);
    const uint64_t program_va = data + kCode;
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_LOWER, static_cast<uint32_t>(program_va));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER, static_cast<uint32_t>(program_va >> 32));
    const uint64_t bank = data + kParams;
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(NV_QMD_CBANK_PARAMS), 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NV_QMD_CBANK_PARAMS), static_cast<uint32_t>(bank));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NV_QMD_CBANK_PARAMS), static_cast<uint32_t>(bank >> 32));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(NV_QMD_CBANK_PARAMS), 1);
    std::memcpy(at<void>(data + kQmd), qmd, sizeof qmd);
    const uint64_t qmd_va = data + kQmd;
    channel.submit(Pushbuffer()
                       .set_object(NV_SUBCHANNEL_COMPUTE, HOPPER_COMPUTE_A)
                       .inc(NV_SUBCHANNEL_COMPUTE, NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER,
                            {static_cast<uint32_t>(qmd_va >> 40)})
                       .inc(NV_SUBCHANNEL_COMPUTE, NVCBC0_SEND_PCAS_A, {static_cast<uint32_t>(qmd_va >> 8)})
                       .inc(NV_SUBCHANNEL_COMPUTE, NVCBC0_SEND_SIGNALING_PCAS2_B,
                            {NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE})
                       .release32(data + kSemaphore, 1));
    device.host().run_pending();
  }

  static constexpr uint64_t kCode = 0, kParams = 0x100, kQmd = 0x200, kSemaphore = 0x800, kOut = 0x1000;
  Device device{Preset::Teaching};
  const uint64_t base = device.mmu().uva_base();
  const uint64_t data = base + kBigPage;
  TestChannel channel{device, 3, base, 0};
  SassBuilder b{"times_three"};
};

TEST_F(SimtLaunchTest, TheComputeEngineRunsACodeRecordsSassProgram) {
  const NvSassProgram& program = times_three();
  launch(program, 3, 64, data + kOut, 0);
  EXPECT_TRUE(device.host().faults().empty());
  EXPECT_EQ(*at<uint32_t>(data + kSemaphore), 1u);
  for (uint32_t i = 0; i < 3 * 64; ++i) ASSERT_EQ(at<uint32_t>(data + kOut)[i], i * 3) << i;
}

TEST_F(SimtLaunchTest, AFaultingStoreIsAnMmuFaultNamingTheInstructionAndLine) {
  const NvSassProgram& program = times_three();
  const uint64_t unmapped = base + 8 * kBigPage;  // in the UVA window, mapped by no page table
  launch(program, 3, 64, data + kOut, unmapped);
  const std::vector<ChannelFault> faults = device.host().faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::MmuUnmapped);
  EXPECT_EQ(faults[0].access, Access::Write);
  EXPECT_EQ(faults[0].va, unmapped);
  EXPECT_EQ(faults[0].what, fmt::format("MMU fault: kernel times_three block (1,0,0) thread (6,0,0): illegal write of "
                                        "address {:#x} at st.global.u32 [r11], r10 (kernel.cu:9)",
                                        unmapped));
}

}  // namespace
}  // namespace minicuda::gpu
