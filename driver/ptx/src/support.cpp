// support: the lowering's check of each SASS instruction against what the executor implements.
#include "support.h"

namespace minicuda::ptx {

namespace {

bool is_half(NvU8 t) {
  return t == NV_SASS_TYPE_F16 || t == NV_SASS_TYPE_F16X2 || t == NV_SASS_TYPE_BF16 || t == NV_SASS_TYPE_BF16X2;
}

// The half-precision operations the executor implements (simt_half.cpp): round to nearest only,
// and setp on one half (not on a pair).
std::string half_gap(const NvSassInstruction& i) {
  switch (i.opcode) {
    case NV_SASS_OP_ADD: case NV_SASS_OP_SUB: case NV_SASS_OP_MUL: case NV_SASS_OP_FMA:
      if (i.rounding != NV_SASS_RND_NONE && i.rounding != NV_SASS_RND_RN) return "this rounding mode";
      return "";
    case NV_SASS_OP_NEG: case NV_SASS_OP_ABS: case NV_SASS_OP_MIN: case NV_SASS_OP_MAX:
      if (i.rounding != NV_SASS_RND_NONE) return "this rounding mode";
      return "";
    case NV_SASS_OP_SETP:
      if (i.type == NV_SASS_TYPE_F16X2 || i.type == NV_SASS_TYPE_BF16X2) return "a comparison of half pairs";
      return "";
    default:
      return "half-precision arithmetic";
  }
}
bool is_ieee(NvU8 t) { return t == NV_SASS_TYPE_F32 || t == NV_SASS_TYPE_F64; }
bool is_int(NvU8 t) { return t >= NV_SASS_TYPE_B8 && t <= NV_SASS_TYPE_S64; }
bool ieee_rounding(NvU8 r) { return r >= NV_SASS_RND_RZ && r <= NV_SASS_RND_RP; }

// The value conversions cvt implements: integers, f16, bf16, f32 and f64 (not f16x2 or the
// formats the lowering has no SASS type for).
bool convertible(NvU8 t) { return is_int(t) || is_ieee(t) || t == NV_SASS_TYPE_F16 || t == NV_SASS_TYPE_BF16; }

}  // namespace

std::string executor_gap(const NvSassInstruction& i) {
  switch (i.opcode) {
    case NV_SASS_OP_ADD: case NV_SASS_OP_SUB: case NV_SASS_OP_MUL: case NV_SASS_OP_MAD:
    case NV_SASS_OP_FMA: case NV_SASS_OP_DIV: case NV_SASS_OP_REM: case NV_SASS_OP_MIN:
    case NV_SASS_OP_MAX: case NV_SASS_OP_ABS: case NV_SASS_OP_NEG: case NV_SASS_OP_SETP:
    case NV_SASS_OP_SLCT:
      if (is_half(i.type)) return half_gap(i);
      if (!is_int(i.type) && !is_ieee(i.type)) return "this operand type";
      if (ieee_rounding(i.rounding) && !is_ieee(i.type)) return "this rounding mode";
      if (ieee_rounding(i.rounding) && (i.opcode == NV_SASS_OP_MIN || i.opcode == NV_SASS_OP_MAX ||
                                        i.opcode == NV_SASS_OP_ABS || i.opcode == NV_SASS_OP_NEG))
        return "this rounding mode";
      return "";
    case NV_SASS_OP_SET:
      if (is_half(i.type) || is_half(i.stype)) return "half-precision arithmetic";
      if (!is_int(i.stype) && !is_ieee(i.stype)) return "this operand type";
      return "";
    case NV_SASS_OP_COPYSIGN: case NV_SASS_OP_TESTP:
    case NV_SASS_OP_RCP: case NV_SASS_OP_SQRT: case NV_SASS_OP_RSQRT: case NV_SASS_OP_SIN:
    case NV_SASS_OP_COS: case NV_SASS_OP_EX2: case NV_SASS_OP_LG2: case NV_SASS_OP_TANH:
      if (is_half(i.type)) return "half-precision arithmetic";
      if (!is_ieee(i.type)) return "this operand type";
      return "";
    case NV_SASS_OP_CVT:
      if (!convertible(i.type) || !convertible(i.stype)) return "a conversion between these types";
      // f16 and bf16 results round to nearest (or to an integral value) only.
      if ((i.type == NV_SASS_TYPE_F16 || i.type == NV_SASS_TYPE_BF16) && ieee_rounding(i.rounding))
        return "this rounding mode to a half-precision type";
      return "";
    case NV_SASS_OP_ATOM: case NV_SASS_OP_RED:
      if (is_half(i.type)) return "a half-precision atomic";
      return "";
    default:
      return "";
  }
}

}  // namespace minicuda::ptx
