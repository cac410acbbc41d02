// nvmisc.h: bit-field helpers, RM's DRF macros as constexpr functions (OGKM
// src/common/sdk/nvidia/inc/nvmisc.h). The class headers write a field as "hi:lo"; here it is an
// NvBitField{hi, lo}, and nv_drf_num / nv_drf_val are DRF_NUM / DRF_VAL. Some ABI flag words
// (NVOS02_FLAGS_*) are given as a shift and a mask instead: nv_field_num / nv_field_get.
#pragma once

#include "nvtypes.h"

struct NvBitField {
    NvU32 hi, lo;
};

constexpr NvU32 nv_field_mask(NvBitField f) {
    return f.hi - f.lo >= 31 ? 0xFFFFFFFFu : ((1u << (f.hi - f.lo + 1)) - 1u);
}
// DRF_NUM: value placed in the field.
constexpr NvU32 nv_drf_num(NvBitField f, NvU32 value) {
    return (value & nv_field_mask(f)) << f.lo;
}
// DRF_VAL: the field's value in word.
constexpr NvU32 nv_drf_val(NvBitField f, NvU32 word) {
    return (word >> f.lo) & nv_field_mask(f);
}

// The same for fields given as a shift and a mask.
constexpr NvU32 nv_field_get(NvU32 word, NvU32 shift, NvU32 mask) {
    return (word >> shift) & mask;
}
constexpr NvU32 nv_field_num(NvU32 shift, NvU32 mask, NvU32 value) {
    return (value & mask) << shift;
}
