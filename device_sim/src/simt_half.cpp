// simt_half: the SIMT executor's half-precision arithmetic - add, sub, mul, fma, neg, abs, min,
// max and setp on .f16, .f16x2, .bf16 and .bf16x2 (what cuda_fp16.h and cuda_bf16.h compile to).
//
// Every result is the exact one rounded once to nearest-even (PTX's .rn, the only rounding these
// instructions have): the operands are decoded to integer significands, the operation is done
// exactly on 128-bit integers (a term too small to reach the rounding bits becomes a sticky bit),
// and the exact value is rounded to the format, subnormals included. NaN results are the
// canonical NaN 0x7FFF. .ftz flushes subnormal inputs and results to a zero of the same sign, .sat
// clamps to [0, 1] (NaN to 0). An .x2 type runs the operation on both 16-bit halves.
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "simt_values.h"

namespace minicuda::gpu::simt {

namespace {

using u128 = unsigned __int128;

struct Format {
  int precision;  // significand bits, the hidden one included
  int emin, emax; // exponents of the smallest and largest normal numbers
  int exp_bits;
};
constexpr Format kF16{11, -14, 15, 5};
constexpr Format kBF16{8, -126, 127, 8};
constexpr uint16_t kCanonicalNaN = 0x7FFF;

// A finite value: (-1)^neg * mag * 2^exp.
struct Exact {
  bool neg = false;
  u128 mag = 0;
  int exp = 0;
};

enum class Kind { Finite, Inf, NaN };

int bit_length(u128 v) {
  const auto hi = static_cast<uint64_t>(v >> 64), lo = static_cast<uint64_t>(v);
  return hi != 0 ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo);
}

Kind decode(uint16_t bits, const Format& f, Exact& out) {
  const int mant_bits = f.precision - 1;
  const uint32_t exp_field = (bits >> mant_bits) & ((1u << f.exp_bits) - 1);
  const uint32_t mant = bits & ((1u << mant_bits) - 1);
  out.neg = (bits & 0x8000) != 0;
  if (exp_field == (1u << f.exp_bits) - 1) return mant == 0 ? Kind::Inf : Kind::NaN;
  const int bias = f.emax;
  if (exp_field == 0) {
    out.mag = mant;
    out.exp = f.emin - mant_bits;
  } else {
    out.mag = mant | (1u << mant_bits);
    out.exp = static_cast<int>(exp_field) - bias - mant_bits;
  }
  return Kind::Finite;
}

uint16_t infinity(bool neg, const Format& f) {
  return static_cast<uint16_t>((neg ? 0x8000 : 0) | (((1u << f.exp_bits) - 1) << (f.precision - 1)));
}

// The exact value rounded to nearest-even in format f.
uint16_t round_to(const Exact& x, const Format& f) {
  const uint16_t sign = x.neg ? 0x8000 : 0;
  if (x.mag == 0) return sign;
  const int length = bit_length(x.mag);
  const int e = x.exp + length - 1;  // the value's exponent
  const int quantum = std::max(e, f.emin) - (f.precision - 1);
  const int shift = quantum - x.exp;
  u128 m;
  if (shift <= 0) {
    m = x.mag << -shift;  // exact (length - shift <= precision)
  } else if (shift > 128) {
    m = 0;  // far below half of the smallest subnormal
  } else {
    m = shift == 128 ? 0 : x.mag >> shift;
    const u128 rem = shift == 128 ? x.mag : x.mag & ((u128{1} << shift) - 1);
    const u128 half = u128{1} << (shift - 1);
    if (rem > half || (rem == half && (m & 1) != 0)) ++m;
  }
  int q = quantum;
  if (m == (u128{1} << f.precision)) {
    m >>= 1;
    ++q;
  }
  if (m == 0) return sign;
  const int mant_bits = f.precision - 1;
  if (m < (u128{1} << mant_bits)) return static_cast<uint16_t>(sign | static_cast<uint16_t>(m));  // subnormal
  const int exponent = q + mant_bits;
  if (exponent > f.emax) return infinity(x.neg, f);
  const auto field = static_cast<uint32_t>(exponent + f.emax);
  return static_cast<uint16_t>(sign | (field << mant_bits) | static_cast<uint32_t>(m - (u128{1} << mant_bits)));
}

// x + y exactly, or with the smaller as a sticky bit when it lies far below the larger's bits.
Exact add_exact(Exact x, Exact y) {
  if (x.mag == 0 && y.mag == 0) {
    x.neg = x.neg && y.neg;  // +0 unless both are -0
    return x;
  }
  if (x.mag == 0) return y;
  if (y.mag == 0) return x;
  if (x.exp < y.exp) std::swap(x, y);  // x has the higher quantum
  const int gap = x.exp - y.exp;
  if (gap + bit_length(x.mag) <= 126) {
    x.mag <<= gap;
    x.exp = y.exp;
  } else {
    // y is far below x's lowest bit. Widen x to 100 bits and stand y in as one unit below them:
    // that moves the value off a tie or an exact result in y's direction and nothing more.
    const int widen = 100 - bit_length(x.mag);
    x.mag <<= widen;
    x.exp -= widen;
    y.mag = 1;
    y.exp = x.exp;
  }
  y.mag <<= (y.exp - x.exp);
  Exact r;
  r.exp = x.exp;
  if (x.neg == y.neg) {
    r.neg = x.neg;
    r.mag = x.mag + y.mag;
  } else if (x.mag >= y.mag) {
    r.neg = x.neg;
    r.mag = x.mag - y.mag;
  } else {
    r.neg = y.neg;
    r.mag = y.mag - x.mag;
  }
  if (r.mag == 0) r.neg = false;  // x + (-x) = +0 when rounding to nearest
  return r;
}

Exact mul_exact(const Exact& x, const Exact& y) {
  Exact r;
  r.neg = x.neg != y.neg;
  r.mag = x.mag * y.mag;
  r.exp = x.exp + y.exp;
  return r;
}

bool is_subnormal(uint16_t bits, const Format& f) {
  return ((bits >> (f.precision - 1)) & ((1u << f.exp_bits) - 1)) == 0 && (bits & ((1u << (f.precision - 1)) - 1)) != 0;
}
uint16_t flush(uint16_t bits, const Format& f) { return is_subnormal(bits, f) ? (bits & 0x8000) : bits; }

float to_float(uint16_t bits, const Format& f) {
  Exact x;
  switch (decode(bits, f, x)) {
    case Kind::NaN: return std::bit_cast<float>(0x7FC00000u);
    case Kind::Inf: return x.neg ? -__builtin_inff() : __builtin_inff();
    default: break;
  }
  const float v = __builtin_ldexpf(static_cast<float>(static_cast<uint32_t>(x.mag)), x.exp);
  return x.neg ? -v : v;
}

// One 16-bit element of the operation.
uint16_t element(const NvSassInstruction& in, const Format& f, uint16_t a, uint16_t b, uint16_t c) {
  const bool ftz = (in.flags & NV_SASS_FLAG_FTZ) != 0;
  if (ftz) a = flush(a, f), b = flush(b, f), c = flush(c, f);
  Exact x, y, z;
  const Kind ka = decode(a, f, x), kb = decode(b, f, y), kc = decode(c, f, z);
  uint16_t r = 0;
  switch (in.opcode) {
    case NV_SASS_OP_NEG: return static_cast<uint16_t>(a ^ 0x8000);
    case NV_SASS_OP_ABS: return static_cast<uint16_t>(a & 0x7FFF);
    case NV_SASS_OP_MIN:
    case NV_SASS_OP_MAX: {
      if (ka == Kind::NaN && kb == Kind::NaN) return kCanonicalNaN;
      if (ka == Kind::NaN) return b;
      if (kb == Kind::NaN) return a;
      const float fa = to_float(a, f), fb = to_float(b, f);
      const bool a_less = fa < fb || (fa == fb && (a & 0x8000) != 0);  // -0 < +0
      return (in.opcode == NV_SASS_OP_MIN) == a_less ? a : b;
    }
    case NV_SASS_OP_ADD:
    case NV_SASS_OP_SUB: {
      if (in.opcode == NV_SASS_OP_SUB) y.neg = !y.neg;
      if (ka == Kind::NaN || kb == Kind::NaN) return kCanonicalNaN;
      if (ka == Kind::Inf || kb == Kind::Inf) {
        if (ka == Kind::Inf && kb == Kind::Inf && x.neg != y.neg) return kCanonicalNaN;
        r = infinity(ka == Kind::Inf ? x.neg : y.neg, f);
        break;
      }
      r = round_to(add_exact(x, y), f);
      break;
    }
    case NV_SASS_OP_MUL:
    case NV_SASS_OP_FMA: {
      const bool fma = in.opcode == NV_SASS_OP_FMA;
      if (ka == Kind::NaN || kb == Kind::NaN || (fma && kc == Kind::NaN)) return kCanonicalNaN;
      const bool p_neg = x.neg != y.neg;
      if (ka == Kind::Inf || kb == Kind::Inf) {
        if ((ka == Kind::Finite && x.mag == 0) || (kb == Kind::Finite && y.mag == 0)) return kCanonicalNaN;
        if (fma && kc == Kind::Inf && z.neg != p_neg) return kCanonicalNaN;
        r = infinity(p_neg, f);
        break;
      }
      if (fma && kc == Kind::Inf) {
        r = infinity(z.neg, f);
        break;
      }
      Exact p = mul_exact(x, y);
      if (!fma) {
        r = round_to(p, f);
        break;
      }
      r = round_to(add_exact(p, z), f);
      break;
    }
    default:
      return kCanonicalNaN;
  }
  if (ftz) r = flush(r, f);
  if ((in.flags & NV_SASS_FLAG_SAT) != 0) {
    Exact v;
    const Kind k = decode(r, f, v);
    if (k == Kind::NaN || v.neg) r = 0;
    else if (k == Kind::Inf || to_float(r, f) > 1.0f) r = static_cast<uint16_t>(f.emax << (f.precision - 1));  // 1.0
  }
  return r;
}

bool compare(uint8_t cmp, float a, float b) {
  const bool unordered = a != a || b != b;
  switch (cmp) {
    case NV_SASS_CMP_EQ: return a == b;
    case NV_SASS_CMP_NE: return !unordered && a != b;
    case NV_SASS_CMP_LT: return a < b;
    case NV_SASS_CMP_LE: return a <= b;
    case NV_SASS_CMP_GT: return a > b;
    case NV_SASS_CMP_GE: return a >= b;
    case NV_SASS_CMP_EQU: return unordered || a == b;
    case NV_SASS_CMP_NEU: return a != b;
    case NV_SASS_CMP_LTU: return unordered || a < b;
    case NV_SASS_CMP_LEU: return unordered || a <= b;
    case NV_SASS_CMP_GTU: return unordered || a > b;
    case NV_SASS_CMP_GEU: return unordered || a >= b;
    case NV_SASS_CMP_NUM: return !unordered;
    case NV_SASS_CMP_NAN: return unordered;
    default: return false;
  }
}

bool is_half_type(uint8_t t) {
  return t == NV_SASS_TYPE_F16 || t == NV_SASS_TYPE_F16X2 || t == NV_SASS_TYPE_BF16 || t == NV_SASS_TYPE_BF16X2;
}

}  // namespace

