// nv_uapi_methods.h - the work-submission ABI: how user space feeds the GPU without a syscall.
//
// libcuda (driver/) writes *methods* into a pushbuffer, points an 8-byte GPFIFO entry at them,
// advances GPPut in the channel's USERD page and stores the channel's work submit token to the
// doorbell (HOPPER_USERMODE_A + NVC361_NOTIFY_CHANNEL_PENDING, declared in nv_uapi.h). The GPU's
// host interface (PBDMA, device_sim/src/pbdma.cpp) fetches the entries, decodes the method
// headers and hands each method to the engine bound to its subchannel. Both sides use this header,
// as the real driver and the real hardware share the class headers.
//
// Values are the real ones, re-declared from NVIDIA/open-gpu-kernel-modules (OGKM)
//   src/common/sdk/nvidia/inc/class/clc56f.h  AMPERE_CHANNEL_GPFIFO_A: USERD, host methods,
//                                             GPFIFO entry and DMA method header formats
//   src/common/sdk/nvidia/inc/class/clc86f.h  HOPPER_CHANNEL_GPFIFO_A: the same layouts, plus
//                                             SEM_ADDR_HI 24:0 and the extended-base GP entry
//   src/common/sdk/nvidia/inc/class/clc8b5.h  HOPPER_DMA_COPY_A (a subset); the full class is
//                                             NVIDIA/open-gpu-doc classes/dma-copy/clc8b5.h
//   src/common/sdk/nvidia/inc/class/clc361.h  VOLTA_USERMODE_A doorbell
// Hopper's host class C86F keeps every offset and field of C56F; clc86f.h re-lists only what
// changed, so the shared items below carry the NVC56F_ names and the Hopper-only ones NVC86F_.
//
// A field is written as in the real headers, "hi:lo", here an NvBitField{hi, lo}; nv_drf_num
// and nv_drf_val are RM's DRF_NUM and DRF_VAL.
#pragma once

#include <cstdint>

#include "nv_uapi.h"

// ============================================================================
// 0. Bit fields ("hi:lo" in the class headers)
// ============================================================================
struct NvBitField {
    NvU32 hi, lo;
};
constexpr NvU32 nv_field_mask(NvBitField f) {
    return f.hi - f.lo >= 31 ? 0xFFFFFFFFu : ((1u << (f.hi - f.lo + 1)) - 1u);
}
// DRF_NUM: value placed in the field.
constexpr NvU32 nv_drf_num(NvBitField f, NvU32 value) { return (value & nv_field_mask(f)) << f.lo; }
// DRF_VAL: the field's value in word.
constexpr NvU32 nv_drf_val(NvBitField f, NvU32 word) { return (word >> f.lo) & nv_field_mask(f); }

// ============================================================================
// 1. USERD: the channel's control page (Nvc56fControl, clc56f.h:48-64; Nvc86fControl is the
//    same). The host writes GPPut, the GPU writes GPGet back as it consumes entries.
// ============================================================================
inline constexpr NvU32 NVC56F_USERD_PUT = 0x40;            // pushbuffer put (legacy, unused here)
inline constexpr NvU32 NVC56F_USERD_GET = 0x44;            // pushbuffer get, read only
inline constexpr NvU32 NVC56F_USERD_REFERENCE = 0x48;      // SET_REFERENCE value, read only
inline constexpr NvU32 NVC56F_USERD_PUT_HI = 0x4C;
inline constexpr NvU32 NVC56F_USERD_TOP_LEVEL_GET = 0x58;  // read only
inline constexpr NvU32 NVC56F_USERD_TOP_LEVEL_GET_HI = 0x5C;
inline constexpr NvU32 NVC56F_USERD_GET_HI = 0x60;
inline constexpr NvU32 NVC56F_USERD_GP_GET = 0x88;         // next entry the GPU reads, read only
inline constexpr NvU32 NVC56F_USERD_GP_PUT = 0x8C;         // one past the last entry written
// 0x10 + 4 + 2 + 2 + 1 + 7 + 2 + 2 + 0x5c dwords = 0x200: each channel's USERD is 512 bytes.
inline constexpr NvU32 NVC56F_USERD_SIZE = 0x200;

