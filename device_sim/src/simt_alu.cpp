// simt_alu: the SIMT executor's arithmetic and logic - integer and floating-point arithmetic,
// bit operations, comparison and selection (simt_convert.cpp has moves, conversions and the
// special functions). Each instruction is decoded once per warp-instruction and runs as a loop
// over the active lanes on one C++ type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "simt_values.h"

namespace minicuda::gpu::simt {

bool execute_convert(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);  // simt_convert.cpp

namespace {

template <class T>
using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;

// The high half of a * b.
template <class T>
T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>((static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)) >> 64);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> (sizeof(T) * 8));
  }
}

// a * b widened: the product of two N-bit values as a 2N-bit value (mul.wide, mad.wide).
template <class T>
uint64_t mul_wide(T a, T b) {
  using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  return static_cast<uint64_t>(static_cast<W>(a) * static_cast<W>(b));
}

template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T>
T wrap_mul(T a, T b) {
  using U = std::conditional_t<sizeof(T) < 4, uint32_t, std::make_unsigned_t<T>>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// Signed 32-bit saturation (add.sat.s32, sub.sat.s32).
int32_t saturate_s32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
}

float flush(float v, bool ftz) { return ftz && std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; }
template <class T>
T flush_t(T v, bool ftz) {
  if constexpr (std::is_same_v<T, float>) return flush(v, ftz);
  else return v;
}
// add.sat / mul.sat on floats: clamp to [0, 1], NaN to 0.
template <class T>
T saturate_float(T v) {
  if (std::isnan(v)) return T(0);
  return std::clamp(v, T(0), T(1));
}

// Integer division as the H200 answers it: x / 0 is all ones (and so is x % 0), MIN / -1 = MIN.
template <class T>
T h200_div(T a, T b) {
  if (b == 0) return static_cast<T>(~std::make_unsigned_t<T>{0});
  if constexpr (std::is_signed_v<T>)
    if (a == std::numeric_limits<T>::min() && b == -1) return a;
  return static_cast<T>(a / b);
}
template <class T>
T h200_rem(T a, T b) {
  if (b == 0) return static_cast<T>(~std::make_unsigned_t<T>{0});
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return 0;
  return static_cast<T>(a % b);
}

template <class T>
bool compare(uint8_t cmp, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    switch (cmp) {
      case NV_SASS_CMP_EQ: return !unordered && a == b;
      case NV_SASS_CMP_NE: return !unordered && a != b;
      case NV_SASS_CMP_LT: return !unordered && a < b;
      case NV_SASS_CMP_LE: return !unordered && a <= b;
      case NV_SASS_CMP_GT: return !unordered && a > b;
      case NV_SASS_CMP_GE: return !unordered && a >= b;
      case NV_SASS_CMP_EQU: return unordered || a == b;
      case NV_SASS_CMP_NEU: return unordered || a != b;
      case NV_SASS_CMP_LTU: return unordered || a < b;
      case NV_SASS_CMP_LEU: return unordered || a <= b;
      case NV_SASS_CMP_GTU: return unordered || a > b;
      case NV_SASS_CMP_GEU: return unordered || a >= b;
      case NV_SASS_CMP_NUM: return !unordered;
      case NV_SASS_CMP_NAN: return unordered;
      default: return false;
    }
  } else {
    switch (cmp) {
      case NV_SASS_CMP_EQ: return a == b;
      case NV_SASS_CMP_NE: return a != b;
      case NV_SASS_CMP_LT: case NV_SASS_CMP_LO: return a < b;
      case NV_SASS_CMP_LE: case NV_SASS_CMP_LS: return a <= b;
      case NV_SASS_CMP_GT: case NV_SASS_CMP_HI: return a > b;
      case NV_SASS_CMP_GE: case NV_SASS_CMP_HS: return a >= b;
      default: return false;
    }
  }
}

bool combine(uint8_t op, bool t, bool c) {
  switch (op) {
    case NV_SASS_BOOL_AND: return t && c;
    case NV_SASS_BOOL_OR: return t || c;
    case NV_SASS_BOOL_XOR: return t != c;
    default: return t;
  }
}

uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 8; ++k)
    if ((lut >> k) & 1) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  return r;
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, uint8_t mode) {
  const uint64_t bytes = (uint64_t{b} << 32) | a;
  auto byte = [&](unsigned i) { return static_cast<uint32_t>((bytes >> ((i & 7) * 8)) & 0xFF); };
  uint32_t r = 0;
  const unsigned sel = c & 3;
  switch (mode) {
    case NV_SASS_PRMT_F4E:
      for (unsigned i = 0; i < 4; ++i) r |= byte(sel + i) << (8 * i);
      return r;
    case NV_SASS_PRMT_B4E:
      for (unsigned i = 0; i < 4; ++i) r |= byte(sel - i + 8) << (8 * i);
      return r;
    case NV_SASS_PRMT_RC8:
      return byte(sel) * 0x01010101u;
    case NV_SASS_PRMT_ECL:  // byte i is byte max(i, sel): the left edge repeated
      for (unsigned i = 0; i < 4; ++i) r |= byte(std::max(i, sel)) << (8 * i);
      return r;
    case NV_SASS_PRMT_ECR:  // byte i is byte min(i, sel): the right edge repeated
      for (unsigned i = 0; i < 4; ++i) r |= byte(std::min(i, sel)) << (8 * i);
      return r;
    case NV_SASS_PRMT_RC16: {
      const uint32_t half = (a >> ((c & 1) * 16)) & 0xFFFF;
      return half | (half << 16);
    }
    default:
      for (unsigned i = 0; i < 4; ++i) {
        const unsigned s = (c >> (4 * i)) & 0xF;
        uint32_t v = byte(s & 7);
        if (s & 8) v = (v & 0x80) ? 0xFF : 0;
        r |= v << (8 * i);
      }
      return r;
  }
}

template <class T>
T bfe(T a, uint32_t pos, uint32_t len) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned W = sizeof(T) * 8;
  pos &= 0xFF;
  len &= 0xFF;
  if (len == 0) return 0;
  const U ua = static_cast<U>(a);
  U sbit = 0;
  if constexpr (std::is_signed_v<T>) sbit = (ua >> std::min<uint32_t>(pos + len - 1, W - 1)) & 1;
  U v = pos >= W ? 0 : static_cast<U>(ua >> pos);
  const unsigned keep = std::min<uint32_t>(len, pos >= W ? 0 : W - pos);
  if (keep < W) {
    const U low = static_cast<U>((U{1} << keep) - 1);
    v = static_cast<U>((v & low) | (sbit ? static_cast<U>(~low) : U{0}));
  }
  return static_cast<T>(v);
}

template <class T>
T bfi(T a, T b, uint32_t pos, uint32_t len) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned W = sizeof(T) * 8;
  pos &= 0xFF;
  len &= 0xFF;
  if (len == 0 || pos >= W) return b;
  const unsigned n = std::min<uint32_t>(len, W - pos);
  const U field = n >= W ? static_cast<U>(~U{0}) : static_cast<U>(((U{1} << n) - 1) << pos);
  return static_cast<T>((static_cast<U>(b) & ~field) | ((static_cast<U>(a) << pos) & field));
}

template <class T>
uint32_t bfind(T a, bool shiftamt) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned W = sizeof(T) * 8;
  U v = static_cast<U>(a);
  if constexpr (std::is_signed_v<T>)
    if (a < 0) v = static_cast<U>(~v);
  if (v == 0) return 0xFFFFFFFFu;
  const unsigned msb = W - 1 - static_cast<unsigned>(sizeof(T) == 8 ? __builtin_clzll(v) : __builtin_clz(static_cast<uint32_t>(v)) - (32 - W));
  return shiftamt ? W - 1 - msb : msb;
}

