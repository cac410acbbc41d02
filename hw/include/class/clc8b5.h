// class/clc8b5.h: HOPPER_DMA_COPY_A (0xC8B5), the copy engine class (a subset): the methods
// behind cudaMemcpy and cudaMemset. Values from NVIDIA/open-gpu-doc classes/dma-copy/clc8b5.h.
// libcuda pushes these methods on the copy subchannel; device_sim's copy engine executes them.
#pragma once

#include "nvmisc.h"

inline constexpr NvU32 HOPPER_DMA_COPY_A = 0x0000C8B5;

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

// Names for traces.
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


// UVM's 4-byte memset: DST_X CONST_A, COMPONENT_SIZE FOUR, one source and one destination
// component.
static_assert(nv_remap_memset(4) == 0x00030004u);