// ============================================================================
// 2. GPFIFO entry (clc56f.h:266-284, clc86f.h "GPFIFO entry format"): 8 bytes, little endian,
//    entry0 in the low word.
// ============================================================================
inline constexpr NvU32 NVC56F_GP_ENTRY__SIZE = 8;
inline constexpr NvBitField NVC56F_GP_ENTRY0_FETCH{0, 0};    // 0 UNCONDITIONAL, 1 CONDITIONAL
inline constexpr NvBitField NVC56F_GP_ENTRY0_GET{31, 2};     // pushbuffer address bits 31:2
inline constexpr NvBitField NVC56F_GP_ENTRY1_GET_HI{7, 0};   // pushbuffer address bits 39:32
inline constexpr NvBitField NVC56F_GP_ENTRY1_LEVEL{9, 9};
inline constexpr NvU32 NVC56F_GP_ENTRY1_LEVEL_MAIN = 0;
inline constexpr NvU32 NVC56F_GP_ENTRY1_LEVEL_SUBROUTINE = 1;
inline constexpr NvBitField NVC56F_GP_ENTRY1_LENGTH{30, 10};  // in dwords; 0 = control entry
inline constexpr NvBitField NVC56F_GP_ENTRY1_SYNC{31, 31};
inline constexpr NvU32 NVC56F_GP_ENTRY1_SYNC_PROCEED = 0;
inline constexpr NvU32 NVC56F_GP_ENTRY1_SYNC_WAIT = 1;
// A control entry (LENGTH 0) carries an opcode where GET_HI would be.
inline constexpr NvBitField NVC56F_GP_ENTRY1_OPCODE{7, 0};
inline constexpr NvU32 NVC56F_GP_ENTRY1_OPCODE_NOP = 0;
inline constexpr NvU32 NVC56F_GP_ENTRY1_OPCODE_ILLEGAL = 1;
inline constexpr NvU32 NVC56F_GP_ENTRY1_OPCODE_GP_CRC = 2;
inline constexpr NvU32 NVC56F_GP_ENTRY1_OPCODE_PB_CRC = 3;
// Hopper: an entry holds only 40 address bits, so a pushbuffer above 1 TiB (every UVA address,
// 0x58xx_xxxx_xxxx here) needs a control entry first that sets address bits 56:40 for the
// entries after it (clc86f.h; OGKM kernel-open/nvidia-uvm/uvm_hopper_host.c
// uvm_hal_hopper_host_set_gpfifo_pushbuffer_segment_base).
inline constexpr NvU32 NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE = 4;
inline constexpr NvBitField NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND{24, 8};  // VA bits 56:40