// d = f(a, b) over the lanes of mask on type T.
template <class T, class F>
void binary(uint64_t* d, const uint64_t* a, const uint64_t* b, uint32_t mask, F f) {
  for_lanes(mask, [&](unsigned l) { d[l] = put<T>(f(get<T>(a[l]), get<T>(b[l]))); });
}
template <class T, class F>
void ternary(uint64_t* d, const uint64_t* a, const uint64_t* b, const uint64_t* c, uint32_t mask, F f) {
  for_lanes(mask, [&](unsigned l) { d[l] = put<T>(f(get<T>(a[l]), get<T>(b[l]), get<T>(c[l]))); });
}

struct Sources {
  uint64_t scratch[4][kLanes];
  const uint64_t* s[4] = {};
  Sources(const BlockExec& b, const Warp& w, const NvSassInstruction& in, uint32_t mask) {
    for (unsigned i = 1; i < in.operand_count && i <= 4; ++i) s[i - 1] = source(b, w, in.operand[i], mask, scratch[i - 1]);
  }
};

bool add_sub(Warp& w, const NvSassInstruction& in, const Sources& src, uint32_t mask, bool sub) {
  uint64_t* d = dest(w, in.operand[0]);
  const uint64_t *a = src.s[0], *b = src.s[1];
  const bool sat = in.flags & NV_SASS_FLAG_SAT, ftz = in.flags & NV_SASS_FLAG_FTZ;
  if (in.flags & (NV_SASS_FLAG_CC_OUT | NV_SASS_FLAG_CC_IN)) {  // the carry chain (u32/u64 only)
    const bool wide = type_bits(in.type) == 64;
    for_lanes(mask, [&](unsigned l) {
      const unsigned __int128 x = wide ? a[l] : static_cast<uint32_t>(a[l]);
      unsigned __int128 y = wide ? b[l] : static_cast<uint32_t>(b[l]);
      const unsigned carry_in = (in.flags & NV_SASS_FLAG_CC_IN) ? w.carry[l] : 0u;  // sub: the borrow
      const unsigned __int128 r = sub ? x - y - carry_in : x + y + carry_in;
      d[l] = wide ? static_cast<uint64_t>(r) : static_cast<uint32_t>(r);
      if (in.flags & NV_SASS_FLAG_CC_OUT) w.carry[l] = static_cast<uint8_t>((r >> (wide ? 64 : 32)) & 1);
    });
    return true;
  }
  return with_type(in.type, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const RoundingScope rounding(in.rounding);
      binary<T>(d, a, b, mask, [&](T x, T y) {
        T r = flush_t(sub ? flush_t(x, ftz) - flush_t(y, ftz) : flush_t(x, ftz) + flush_t(y, ftz), ftz);
        return sat ? saturate_float(r) : r;
      });
    } else if constexpr (std::is_same_v<T, int32_t>) {
      if (sat) binary<T>(d, a, b, mask, [&](T x, T y) { return saturate_s32(sub ? int64_t{x} - y : int64_t{x} + y); });
      else binary<T>(d, a, b, mask, [&](T x, T y) { return sub ? wrap_sub(x, y) : wrap_add(x, y); });
    } else {
      binary<T>(d, a, b, mask, [&](T x, T y) { return sub ? wrap_sub(x, y) : wrap_add(x, y); });
    }
  });
}

// mul, mad (mode LO / HI / WIDE), fma.
bool multiply(Warp& w, const NvSassInstruction& in, const Sources& src, uint32_t mask) {
  uint64_t* d = dest(w, in.operand[0]);
  const uint64_t *a = src.s[0], *b = src.s[1], *c = src.s[2];
  const bool add = in.opcode != NV_SASS_OP_MUL;
  const bool sat = in.flags & NV_SASS_FLAG_SAT, ftz = in.flags & NV_SASS_FLAG_FTZ;
  return with_type(in.type, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const RoundingScope rounding(in.rounding);
      if (add) ternary<T>(d, a, b, c, mask, [&](T x, T y, T z) {
        T r = flush_t(std::fma(flush_t(x, ftz), flush_t(y, ftz), flush_t(z, ftz)), ftz);
        return sat ? saturate_float(r) : r;
      });
      else binary<T>(d, a, b, mask, [&](T x, T y) {
        T r = flush_t(flush_t(x, ftz) * flush_t(y, ftz), ftz);
        return sat ? saturate_float(r) : r;
      });
    } else if (in.mode == NV_SASS_MUL_WIDE) {
      for_lanes(mask, [&](unsigned l) {
        uint64_t r = mul_wide<T>(get<T>(a[l]), get<T>(b[l]));
        if (add) r += c[l];
        if constexpr (sizeof(T) < 4) r &= (uint64_t{1} << (2 * 8 * sizeof(T))) - 1;
        d[l] = r;
      });
    } else if (in.mode == NV_SASS_MUL_HI) {
      if (add) ternary<T>(d, a, b, c, mask, [](T x, T y, T z) { return wrap_add(mul_hi(x, y), z); });
      else binary<T>(d, a, b, mask, [](T x, T y) { return mul_hi(x, y); });
    } else {
      if (add) ternary<T>(d, a, b, c, mask, [](T x, T y, T z) { return wrap_add(wrap_mul(x, y), z); });
      else binary<T>(d, a, b, mask, [](T x, T y) { return wrap_mul(x, y); });
    }
  });
}