uint16_t half_op_for_test(const NvSassInstruction& in, uint16_t a, uint16_t b, uint16_t c) {
  return element(in, in.type == NV_SASS_TYPE_BF16 || in.type == NV_SASS_TYPE_BF16X2 ? kBF16 : kF16, a, b, c);
}

bool execute_half(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  switch (in.opcode) {
    case NV_SASS_OP_ADD: case NV_SASS_OP_SUB: case NV_SASS_OP_MUL: case NV_SASS_OP_FMA:
    case NV_SASS_OP_NEG: case NV_SASS_OP_ABS: case NV_SASS_OP_MIN: case NV_SASS_OP_MAX: case NV_SASS_OP_SETP:
      break;
    default:
      return false;
  }
  if (!is_half_type(in.type)) return false;
  const Format& f = in.type == NV_SASS_TYPE_BF16 || in.type == NV_SASS_TYPE_BF16X2 ? kBF16 : kF16;
  const bool pair = in.type == NV_SASS_TYPE_F16X2 || in.type == NV_SASS_TYPE_BF16X2;
  const unsigned sources = in.opcode == NV_SASS_OP_FMA ? 3 : in.opcode == NV_SASS_OP_NEG || in.opcode == NV_SASS_OP_ABS ? 1 : 2;
  uint64_t scratch[3][kLanes];
  const uint64_t* s[3] = {nullptr, nullptr, nullptr};
  for (unsigned k = 0; k < sources; ++k) s[k] = source(b, w, in.operand[1 + k], mask, scratch[k]);
  auto at = [&](unsigned k, unsigned l, unsigned half) -> uint16_t {
    return k < sources ? static_cast<uint16_t>(s[k][l] >> (16 * half)) : 0;
  };
  if (in.opcode == NV_SASS_OP_SETP) {
    if (pair) b.raise(KernelErrorKind::IllegalInstruction, "setp on a pair of halves is not supported by the executor");
    uint32_t r = 0, q = 0;
    const uint32_t c = in.boolop != NV_SASS_BOOL_NONE ? predicate_mask(w, in.operand[3], mask) : 0;
    for_lanes(mask, [&](unsigned l) {
      uint16_t x = at(0, l, 0), y = at(1, l, 0);
      if ((in.flags & NV_SASS_FLAG_FTZ) != 0) x = flush(x, f), y = flush(y, f);
      const bool t = compare(in.cmp, to_float(x, f), to_float(y, f)), cb = (c >> l) & 1;
      auto combine = [&](bool v) {
        switch (in.boolop) {
          case NV_SASS_BOOL_AND: return v && cb;
          case NV_SASS_BOOL_OR: return v || cb;
          case NV_SASS_BOOL_XOR: return v != cb;
          default: return v;
        }
      };
      r |= uint32_t{combine(t)} << l;
      q |= uint32_t{combine(!t)} << l;
    });
    write_predicate(w, in.operand[0].index, r, mask);
    if (in.pred_dst != NV_SASS_PRED_TRUE) write_predicate(w, in.pred_dst, q, mask);
    return true;
  }
  uint64_t* d = dest(w, in.operand[0]);
  for_lanes(mask, [&](unsigned l) {
    uint64_t v = element(in, f, at(0, l, 0), at(1, l, 0), at(2, l, 0));
    if (pair) v |= uint64_t{element(in, f, at(0, l, 1), at(1, l, 1), at(2, l, 1))} << 16;
    d[l] = v;
  });
  return true;
}

}  // namespace minicuda::gpu::simt