// An entry that makes the PBDMA fetch length_dwords dwords at pushbuffer_va (dword aligned).
// Only address bits 39:2 are encoded; bits 56:40 come from the last extended-base entry.
// tinygrad writes `(addr/4 << 2) | (len << 42) | (1 << 41)` (ops_nv.py): bit 41 is entry1
// bit 9, LEVEL = SUBROUTINE. The PBDMA handles both levels alike except for which get pointer
// it reports; UVM and this header use LEVEL_MAIN.
constexpr uint64_t nv_gp_entry(uint64_t pushbuffer_va, uint32_t length_dwords, bool sync = false) {
    NvU32 entry0 = nv_drf_num(NVC56F_GP_ENTRY0_GET, static_cast<NvU32>(pushbuffer_va >> 2));
    NvU32 entry1 = nv_drf_num(NVC56F_GP_ENTRY1_GET_HI, static_cast<NvU32>(pushbuffer_va >> 32)) |
                   nv_drf_num(NVC56F_GP_ENTRY1_LEVEL, NVC56F_GP_ENTRY1_LEVEL_MAIN) |
                   nv_drf_num(NVC56F_GP_ENTRY1_LENGTH, length_dwords) |
                   nv_drf_num(NVC56F_GP_ENTRY1_SYNC, sync ? NVC56F_GP_ENTRY1_SYNC_WAIT
                                                          : NVC56F_GP_ENTRY1_SYNC_PROCEED);
    return (static_cast<uint64_t>(entry1) << 32) | entry0;
}
// The control entry that sets pushbuffer address bits 56:40 for the entries that follow.
constexpr uint64_t nv_gp_entry_pb_extended_base(uint64_t pushbuffer_va) {
    NvU32 entry0 = nv_drf_num(NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND,
                              static_cast<NvU32>(pushbuffer_va >> 40));
    NvU32 entry1 = nv_drf_num(NVC56F_GP_ENTRY1_OPCODE,
                              NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE);
    return (static_cast<uint64_t>(entry1) << 32) | entry0;
}
constexpr NvU32 nv_gp_entry0(uint64_t entry) { return static_cast<NvU32>(entry); }
constexpr NvU32 nv_gp_entry1(uint64_t entry) { return static_cast<NvU32>(entry >> 32); }
// Address bits 39:2 of the pushbuffer segment (the PBDMA adds the extended base).
constexpr uint64_t nv_gp_entry_address(uint64_t entry) {
    return (static_cast<uint64_t>(nv_drf_val(NVC56F_GP_ENTRY1_GET_HI, nv_gp_entry1(entry))) << 32) |
           (static_cast<uint64_t>(nv_drf_val(NVC56F_GP_ENTRY0_GET, nv_gp_entry0(entry))) << 2);
}
constexpr NvU32 nv_gp_entry_length(uint64_t entry) {
    return nv_drf_val(NVC56F_GP_ENTRY1_LENGTH, nv_gp_entry1(entry));
}
constexpr NvU32 nv_gp_entry_level(uint64_t entry) {
    return nv_drf_val(NVC56F_GP_ENTRY1_LEVEL, nv_gp_entry1(entry));
}
constexpr bool nv_gp_entry_sync(uint64_t entry) {
    return nv_drf_val(NVC56F_GP_ENTRY1_SYNC, nv_gp_entry1(entry)) == NVC56F_GP_ENTRY1_SYNC_WAIT;
}
constexpr NvU32 nv_gp_entry_opcode(uint64_t entry) {  // meaningful when the length is 0
    return nv_drf_val(NVC56F_GP_ENTRY1_OPCODE, nv_gp_entry1(entry));
}
constexpr uint64_t nv_gp_entry_extended_base(uint64_t entry) {  // address bits 56:40
    return static_cast<uint64_t>(nv_drf_val(NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND,
                                            nv_gp_entry0(entry)))
           << 40;
}

// ============================================================================
// 3. Pushbuffer method headers (clc56f.h:287-330, "dma method formats"). A header dword is
//    followed by COUNT data dwords (none for IMMD_DATA_METHOD, whose data is in the header).
// ============================================================================
inline constexpr NvBitField NVC56F_DMA_METHOD_ADDRESS{11, 0};    // method byte offset >> 2
inline constexpr NvBitField NVC56F_DMA_METHOD_SUBCHANNEL{15, 13};
inline constexpr NvBitField NVC56F_DMA_TERT_OP{17, 16};          // with SEC_OP GRP0_USE_TERT
inline constexpr NvBitField NVC56F_DMA_METHOD_COUNT{28, 16};
inline constexpr NvBitField NVC56F_DMA_IMMD_DATA{28, 16};
inline constexpr NvBitField NVC56F_DMA_SEC_OP{31, 29};
inline constexpr NvU32 NVC56F_DMA_SEC_OP_GRP0_USE_TERT = 0;
inline constexpr NvU32 NVC56F_DMA_SEC_OP_INC_METHOD = 1;       // data to method, method+4, ...
inline constexpr NvU32 NVC56F_DMA_SEC_OP_GRP2_USE_TERT = 2;
inline constexpr NvU32 NVC56F_DMA_SEC_OP_NON_INC_METHOD = 3;   // all data to the same method
inline constexpr NvU32 NVC56F_DMA_SEC_OP_IMMD_DATA_METHOD = 4; // 13-bit data in the header
inline constexpr NvU32 NVC56F_DMA_SEC_OP_ONE_INC = 5;          // first to method, rest to method+4
inline constexpr NvU32 NVC56F_DMA_SEC_OP_RESERVED6 = 6;
inline constexpr NvU32 NVC56F_DMA_SEC_OP_END_PB_SEGMENT = 7;
inline constexpr NvU32 NVC56F_DMA_TERT_OP_GRP0_INC_METHOD = 0;
inline constexpr NvU32 NVC56F_DMA_TERT_OP_GRP0_SET_SUB_DEV_MASK = 1;
inline constexpr NvU32 NVC56F_DMA_TERT_OP_GRP0_STORE_SUB_DEV_MASK = 2;
inline constexpr NvU32 NVC56F_DMA_TERT_OP_GRP0_USE_SUB_DEV_MASK = 3;
inline constexpr NvU32 NVC56F_DMA_NOP = 0x00000000;
inline constexpr NvU32 NVC56F_NUMBER_OF_SUBCHANNELS = 8;
inline constexpr NvU32 NVC56F_DMA_METHOD_COUNT_MAX = 0x1FFF;
inline constexpr NvU32 NVC56F_DMA_IMMD_DATA_MAX = 0x1FFF;