bool min_max_div(Warp& w, const NvSassInstruction& in, const Sources& src, uint32_t mask) {
  uint64_t* d = dest(w, in.operand[0]);
  const uint64_t *a = src.s[0], *b = src.s[1];
  const bool ftz = in.flags & NV_SASS_FLAG_FTZ;
  const uint16_t op = in.opcode;
  if (op == NV_SASS_OP_COPYSIGN && !is_float_type(in.type)) return false;  // not an instruction
  return with_type(in.type, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      if (op == NV_SASS_OP_MIN) binary<T>(d, a, b, mask, [&](T x, T y) { return flush_t(std::fmin(x, y), ftz); });
      if (op == NV_SASS_OP_MAX) binary<T>(d, a, b, mask, [&](T x, T y) { return flush_t(std::fmax(x, y), ftz); });
      if (op == NV_SASS_OP_DIV) {
        const RoundingScope rounding(in.rounding);
        binary<T>(d, a, b, mask, [&](T x, T y) { return flush_t(flush_t(x, ftz) / flush_t(y, ftz), ftz); });
      }
      if (op == NV_SASS_OP_COPYSIGN) binary<T>(d, a, b, mask, [](T x, T y) { return std::copysign(y, x); });
      if (op == NV_SASS_OP_REM) binary<T>(d, a, b, mask, [](T x, T y) { return std::fmod(x, y); });
    } else {
      if (op == NV_SASS_OP_MIN) binary<T>(d, a, b, mask, [](T x, T y) { return x < y ? x : y; });
      if (op == NV_SASS_OP_MAX) binary<T>(d, a, b, mask, [](T x, T y) { return x > y ? x : y; });
      if (op == NV_SASS_OP_DIV) binary<T>(d, a, b, mask, [](T x, T y) { return h200_div(x, y); });
      if (op == NV_SASS_OP_REM) binary<T>(d, a, b, mask, [](T x, T y) { return h200_rem(x, y); });
    }
  });
}

bool unary_arith(Warp& w, const NvSassInstruction& in, const Sources& src, uint32_t mask) {
  uint64_t* d = dest(w, in.operand[0]);
  const uint64_t* a = src.s[0];
  const bool neg = in.opcode == NV_SASS_OP_NEG, ftz = in.flags & NV_SASS_FLAG_FTZ;
  return with_type(in.type, [&]<class T>() {
    for_lanes(mask, [&](unsigned l) {
      const T x = get<T>(a[l]);
      if constexpr (std::is_floating_point_v<T>) d[l] = put<T>(flush_t(neg ? -x : std::fabs(x), ftz));
      else if constexpr (std::is_signed_v<T>) d[l] = put<T>(neg ? wrap_sub(T(0), x) : (x < 0 ? wrap_sub(T(0), x) : x));
      else d[l] = put<T>(neg ? wrap_sub(T(0), x) : x);
    });
  });
}

