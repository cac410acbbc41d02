// simt_values: how the SIMT executor reads and writes typed values in its 64-bit register slots
// (nv_sass.h: a read of an N-bit type takes the low N bits, a write zero-extends), and the type
// dispatch of the instruction files. Private to the SM.
#pragma once

#include <bit>
#include <cfenv>
#include <cstdint>
#include <type_traits>

#include "simt.h"

namespace minicuda::gpu::simt {

template <class T>
inline T get(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(static_cast<uint32_t>(v));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(v);
  else return static_cast<T>(v);
}

template <class T>
inline uint64_t put(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
  else if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
}

inline unsigned type_bits(uint8_t t) {
  switch (t) {
    case NV_SASS_TYPE_B8: case NV_SASS_TYPE_U8: case NV_SASS_TYPE_S8: return 8;
    case NV_SASS_TYPE_B16: case NV_SASS_TYPE_U16: case NV_SASS_TYPE_S16: case NV_SASS_TYPE_F16:
    case NV_SASS_TYPE_BF16: return 16;
    case NV_SASS_TYPE_B32: case NV_SASS_TYPE_U32: case NV_SASS_TYPE_S32: case NV_SASS_TYPE_F32:
    case NV_SASS_TYPE_F16X2: case NV_SASS_TYPE_BF16X2: return 32;
    case NV_SASS_TYPE_B64: case NV_SASS_TYPE_U64: case NV_SASS_TYPE_S64: case NV_SASS_TYPE_F64: return 64;
    default: return 0;
  }
}
inline bool is_signed_type(uint8_t t) {
  return t == NV_SASS_TYPE_S8 || t == NV_SASS_TYPE_S16 || t == NV_SASS_TYPE_S32 || t == NV_SASS_TYPE_S64;
}
inline bool is_float_type(uint8_t t) { return t == NV_SASS_TYPE_F32 || t == NV_SASS_TYPE_F64; }

// The host's rounding mode set to an instruction's IEEE rounding (.rz/.rm/.rp) for the lifetime
// of the scope - one warp-instruction's lane loop - and restored after; .rn, none and the
// integral roundings leave the mode (round to nearest even) alone. The lane loops read their
// operands from and write their results to memory, so the arithmetic cannot move out of it.
class RoundingScope {
 public:
  explicit RoundingScope(uint8_t rounding) {
    const int mode = rounding == NV_SASS_RND_RZ ? FE_TOWARDZERO
                     : rounding == NV_SASS_RND_RM ? FE_DOWNWARD
                     : rounding == NV_SASS_RND_RP ? FE_UPWARD : -1;
    if (mode < 0) return;
    saved_ = std::fegetround();
    std::fesetround(mode);
    active_ = true;
  }
  ~RoundingScope() {
    if (active_) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_ = 0;
  bool active_ = false;
};

// Calls f.template operator()<T>() with the C++ type of an integer SASS type (bit types count
// as unsigned). False for any other type.
template <class F>
inline bool with_int_type(uint8_t t, F&& f) {
  switch (t) {
    case NV_SASS_TYPE_B8: case NV_SASS_TYPE_U8: f.template operator()<uint8_t>(); return true;
    case NV_SASS_TYPE_S8: f.template operator()<int8_t>(); return true;
    case NV_SASS_TYPE_B16: case NV_SASS_TYPE_U16: f.template operator()<uint16_t>(); return true;
    case NV_SASS_TYPE_S16: f.template operator()<int16_t>(); return true;
    case NV_SASS_TYPE_B32: case NV_SASS_TYPE_U32: f.template operator()<uint32_t>(); return true;
    case NV_SASS_TYPE_S32: f.template operator()<int32_t>(); return true;
    case NV_SASS_TYPE_B64: case NV_SASS_TYPE_U64: f.template operator()<uint64_t>(); return true;
    case NV_SASS_TYPE_S64: f.template operator()<int64_t>(); return true;
    default: return false;
  }
}
// As with_int_type, and f32 / f64 as float / double.
template <class F>
inline bool with_type(uint8_t t, F&& f) {
  if (t == NV_SASS_TYPE_F32) {
    f.template operator()<float>();
    return true;
  }
  if (t == NV_SASS_TYPE_F64) {
    f.template operator()<double>();
    return true;
  }
  return with_int_type(t, f);
}

// The register slots of operand `op` (a register) of warp w: 32 of them, lane-minor.
inline uint64_t* dest(Warp& w, const NvSassOperand& op) { return w.regs + size_t{op.index} * kLanes; }

// IEEE half precision <-> float (round to nearest even), without a compiler's _Float16.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);

}  // namespace minicuda::gpu::simt