// A header for count data dwords to method (a byte offset, dword aligned) on subchannel.
constexpr NvU32 nv_method_header(NvU32 sec_op, NvU32 subchannel, NvU32 method, NvU32 count) {
    return nv_drf_num(NVC56F_DMA_SEC_OP, sec_op) | nv_drf_num(NVC56F_DMA_METHOD_COUNT, count) |
           nv_drf_num(NVC56F_DMA_METHOD_SUBCHANNEL, subchannel) |
           nv_drf_num(NVC56F_DMA_METHOD_ADDRESS, method >> 2);
}
constexpr NvU32 nv_method_inc(NvU32 subchannel, NvU32 method, NvU32 count) {
    return nv_method_header(NVC56F_DMA_SEC_OP_INC_METHOD, subchannel, method, count);
}
constexpr NvU32 nv_method_non_inc(NvU32 subchannel, NvU32 method, NvU32 count) {
    return nv_method_header(NVC56F_DMA_SEC_OP_NON_INC_METHOD, subchannel, method, count);
}
constexpr NvU32 nv_method_one_inc(NvU32 subchannel, NvU32 method, NvU32 count) {
    return nv_method_header(NVC56F_DMA_SEC_OP_ONE_INC, subchannel, method, count);
}
// A one-dword method whose data (at most 0x1FFF) travels in the header itself.
constexpr NvU32 nv_method_immd(NvU32 subchannel, NvU32 method, NvU32 data) {
    return nv_method_header(NVC56F_DMA_SEC_OP_IMMD_DATA_METHOD, subchannel, method, data);
}
constexpr NvU32 nv_method_sec_op(NvU32 header) { return nv_drf_val(NVC56F_DMA_SEC_OP, header); }
constexpr NvU32 nv_method_tert_op(NvU32 header) { return nv_drf_val(NVC56F_DMA_TERT_OP, header); }
constexpr NvU32 nv_method_subchannel(NvU32 header) {
    return nv_drf_val(NVC56F_DMA_METHOD_SUBCHANNEL, header);
}
constexpr NvU32 nv_method_address(NvU32 header) {  // the method's byte offset
    return nv_drf_val(NVC56F_DMA_METHOD_ADDRESS, header) << 2;
}
constexpr NvU32 nv_method_count(NvU32 header) {
    return nv_drf_val(NVC56F_DMA_METHOD_COUNT, header);
}
constexpr NvU32 nv_method_immd_data(NvU32 header) {
    return nv_drf_val(NVC56F_DMA_IMMD_DATA, header);
}

// Subchannels: a channel has 8; SET_OBJECT binds an engine class to one. There is no fixed
// assignment in the hardware; tinygrad (ops_nv.py) and Mesa's nouveau use 1 for compute and 4
// for copy, and put host methods on subchannel 0. minicuda's libcuda does the same.
inline constexpr NvU32 NV_SUBCHANNEL_HOST = 0;
inline constexpr NvU32 NV_SUBCHANNEL_COMPUTE = 1;
inline constexpr NvU32 NV_SUBCHANNEL_COPY = 4;

// Methods below 0x100 are host (PBDMA) methods on every subchannel; engine classes start at
// 0x100 (every engine class header reserves dwords 0x00-0x3F, e.g. clc8b5.h's NOP at 0x100).
inline constexpr NvU32 NV_HOST_METHOD_LIMIT = 0x100;