// and/or/xor/not on predicates.
bool predicate_logic(Warp& w, const NvSassInstruction& in, uint32_t mask) {
  const uint16_t op = in.opcode;
  const uint32_t a = predicate_mask(w, in.operand[1], mask);
  const uint32_t b = op == NV_SASS_OP_NOT ? 0 : predicate_mask(w, in.operand[2], mask);
  switch (op) {
    case NV_SASS_OP_AND: write_predicate(w, in.operand[0].index, a & b, mask); return true;
    case NV_SASS_OP_OR: write_predicate(w, in.operand[0].index, a | b, mask); return true;
    case NV_SASS_OP_XOR: write_predicate(w, in.operand[0].index, a ^ b, mask); return true;
    case NV_SASS_OP_NOT: write_predicate(w, in.operand[0].index, ~a, mask); return true;
    default: return false;
  }
}

bool bits(Warp& w, const NvSassInstruction& in, const Sources& src, uint32_t mask) {
  const uint16_t op = in.opcode;
  uint64_t* d = dest(w, in.operand[0]);
  const uint64_t *a = src.s[0], *b = src.s[1], *c = src.s[2], *e = src.s[3];
  return with_int_type(in.type, [&]<class T>() {
    using U = std::make_unsigned_t<T>;
    constexpr unsigned W = sizeof(T) * 8;
    switch (op) {
      case NV_SASS_OP_AND: binary<U>(d, a, b, mask, [](U x, U y) { return static_cast<U>(x & y); }); break;
      case NV_SASS_OP_OR: binary<U>(d, a, b, mask, [](U x, U y) { return static_cast<U>(x | y); }); break;
      case NV_SASS_OP_XOR: binary<U>(d, a, b, mask, [](U x, U y) { return static_cast<U>(x ^ y); }); break;
      case NV_SASS_OP_NOT: for_lanes(mask, [&](unsigned l) { d[l] = put<U>(static_cast<U>(~get<U>(a[l]))); }); break;
      case NV_SASS_OP_CNOT: for_lanes(mask, [&](unsigned l) { d[l] = get<U>(a[l]) == 0 ? 1 : 0; }); break;
      case NV_SASS_OP_SHL:
        for_lanes(mask, [&](unsigned l) {
          const uint32_t n = static_cast<uint32_t>(b[l]);
          d[l] = put<U>(n >= W ? U{0} : static_cast<U>(get<U>(a[l]) << n));
        });
        break;
      case NV_SASS_OP_SHR:
        for_lanes(mask, [&](unsigned l) {
          const uint32_t n = static_cast<uint32_t>(b[l]);
          const T x = get<T>(a[l]);
          if constexpr (std::is_signed_v<T>) d[l] = put<T>(static_cast<T>(x >> std::min<uint32_t>(n, W - 1)));
          else d[l] = put<T>(n >= W ? T{0} : static_cast<T>(x >> n));
        });
        break;
      case NV_SASS_OP_BREV:
        for_lanes(mask, [&](unsigned l) {
          U x = get<U>(a[l]), r = 0;
          for (unsigned i = 0; i < W; ++i) r = static_cast<U>(r | (((x >> i) & 1) << (W - 1 - i)));
          d[l] = put<U>(r);
        });
        break;
      case NV_SASS_OP_POPC:
        for_lanes(mask, [&](unsigned l) { d[l] = static_cast<uint32_t>(__builtin_popcountll(get<U>(a[l]))); });
        break;
      case NV_SASS_OP_CLZ:
        for_lanes(mask, [&](unsigned l) {
          const uint64_t x = get<U>(a[l]);
          d[l] = x == 0 ? W : static_cast<uint32_t>(__builtin_clzll(x) - (64 - W));
        });
        break;
      case NV_SASS_OP_BFIND:
        for_lanes(mask, [&](unsigned l) { d[l] = bfind<T>(get<T>(a[l]), in.flags & NV_SASS_FLAG_SHIFTAMT); });
        break;
      case NV_SASS_OP_BFE:
        for_lanes(mask, [&](unsigned l) {
          d[l] = put<T>(bfe<T>(get<T>(a[l]), static_cast<uint32_t>(b[l]), static_cast<uint32_t>(c[l])));
        });
        break;
      case NV_SASS_OP_BFI:
        for_lanes(mask, [&](unsigned l) {
          d[l] = put<T>(bfi<T>(get<T>(a[l]), get<T>(b[l]), static_cast<uint32_t>(c[l]), static_cast<uint32_t>(e[l])));
        });
        break;
      case NV_SASS_OP_LOP3:
        for_lanes(mask, [&](unsigned l) {
          d[l] = lop3(static_cast<uint32_t>(a[l]), static_cast<uint32_t>(b[l]), static_cast<uint32_t>(c[l]), in.mode);
        });
        break;
      case NV_SASS_OP_PRMT:
        for_lanes(mask, [&](unsigned l) {
          d[l] = prmt(static_cast<uint32_t>(a[l]), static_cast<uint32_t>(b[l]), static_cast<uint32_t>(c[l]), in.mode);
        });
        break;
      case NV_SASS_OP_SHF:
        for_lanes(mask, [&](unsigned l) {
          const uint64_t both = (uint64_t{static_cast<uint32_t>(b[l])} << 32) | static_cast<uint32_t>(a[l]);
          uint32_t n = static_cast<uint32_t>(c[l]);
          n = (in.flags & NV_SASS_FLAG_WRAP) ? n & 31 : std::min<uint32_t>(n, 32);
          d[l] = in.mode == NV_SASS_SHF_L ? static_cast<uint32_t>((both << n) >> 32) : static_cast<uint32_t>(both >> n);
        });
        break;
      default: break;
    }
  });
}

