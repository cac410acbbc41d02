// nv_uapi_compute.h: the compute class (HOPPER_COMPUTE_A, 0xCBC0) as libcuda and the GPU share
// it - the launch methods, the QMD ("queue meta data") a launch points at, the code record
// minicuda's loader places where SASS would be, and the SM exception codes a faulting kernel
// leaves in the channel's error notifier.
//
// Sources: clc6c0.h (SEND_PCAS_A 0x2B4, SEND_SIGNALING_PCAS2_B 0x2C0) and clc9c0qmd.h (QMD V03_00
// field positions) from NVIDIA/open-gpu-kernel-modules; tinygrad's ops_nv.py launches Hopper
// kernels with exactly this QMD version and these two methods (shared/reference/real-stack.md
// §1.6). Multi-word fields are written "MW(hi:lo)" there: bit positions in the 2048-bit QMD.
#pragma once

#include <cstdint>

#include "nv_uapi_methods.h"

// --- methods (subchannel bound to HOPPER_COMPUTE_A) ---------------------------------------
inline constexpr NvU32 NVCBC0_SEND_PCAS_A = 0x02B4;  // QMD address >> 8 (bits 39:8)
// minicuda's one addition to the class: bits 63:40 of the QMD address, for the next SEND_PCAS_A.
// The real driver keeps QMDs below 1 TiB of GPU VA, which SEND_PCAS_A reaches alone; minicuda's
// GPU VAs are the host's (UVA), far above, so the upper bits need a method of their own.
inline constexpr NvU32 NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER = 0x0FF0;
inline constexpr NvU32 NVCBC0_SEND_SIGNALING_PCAS2_B = 0x02C0;
inline constexpr NvBitField NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION{3, 0};
inline constexpr NvU32 NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE = 9;

// --- QMD V03_00 ---------------------------------------------------------------------------
inline constexpr NvU32 NVCBC0_QMD_BYTES = 256;  // 0x40 dwords
inline constexpr NvU32 NVCBC0_QMD_ALIGNMENT = 256;  // SEND_PCAS_A takes the address >> 8

struct NvQmdField {  // MW(hi:lo)
  NvU32 hi, lo;
};
inline constexpr NvQmdField NVC9C0_QMDV03_00_CTA_RASTER_WIDTH{415, 384};
inline constexpr NvQmdField NVC9C0_QMDV03_00_CTA_RASTER_HEIGHT{431, 416};
inline constexpr NvQmdField NVC9C0_QMDV03_00_CTA_RASTER_DEPTH{463, 448};
inline constexpr NvQmdField NVC9C0_QMDV03_00_SHARED_MEMORY_SIZE{561, 544};
inline constexpr NvQmdField NVC9C0_QMDV03_00_QMD_MAJOR_VERSION{583, 580};
inline constexpr NvQmdField NVC9C0_QMDV03_00_CTA_THREAD_DIMENSION0{607, 592};
inline constexpr NvQmdField NVC9C0_QMDV03_00_CTA_THREAD_DIMENSION1{623, 608};
inline constexpr NvQmdField NVC9C0_QMDV03_00_CTA_THREAD_DIMENSION2{639, 624};
constexpr NvQmdField NVC9C0_QMDV03_00_CONSTANT_BUFFER_VALID(NvU32 i) { return {640 + i, 640 + i}; }
inline constexpr NvQmdField NVC9C0_QMDV03_00_REGISTER_COUNT_V{656, 648};
inline constexpr NvQmdField NVC9C0_QMDV03_00_BARRIER_COUNT{767, 763};
constexpr NvQmdField NVC9C0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(NvU32 i) { return {1055 + i * 64, 1024 + i * 64}; }
constexpr NvQmdField NVC9C0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(NvU32 i) { return {1072 + i * 64, 1056 + i * 64}; }
constexpr NvQmdField NVC9C0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(NvU32 i) { return {1087 + i * 64, 1075 + i * 64}; }
inline constexpr NvQmdField NVC9C0_QMDV03_00_PROGRAM_ADDRESS_LOWER{1567, 1536};
inline constexpr NvQmdField NVC9C0_QMDV03_00_PROGRAM_ADDRESS_UPPER{1584, 1568};
inline constexpr NvU32 NVC9C0_QMDV03_00_QMD_MAJOR_VERSION_3 = 3;

// Constant banks of a minicuda launch: 0 holds the kernel's parameters (as on the real GPU),
// 1 the driver's printf FIFO (the real driver keeps its printf buffer address in a driver bank).
inline constexpr NvU32 NV_QMD_CBANK_PARAMS = 0;
inline constexpr NvU32 NV_QMD_CBANK_PRINTF = 1;

// No field crosses a 32-bit word (true of every field above).
constexpr void nv_qmd_set(NvU32* qmd, NvQmdField f, NvU32 value) {
  NvU32 word = f.lo / 32, shift = f.lo % 32, width = f.hi - f.lo + 1;
  NvU32 mask = width >= 32 ? 0xFFFFFFFFu : ((1u << width) - 1u);
  qmd[word] = (qmd[word] & ~(mask << shift)) | ((value & mask) << shift);
}
constexpr NvU32 nv_qmd_get(const NvU32* qmd, NvQmdField f) {
  NvU32 width = f.hi - f.lo + 1;
  NvU32 mask = width >= 32 ? 0xFFFFFFFFu : ((1u << width) - 1u);
  return (qmd[f.lo / 32] >> (f.lo % 32)) & mask;
}
static_assert(NVC9C0_QMDV03_00_PROGRAM_ADDRESS_UPPER.hi / 32 == NVC9C0_QMDV03_00_PROGRAM_ADDRESS_UPPER.lo / 32);
static_assert(NVC9C0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(1).hi / 32 ==
              NVC9C0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(1).lo / 32);