// ============================================================================
// 4. Host methods (clc56f.h:66-254; the C86F ones are the same)
// ============================================================================
inline constexpr NvU32 NVC56F_SET_OBJECT = 0x0000;
inline constexpr NvBitField NVC56F_SET_OBJECT_NVCLASS{15, 0};
inline constexpr NvBitField NVC56F_SET_OBJECT_ENGINE{20, 16};
inline constexpr NvU32 NVC56F_ILLEGAL = 0x0004;
inline constexpr NvU32 NVC56F_NOP = 0x0008;
inline constexpr NvU32 NVC56F_SEMAPHOREA = 0x0010;  // legacy semaphore methods (not modelled)
inline constexpr NvU32 NVC56F_SEMAPHOREB = 0x0014;
inline constexpr NvU32 NVC56F_SEMAPHOREC = 0x0018;
inline constexpr NvU32 NVC56F_SEMAPHORED = 0x001C;
inline constexpr NvU32 NVC56F_NON_STALL_INTERRUPT = 0x0020;
inline constexpr NvU32 NVC56F_FB_FLUSH = 0x0024;
inline constexpr NvU32 NVC56F_MEM_OP_A = 0x0028;
inline constexpr NvU32 NVC56F_MEM_OP_B = 0x002C;
inline constexpr NvU32 NVC56F_MEM_OP_C = 0x0030;
inline constexpr NvU32 NVC56F_MEM_OP_D = 0x0034;
inline constexpr NvU32 NVC56F_SET_REFERENCE = 0x0050;
inline constexpr NvU32 NVC56F_SEM_ADDR_LO = 0x005C;
inline constexpr NvBitField NVC56F_SEM_ADDR_LO_OFFSET{31, 2};
inline constexpr NvU32 NVC56F_SEM_ADDR_HI = 0x0060;
inline constexpr NvBitField NVC86F_SEM_ADDR_HI_OFFSET{24, 0};  // 7:0 on C56F
inline constexpr NvU32 NVC56F_SEM_PAYLOAD_LO = 0x0064;
inline constexpr NvU32 NVC56F_SEM_PAYLOAD_HI = 0x0068;
inline constexpr NvU32 NVC56F_SEM_EXECUTE = 0x006C;
inline constexpr NvBitField NVC56F_SEM_EXECUTE_OPERATION{2, 0};
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE = 0;         // wait for == payload
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_RELEASE = 1;         // write payload
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ = 2;  // wait for >= payload
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ = 3;    // >=, wrapping
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_ACQ_AND = 4;         // (value & payload) != 0
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_ACQ_NOR = 5;         // ~(value | payload) != 0
inline constexpr NvU32 NVC56F_SEM_EXECUTE_OPERATION_REDUCTION = 6;       // atomic op with payload
inline constexpr NvBitField NVC56F_SEM_EXECUTE_ACQUIRE_SWITCH_TSG{12, 12};
inline constexpr NvBitField NVC56F_SEM_EXECUTE_RELEASE_WFI{20, 20};
inline constexpr NvBitField NVC56F_SEM_EXECUTE_PAYLOAD_SIZE{24, 24};
inline constexpr NvU32 NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT = 0;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT = 1;
inline constexpr NvBitField NVC56F_SEM_EXECUTE_RELEASE_TIMESTAMP{25, 25};  // 16-byte semaphore
inline constexpr NvBitField NVC56F_SEM_EXECUTE_REDUCTION{30, 27};
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_IMIN = 0;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_IMAX = 1;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_IXOR = 2;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_IAND = 3;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_IOR = 4;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_IADD = 5;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_INC = 6;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_DEC = 7;
inline constexpr NvBitField NVC56F_SEM_EXECUTE_REDUCTION_FORMAT{31, 31};
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_FORMAT_SIGNED = 0;
inline constexpr NvU32 NVC56F_SEM_EXECUTE_REDUCTION_FORMAT_UNSIGNED = 1;
inline constexpr NvU32 NVC56F_WFI = 0x0078;
inline constexpr NvU32 NVC56F_YIELD = 0x0080;
inline constexpr NvU32 NVC56F_CLEAR_FAULTED = 0x0084;

// minicuda's own host methods (no real GPU has them; 0xF0-0xFC are unused in clc56f.h/clc86f.h):
// the host timeline (docs/timing.md). libcuda starts every pushbuffer segment with all four,
// one incrementing header and four data dwords:
//   MINICUDA_SET_ORIGIN_LO/HI     the trace sequence number of the API call that submitted the
//                                 segment (0 when untraced); the engines tag their device spans
//                                 with it, so a trace can draw an arrow from the call to its work
//   MINICUDA_SET_HOST_TIME_LO/HI  the submitting host thread's simulated time (ns) when it rang
//                                 the doorbell; at HI the PBDMA holds the channel until then:
//                                 channel time = max(channel time, host time)
inline constexpr NvU32 NVC56F_MINICUDA_SET_ORIGIN_LO = 0x00F0;
inline constexpr NvU32 NVC56F_MINICUDA_SET_ORIGIN_HI = 0x00F4;
inline constexpr NvU32 NVC56F_MINICUDA_SET_HOST_TIME_LO = 0x00F8;
inline constexpr NvU32 NVC56F_MINICUDA_SET_HOST_TIME_HI = 0x00FC;

