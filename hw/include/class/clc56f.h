// class/clc56f.h: AMPERE_CHANNEL_GPFIFO_A (0xC56F), the host interface's channel class: how
// a driver feeds the GPU without a system call. The driver writes *methods* into a pushbuffer,
// points an 8-byte GPFIFO entry at them, advances GPPut in the channel's USERD page and rings the
// doorbell (class/clc361.h). The GPU's host interface (the PBDMA) fetches the entries, decodes
// the method headers and hands each method to the engine bound to its subchannel. The driver
// (libcuda) and the GPU (device_sim) both include this header, as the real driver and hardware
// share the class headers.
//
// Values are the real ones, from NVIDIA/open-gpu-kernel-modules (OGKM)
// src/common/sdk/nvidia/inc/class/clc56f.h. Hopper's host class (class/clc86f.h) keeps every
// offset and field of C56F, so the shared items carry the NVC56F_ names here; clc86f.h adds the
// Hopper-only ones. A field "hi:lo" is an NvBitField{hi, lo} (nvmisc.h).
#pragma once

#include <cstdint>

#include "nvmisc.h"

inline constexpr NvU32 AMPERE_CHANNEL_GPFIFO_A = 0x0000C56F;

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


// ============================================================================
// Checks of the encodings against known values
// ============================================================================
// tinygrad's nvm(4, 0x300, 1): (2<<28) | (1<<16) | (4<<13) | (0x300>>2), i.e. SEC_OP 1 (bit 29).
static_assert(nv_method_inc(4, 0x300, 1) == 0x200180C0u);  // LAUNCH_DMA of class/clc8b5.h
static_assert(nv_method_sec_op(0x200180C0u) == NVC56F_DMA_SEC_OP_INC_METHOD &&
              nv_method_subchannel(0x200180C0u) == 4 && nv_method_address(0x200180C0u) == 0x300 &&
              nv_method_count(0x200180C0u) == 1);
static_assert(nv_method_immd(0, NVC56F_NON_STALL_INTERRUPT, 0) == 0x80000008u);
// tinygrad's GPFIFO entry for 12 dwords at 0x10_2000_4000 with its LEVEL bit (41) cleared.
static_assert(nv_gp_entry(0x1020004000ull, 12) == (0x1020004000ull | (12ull << 42)));
static_assert(nv_gp_entry_address(nv_gp_entry(0xABCD2000ull, 3)) == 0xABCD2000ull &&
              nv_gp_entry_length(nv_gp_entry(0xABCD2000ull, 3)) == 3);
