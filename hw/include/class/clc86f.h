// class/clc86f.h: HOPPER_CHANNEL_GPFIFO_A (0xC86F), the channel class of the H200. It keeps
// every USERD offset, entry format and host method of AMPERE_CHANNEL_GPFIFO_A (class/clc56f.h,
// included here) and adds what changed on Hopper: the semaphore address grows to 57 bits, and a
// GPFIFO control entry sets the upper pushbuffer address bits. Values from NVIDIA/
// open-gpu-kernel-modules src/common/sdk/nvidia/inc/class/clc86f.h.
#pragma once

#include <cstdint>

#include "class/clc56f.h"

inline constexpr NvU32 HOPPER_CHANNEL_GPFIFO_A = 0x0000C86F;

inline constexpr NvBitField NVC86F_SEM_ADDR_HI_OFFSET{24, 0};  // 7:0 on C56F

// An entry holds only 40 address bits, so a pushbuffer above 1 TiB (every UVA address,
// 0x58xx_xxxx_xxxx here) needs a control entry first that sets address bits 56:40 for the
// entries after it (OGKM kernel-open/nvidia-uvm/uvm_hopper_host.c
// uvm_hal_hopper_host_set_gpfifo_pushbuffer_segment_base).
inline constexpr NvU32 NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE = 4;
inline constexpr NvBitField NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND{24, 8};  // VA bits 56:40

// The control entry that sets pushbuffer address bits 56:40 for the entries that follow.
constexpr uint64_t nv_gp_entry_pb_extended_base(uint64_t pushbuffer_va) {
    NvU32 entry0 = nv_drf_num(NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND,
                              static_cast<NvU32>(pushbuffer_va >> 40));
    NvU32 entry1 = nv_drf_num(NVC56F_GP_ENTRY1_OPCODE,
                              NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE);
    return (static_cast<uint64_t>(entry1) << 32) | entry0;
}
// Address bits 56:40 that an extended-base control entry sets.
constexpr uint64_t nv_gp_entry_extended_base(uint64_t entry) {
    return static_cast<uint64_t>(nv_drf_val(NVC86F_GP_ENTRY0_PB_EXTENDED_BASE_OPERAND,
                                            nv_gp_entry0(entry)))
           << 40;
}

static_assert(nv_gp_entry_extended_base(nv_gp_entry_pb_extended_base(0x580000201000ull)) ==
              0x580000000000ull);
static_assert(nv_gp_entry_length(nv_gp_entry_pb_extended_base(0x580000201000ull)) == 0);