// A semaphore with a timestamp is 16 bytes: the payload at +0 (4 or 8 bytes) and the GPU time
// in nanoseconds at +8. tinygrad's signals (ops_nv.py) and UVM's CE timestamps
// (uvm_hal_volta_ce_semaphore_timestamp, read back at +8) use this layout.
inline constexpr NvU32 NV_SEMAPHORE_TIMESTAMP_OFFSET = 8;
inline constexpr NvU32 NV_SEMAPHORE_FOUR_WORD_SIZE = 16;

// The SEM_EXECUTE word for a release of payload_size (32BIT or 64BIT), optionally with WFI and
// a timestamp.
constexpr NvU32 nv_sem_execute(NvU32 operation, NvU32 payload_size, bool release_wfi = false,
                               bool release_timestamp = false) {
    return nv_drf_num(NVC56F_SEM_EXECUTE_OPERATION, operation) |
           nv_drf_num(NVC56F_SEM_EXECUTE_RELEASE_WFI, release_wfi ? 1 : 0) |
           nv_drf_num(NVC56F_SEM_EXECUTE_PAYLOAD_SIZE, payload_size) |
           nv_drf_num(NVC56F_SEM_EXECUTE_RELEASE_TIMESTAMP, release_timestamp ? 1 : 0);
}

// ============================================================================
// 5. Copy engine: HOPPER_DMA_COPY_A (0xC8B5), open-gpu-doc classes/dma-copy/clc8b5.h
// ============================================================================
inline constexpr NvU32 NVC8B5_NOP = 0x0100;
inline constexpr NvU32 NVC8B5_SET_SEMAPHORE_A = 0x0240;          // address bits 56:32 (24:0)
inline constexpr NvU32 NVC8B5_SET_SEMAPHORE_B = 0x0244;          // address bits 31:0
inline constexpr NvU32 NVC8B5_SET_SEMAPHORE_PAYLOAD = 0x0248;
inline constexpr NvU32 NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER = 0x024C;
inline constexpr NvU32 NVC8B5_SET_SRC_PHYS_MODE = 0x0260;
inline constexpr NvU32 NVC8B5_SET_DST_PHYS_MODE = 0x0264;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA = 0x0300;
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE{1, 0};
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE = 0;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_PIPELINED = 1;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED = 2;
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_FLUSH_ENABLE{2, 2};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE{4, 3};
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE = 0;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_ONE_WORD_SEMAPHORE = 1;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE = 2;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_CONDITIONAL_INTR_SEMAPHORE = 3;
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE{6, 5};
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NONE = 0;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_BLOCKING = 1;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_INTERRUPT_TYPE_NON_BLOCKING = 2;
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT{7, 7};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT{8, 8};
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_BLOCKLINEAR = 0;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH = 1;
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE{9, 9};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_REMAP_ENABLE{10, 10};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_FORCE_RMWDISABLE{11, 11};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SRC_TYPE{12, 12};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_DST_TYPE{13, 13};
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_TYPE_VIRTUAL = 0;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_TYPE_PHYSICAL = 1;
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION{17, 14};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN{18, 18};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE{19, 19};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_COPY_TYPE{21, 20};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE{23, 23};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_DISABLE_PLC{26, 26};
inline constexpr NvBitField NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE{27, 27};
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE_ONE_WORD = 0;
inline constexpr NvU32 NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE_TWO_WORD = 1;
inline constexpr NvU32 NVC8B5_OFFSET_IN_UPPER = 0x0400;   // source VA bits 56:32 (24:0)
inline constexpr NvU32 NVC8B5_OFFSET_IN_LOWER = 0x0404;
inline constexpr NvU32 NVC8B5_OFFSET_OUT_UPPER = 0x0408;  // destination VA bits 56:32
inline constexpr NvU32 NVC8B5_OFFSET_OUT_LOWER = 0x040C;
inline constexpr NvBitField NVC8B5_OFFSET_UPPER_UPPER{24, 0};
inline constexpr NvU32 NVC8B5_PITCH_IN = 0x0410;          // bytes from one line to the next
inline constexpr NvU32 NVC8B5_PITCH_OUT = 0x0414;
inline constexpr NvU32 NVC8B5_LINE_LENGTH_IN = 0x0418;    // bytes (elements when remapping)
inline constexpr NvU32 NVC8B5_LINE_COUNT = 0x041C;        // lines, with MULTI_LINE_ENABLE
inline constexpr NvU32 NVC8B5_SET_REMAP_CONST_A = 0x0700;
inline constexpr NvU32 NVC8B5_SET_REMAP_CONST_B = 0x0704;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS = 0x0708;
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_DST_X{2, 0};
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_DST_Y{6, 4};
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_DST_Z{10, 8};
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_DST_W{14, 12};
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_X = 0;  // the same values for X/Y/Z/W
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_Y = 1;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_Z = 2;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W = 3;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A = 4;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B = 5;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_DST_NO_WRITE = 6;
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE{17, 16};  // bytes - 1
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE_ONE = 0;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE_TWO = 1;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE_THREE = 2;
inline constexpr NvU32 NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE_FOUR = 3;
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS{21, 20};  // count - 1
inline constexpr NvBitField NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS{25, 24};  // count - 1