// --- occupancy ------------------------------------------------------------------------------
// How many blocks one SM holds at once: the rules of cuda_occupancy.h (real-stack.md §4.3), which
// the compute work distributor enforces and cuOccupancyMaxActiveBlocksPerMultiprocessor reports.
struct NvSmLimits {
  NvU32 warp_size, max_threads_per_sm, max_blocks_per_sm, regs_per_sm;
  NvU64 shared_per_sm, reserved_shared_per_block;
};
struct NvOccupancy {
  NvU32 blocks_per_sm;  // 0: a block does not fit at all
  const char* limit;    // which rule decided: "blocks", "threads", "registers", "shared memory"
};
constexpr NvOccupancy nv_occupancy(const NvSmLimits& sm, NvU32 threads, NvU32 registers, NvU64 shared) {
  if (threads == 0 || sm.warp_size == 0) return {0, "threads"};
  auto round_up = [](NvU64 v, NvU64 unit) { return (v + unit - 1) / unit * unit; };
  NvU64 warps = (threads + sm.warp_size - 1) / sm.warp_size;
  NvOccupancy best{sm.max_blocks_per_sm, "blocks"};
  auto limit = [&best](NvU64 blocks, const char* why) {
    if (blocks < best.blocks_per_sm) best = {static_cast<NvU32>(blocks), why};
  };
  limit(sm.max_threads_per_sm / sm.warp_size / warps, "threads");
  // Registers: 256 per warp granule; a block's warps are rounded up to the 4 sub-partitions, each
  // of which has a quarter of the register file.
  NvU64 regs_per_warp = round_up(NvU64{registers == 0 ? 1 : registers} * sm.warp_size, 256);
  NvU64 warps_per_partition = sm.regs_per_sm / 4 / regs_per_warp;
  limit(warps_per_partition / ((warps + 3) / 4), "registers");
  // Shared memory: the block's, plus the 1 KiB the driver reserves, in 128-byte units.
  limit(sm.shared_per_sm / round_up(shared + sm.reserved_shared_per_block, 128), "shared memory");
  return best;
}
// An H200 (probe.txt): 256 threads and 32 registers -> 8 blocks (threads); 48 KiB -> 4 (shared memory).
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 256, 32, 0).blocks_per_sm == 8);
// One-warp blocks are charged four warps of registers: 32 registers -> 16 blocks, 16 -> 32.
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 32, 32, 0).blocks_per_sm == 16);
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 32, 16, 0).blocks_per_sm == 32);
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 64, 32, 49152).blocks_per_sm == 4);
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 1024, 255, 0).blocks_per_sm == 0);

// --- the code record ------------------------------------------------------------------------
// A real QMD's PROGRAM_ADDRESS points at SASS that cuLibraryLoadData copied into GPU memory.
// minicuda's kernels are host machine code, so the loader copies this record there instead:
// the SM fetches it through the GPU's page tables and calls `entry` per thread.
struct NvMinicudaKernelCode {
  NvU32 magic;        // NV_MINICUDA_KERNEL_CODE_MAGIC
  NvU32 param_bytes;  // the size of constant bank 0 the kernel expects
  NvU64 entry;        // minicuda::gpu::KernelEntry
  NvU64 name;         // const char*, for fault reports
  NvU64 block_entry;  // minicuda::gpu::KernelBlockEntry (0: run threads through `entry`)
  NvU64 region_entry; // minicuda::gpu::KernelRegionEntry (0: the kernel has no block function)
};
static_assert(sizeof(NvMinicudaKernelCode) == 40);
inline constexpr NvU32 NV_MINICUDA_KERNEL_CODE_MAGIC = 0x4D53434Du;  // "MCSM"

// --- the printf FIFO ------------------------------------------------------------------------
// Constant bank 1 of a launch: the header, then the text of device printf calls, appended by
// the SM (write advanced atomically; a record that does not fit is counted in dropped), read
// and reset by libcuda once the channel is idle.
struct NvMinicudaPrintfFifo {
  NvU32 write;    // bytes reserved after the header (may pass the end: a record that did not fit)
  NvU32 dropped;  // records that did not fit
  NvU32 end;      // end of the last record written: the text to print is [0, end)
  NvU32 reserved;
};

// --- SM exceptions -------------------------------------------------------------------------
// A kernel error other than an MMU fault is a graphics exception (Xid 13,
// ROBUST_CHANNEL_GR_EXCEPTION); RM finds which in the SM's warp error status register. The real
// ESR codes are in non-public hardware headers; these are minicuda's, written to the error
// notifier's info16 next to the Xid in info32.
inline constexpr NvU16 NV_SM_EXCEPTION_NONE = 0;
inline constexpr NvU16 NV_SM_EXCEPTION_MISALIGNED_ADDR = 1;  // -> CUDA_ERROR_MISALIGNED_ADDRESS
inline constexpr NvU16 NV_SM_EXCEPTION_ASSERT = 2;           // -> CUDA_ERROR_ASSERT
inline constexpr NvU16 NV_SM_EXCEPTION_TRAP = 3;             // -> CUDA_ERROR_LAUNCH_FAILED
inline constexpr NvU16 NV_SM_EXCEPTION_ILLEGAL_INSTR = 4;    // -> CUDA_ERROR_ILLEGAL_INSTRUCTION
inline constexpr NvU16 NV_SM_EXCEPTION_STACK_OVERFLOW = 5;   // -> CUDA_ERROR_LAUNCH_FAILED
inline constexpr NvU16 NV_SM_EXCEPTION_BAD_LAUNCH = 6;       // a QMD or code record the SM rejects