bool compare_select(Warp& w, const NvSassInstruction& in, const Sources& src, uint32_t mask) {
  const uint64_t *a = src.s[0], *b = src.s[1];
  switch (in.opcode) {
    case NV_SASS_OP_SETP:
    case NV_SASS_OP_SET: {
      const uint8_t t = in.opcode == NV_SASS_OP_SETP ? in.type : in.stype;
      uint32_t result = 0;
      const bool ok = with_type(t, [&]<class T>() {
        for_lanes(mask, [&](unsigned l) { result |= uint32_t{compare<T>(in.cmp, get<T>(a[l]), get<T>(b[l]))} << l; });
      });
      if (!ok) return false;
      uint32_t c = 0;
      if (in.boolop != NV_SASS_BOOL_NONE) c = predicate_mask(w, in.operand[3], mask);
      uint32_t r = 0, q = 0;
      for_lanes(mask, [&](unsigned l) {
        const bool t_bit = (result >> l) & 1, c_bit = (c >> l) & 1;
        r |= uint32_t{combine(in.boolop, t_bit, c_bit)} << l;
        q |= uint32_t{combine(in.boolop, !t_bit, c_bit)} << l;
      });
      if (in.opcode == NV_SASS_OP_SETP) {
        write_predicate(w, in.operand[0].index, r, mask);
        if (in.pred_dst != NV_SASS_PRED_TRUE) write_predicate(w, in.pred_dst, q, mask);
      } else {
        uint64_t* d = dest(w, in.operand[0]);
        const bool as_float = in.type == NV_SASS_TYPE_F32;
        for_lanes(mask, [&](unsigned l) {
          const bool set = (r >> l) & 1;
          d[l] = as_float ? (set ? put<float>(1.0f) : 0) : (set ? 0xFFFFFFFFu : 0);
        });
      }
      return true;
    }
    case NV_SASS_OP_SELP: {
      uint64_t* d = dest(w, in.operand[0]);
      const uint32_t c = predicate_mask(w, in.operand[3], mask);
      for_lanes(mask, [&](unsigned l) { d[l] = ((c >> l) & 1) ? a[l] : b[l]; });
      return true;
    }
    case NV_SASS_OP_SLCT: {
      uint64_t* d = dest(w, in.operand[0]);
      const uint64_t* c = src.s[2];
      const bool f = in.stype == NV_SASS_TYPE_F32;
      for_lanes(mask, [&](unsigned l) {
        const bool pick_a = f ? get<float>(c[l]) >= 0.0f : get<int32_t>(c[l]) >= 0;
        d[l] = pick_a ? a[l] : b[l];
      });
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool execute_alu(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  switch (in.opcode) {
    case NV_SASS_OP_ADD: case NV_SASS_OP_SUB: case NV_SASS_OP_MUL: case NV_SASS_OP_MAD:
    case NV_SASS_OP_FMA: case NV_SASS_OP_MUL24: case NV_SASS_OP_MAD24: case NV_SASS_OP_SAD:
    case NV_SASS_OP_DIV: case NV_SASS_OP_REM: case NV_SASS_OP_MIN: case NV_SASS_OP_MAX:
    case NV_SASS_OP_COPYSIGN: case NV_SASS_OP_ABS: case NV_SASS_OP_NEG:
    case NV_SASS_OP_AND: case NV_SASS_OP_OR: case NV_SASS_OP_XOR: case NV_SASS_OP_NOT:
    case NV_SASS_OP_CNOT: case NV_SASS_OP_SHL: case NV_SASS_OP_SHR: case NV_SASS_OP_SHF:
    case NV_SASS_OP_LOP3: case NV_SASS_OP_PRMT: case NV_SASS_OP_BFE: case NV_SASS_OP_BFI:
    case NV_SASS_OP_BREV: case NV_SASS_OP_POPC: case NV_SASS_OP_CLZ: case NV_SASS_OP_BFIND:
    case NV_SASS_OP_SETP: case NV_SASS_OP_SET: case NV_SASS_OP_SELP: case NV_SASS_OP_SLCT:
      break;
    default:
      return execute_convert(b, w, in, mask);
  }
  // Predicate logic reads its predicates itself; every other instruction reads its sources here.
  if (in.type == NV_SASS_TYPE_PRED) return predicate_logic(w, in, mask);
  const Sources src(b, w, in, mask);
  switch (in.opcode) {
    case NV_SASS_OP_ADD: return add_sub(w, in, src, mask, false);
    case NV_SASS_OP_SUB: return add_sub(w, in, src, mask, true);
    case NV_SASS_OP_MUL: case NV_SASS_OP_MAD: case NV_SASS_OP_FMA: return multiply(w, in, src, mask);
    case NV_SASS_OP_MUL24: case NV_SASS_OP_MAD24: {  // the low 24 bits of each source
      uint64_t* d = dest(w, in.operand[0]);
      const bool sgn = is_signed_type(in.type), hi = in.mode == NV_SASS_MUL_HI;
      for_lanes(mask, [&](unsigned l) {
        auto low24 = [&](uint64_t v) -> int64_t {
          return sgn ? (static_cast<int64_t>(static_cast<uint64_t>(v) << 40) >> 40) : static_cast<int64_t>(v & 0xFFFFFF);
        };
        const int64_t p = low24(src.s[0][l]) * low24(src.s[1][l]);
        uint32_t r = hi ? static_cast<uint32_t>(static_cast<uint64_t>(p) >> 16) : static_cast<uint32_t>(p);
        if (in.opcode == NV_SASS_OP_MAD24) r += static_cast<uint32_t>(src.s[2][l]);
        d[l] = r;
      });
      return true;
    }
    case NV_SASS_OP_SAD:
      return with_int_type(in.type, [&]<class T>() {
        ternary<T>(dest(w, in.operand[0]), src.s[0], src.s[1], src.s[2], mask,
                   [](T x, T y, T z) { return wrap_add(x < y ? wrap_sub(y, x) : wrap_sub(x, y), z); });
      });
    case NV_SASS_OP_DIV: case NV_SASS_OP_REM: case NV_SASS_OP_MIN: case NV_SASS_OP_MAX:
    case NV_SASS_OP_COPYSIGN:
      return min_max_div(w, in, src, mask);
    case NV_SASS_OP_ABS: case NV_SASS_OP_NEG: return unary_arith(w, in, src, mask);
    case NV_SASS_OP_SETP: case NV_SASS_OP_SET: case NV_SASS_OP_SELP: case NV_SASS_OP_SLCT:
      return compare_select(w, in, src, mask);
    default: return bits(w, in, src, mask);
  }
}

}  // namespace minicuda::gpu::simt