// The LAUNCH_DMA word of a plain pitch-linear copy of virtual addresses (what UVM's
// uvm_hal_*_ce_memcopy and tinygrad's copies send), optionally with a semaphore release.
constexpr NvU32 nv_launch_dma_copy(NvU32 semaphore_type = NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE,
                                   bool multi_line = false, bool remap = false) {
    return nv_drf_num(NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE,
                      NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED) |
           nv_drf_num(NVC8B5_LAUNCH_DMA_FLUSH_ENABLE, 1) |
           nv_drf_num(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE, semaphore_type) |
           nv_drf_num(NVC8B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT, NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH) |
           nv_drf_num(NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT, NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH) |
           nv_drf_num(NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE, multi_line ? 1 : 0) |
           nv_drf_num(NVC8B5_LAUNCH_DMA_REMAP_ENABLE, remap ? 1 : 0);
}
// SET_REMAP_COMPONENTS for a memset: every destination element is one component of
// component_bytes (1..4) taken from SET_REMAP_CONST_A (UVM's uvm_hal_*_ce_memset_{1,4}).
constexpr NvU32 nv_remap_memset(NvU32 component_bytes) {
    return nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_DST_X, NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A) |
           nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, component_bytes - 1) |
           nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, 0) |
           nv_drf_num(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, 0);
}

// ============================================================================
// 6. Names for traces
// ============================================================================
constexpr const char* nv_host_method_name(NvU32 method) {
    switch (method) {
        case NVC56F_SET_OBJECT: return "SET_OBJECT";
        case NVC56F_ILLEGAL: return "ILLEGAL";
        case NVC56F_NOP: return "NOP";
        case NVC56F_SEMAPHOREA: return "SEMAPHOREA";
        case NVC56F_SEMAPHOREB: return "SEMAPHOREB";
        case NVC56F_SEMAPHOREC: return "SEMAPHOREC";
        case NVC56F_SEMAPHORED: return "SEMAPHORED";
        case NVC56F_NON_STALL_INTERRUPT: return "NON_STALL_INTERRUPT";
        case NVC56F_FB_FLUSH: return "FB_FLUSH";
        case NVC56F_MEM_OP_A: return "MEM_OP_A";
        case NVC56F_MEM_OP_B: return "MEM_OP_B";
        case NVC56F_MEM_OP_C: return "MEM_OP_C";
        case NVC56F_MEM_OP_D: return "MEM_OP_D";
        case NVC56F_SET_REFERENCE: return "SET_REFERENCE";
        case NVC56F_SEM_ADDR_LO: return "SEM_ADDR_LO";
        case NVC56F_SEM_ADDR_HI: return "SEM_ADDR_HI";
        case NVC56F_SEM_PAYLOAD_LO: return "SEM_PAYLOAD_LO";
        case NVC56F_SEM_PAYLOAD_HI: return "SEM_PAYLOAD_HI";
        case NVC56F_SEM_EXECUTE: return "SEM_EXECUTE";
        case NVC56F_WFI: return "WFI";
        case NVC56F_YIELD: return "YIELD";
        case NVC56F_CLEAR_FAULTED: return "CLEAR_FAULTED";
        case NVC56F_MINICUDA_SET_HOST_TIME_LO: return "MINICUDA_SET_HOST_TIME_LO";
        case NVC56F_MINICUDA_SET_HOST_TIME_HI: return "MINICUDA_SET_HOST_TIME_HI";
        case NVC56F_MINICUDA_SET_ORIGIN_LO: return "MINICUDA_SET_ORIGIN_LO";
        case NVC56F_MINICUDA_SET_ORIGIN_HI: return "MINICUDA_SET_ORIGIN_HI";
        default: return "UNKNOWN";
    }
}

constexpr const char* nv_copy_method_name(NvU32 method) {
    switch (method) {
        case NVC8B5_NOP: return "NOP";
        case NVC8B5_SET_SEMAPHORE_A: return "SET_SEMAPHORE_A";
        case NVC8B5_SET_SEMAPHORE_B: return "SET_SEMAPHORE_B";
        case NVC8B5_SET_SEMAPHORE_PAYLOAD: return "SET_SEMAPHORE_PAYLOAD";
        case NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER: return "SET_SEMAPHORE_PAYLOAD_UPPER";
        case NVC8B5_SET_SRC_PHYS_MODE: return "SET_SRC_PHYS_MODE";
        case NVC8B5_SET_DST_PHYS_MODE: return "SET_DST_PHYS_MODE";
        case NVC8B5_LAUNCH_DMA: return "LAUNCH_DMA";
        case NVC8B5_OFFSET_IN_UPPER: return "OFFSET_IN_UPPER";
        case NVC8B5_OFFSET_IN_LOWER: return "OFFSET_IN_LOWER";
        case NVC8B5_OFFSET_OUT_UPPER: return "OFFSET_OUT_UPPER";
        case NVC8B5_OFFSET_OUT_LOWER: return "OFFSET_OUT_LOWER";
        case NVC8B5_PITCH_IN: return "PITCH_IN";
        case NVC8B5_PITCH_OUT: return "PITCH_OUT";
        case NVC8B5_LINE_LENGTH_IN: return "LINE_LENGTH_IN";
        case NVC8B5_LINE_COUNT: return "LINE_COUNT";
        case NVC8B5_SET_REMAP_CONST_A: return "SET_REMAP_CONST_A";
        case NVC8B5_SET_REMAP_CONST_B: return "SET_REMAP_CONST_B";
        case NVC8B5_SET_REMAP_COMPONENTS: return "SET_REMAP_COMPONENTS";
        default: return "UNKNOWN";
    }
}

// ============================================================================
// 7. Checks of the encodings against known values
// ============================================================================
// tinygrad's nvm(4, 0x300, 1): (2<<28) | (1<<16) | (4<<13) | (0x300>>2), i.e. SEC_OP 1 (bit 29).
static_assert(nv_method_inc(4, NVC8B5_LAUNCH_DMA, 1) == 0x200180C0u);
static_assert(nv_method_sec_op(0x200180C0u) == NVC56F_DMA_SEC_OP_INC_METHOD &&
              nv_method_subchannel(0x200180C0u) == 4 && nv_method_address(0x200180C0u) == 0x300 &&
              nv_method_count(0x200180C0u) == 1);
static_assert(nv_method_immd(0, NVC56F_NON_STALL_INTERRUPT, 0) == 0x80000008u);
// tinygrad's GPFIFO entry for 12 dwords at 0x10_2000_4000 with its LEVEL bit (41) cleared.
static_assert(nv_gp_entry(0x1020004000ull, 12) == (0x1020004000ull | (12ull << 42)));
static_assert(nv_gp_entry_address(nv_gp_entry(0xABCD2000ull, 3)) == 0xABCD2000ull &&
              nv_gp_entry_length(nv_gp_entry(0xABCD2000ull, 3)) == 3);
static_assert(nv_gp_entry_extended_base(nv_gp_entry_pb_extended_base(0x580000201000ull)) ==
              0x580000000000ull);
static_assert(nv_gp_entry_length(nv_gp_entry_pb_extended_base(0x580000201000ull)) == 0);
// UVM's 4-byte memset: DST_X CONST_A, COMPONENT_SIZE FOUR, one source and one destination
// component.
static_assert(nv_remap_memset(4) == 0x00030004u);
