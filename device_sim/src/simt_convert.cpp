// simt_convert: the SIMT executor's operands (registers, immediates, special registers,
// predicates, symbols), moves, conversions (cvt) and the special functions (rcp, sqrt, sin...).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "simt_values.h"

namespace minicuda::gpu::simt {

// --- operands ---------------------------------------------------------------------------------

const uint64_t* source(const BlockExec& b, const Warp& w, const NvSassOperand& op, uint32_t mask, uint64_t* scratch) {
  switch (op.kind) {
    case NV_SASS_OPND_REG:
      return w.regs + size_t{op.index} * kLanes;
    case NV_SASS_OPND_IMM:
      for (unsigned l = 0; l < kLanes; ++l) scratch[l] = op.imm;
      return scratch;
    case NV_SASS_OPND_SYMBOL: {
      const NvSassProgram& p = b.program();
      const uint64_t base = op.index < p.symbol_count ? nv_p64_to_ptr<const NvU64>(p.symbols)[op.index] : 0;
      for (unsigned l = 0; l < kLanes; ++l) scratch[l] = base + op.imm;
      return scratch;
    }
    case NV_SASS_OPND_SREG:
      b.special_register(w, op.index, mask, scratch);
      return scratch;
    case NV_SASS_OPND_PRED: {
      const uint32_t bits = predicate_mask(w, op, mask);
      for (unsigned l = 0; l < kLanes; ++l) scratch[l] = (bits >> l) & 1;
      return scratch;
    }
    default:
      for (unsigned l = 0; l < kLanes; ++l) scratch[l] = 0;
      return scratch;
  }
}

uint32_t predicate_mask(const Warp& w, const NvSassOperand& op, uint32_t mask) {
  if (op.kind == NV_SASS_OPND_IMM) return (op.imm != 0) != ((op.flags & NV_SASS_OPND_NEGATE) != 0) ? mask : 0;
  if (op.kind != NV_SASS_OPND_PRED) return 0;
  const uint8_t* p = w.preds + size_t{op.index} * kLanes;
  uint32_t bits = 0;
  for_lanes(mask, [&](unsigned l) { bits |= uint32_t{p[l]} << l; });
  return (op.flags & NV_SASS_OPND_NEGATE) ? ~bits & mask : bits;
}

void write_predicate(Warp& w, uint32_t p, uint32_t value_mask, uint32_t mask) {
  uint8_t* d = w.preds + size_t{p} * kLanes;
  for_lanes(mask, [&](unsigned l) { d[l] = static_cast<uint8_t>((value_mask >> l) & 1); });
}

void BlockExec::special_register(const Warp& w, uint32_t sr, uint32_t mask, uint64_t* out) const {
  const dim3 block = launch_->block, grid = launch_->grid;
  const unsigned base = w.index * kLanes;
  auto each = [&](auto f) { for_lanes(mask, [&](unsigned l) { out[l] = f(l); }); };
  auto tid = [&](unsigned l) { return thread_index(base + l, block); };
  switch (sr) {
    case NV_SASS_SR_TID_X: each([&](unsigned l) { return tid(l).x; }); return;
    case NV_SASS_SR_TID_Y: each([&](unsigned l) { return tid(l).y; }); return;
    case NV_SASS_SR_TID_Z: each([&](unsigned l) { return tid(l).z; }); return;
    case NV_SASS_SR_NTID_X: each([&](unsigned) { return block.x; }); return;
    case NV_SASS_SR_NTID_Y: each([&](unsigned) { return block.y; }); return;
    case NV_SASS_SR_NTID_Z: each([&](unsigned) { return block.z; }); return;
    case NV_SASS_SR_CTAID_X: each([&](unsigned) { return block_idx_.x; }); return;
    case NV_SASS_SR_CTAID_Y: each([&](unsigned) { return block_idx_.y; }); return;
    case NV_SASS_SR_CTAID_Z: each([&](unsigned) { return block_idx_.z; }); return;
    case NV_SASS_SR_NCTAID_X: each([&](unsigned) { return grid.x; }); return;
    case NV_SASS_SR_NCTAID_Y: each([&](unsigned) { return grid.y; }); return;
    case NV_SASS_SR_NCTAID_Z: each([&](unsigned) { return grid.z; }); return;
    case NV_SASS_SR_LANEID: each([&](unsigned l) { return l; }); return;
    case NV_SASS_SR_WARPID: each([&](unsigned) { return w.index; }); return;
    case NV_SASS_SR_NWARPID: each([&](unsigned) { return static_cast<unsigned>(warps_.size()); }); return;
    // The SM a block runs on: blocks go round the H200's 132 SMs in order.
    case NV_SASS_SR_SMID: each([&](unsigned) { return static_cast<unsigned>(block_ % 132); }); return;
    case NV_SASS_SR_NSMID: each([&](unsigned) { return 132u; }); return;
    case NV_SASS_SR_GRIDID: each([&](unsigned) { return 1u; }); return;
    case NV_SASS_SR_LANEMASK_EQ: each([&](unsigned l) { return 1u << l; }); return;
    case NV_SASS_SR_LANEMASK_LT: each([&](unsigned l) { return (1u << l) - 1; }); return;
    case NV_SASS_SR_LANEMASK_LE: each([&](unsigned l) { return l == 31 ? kFullMask : (2u << l) - 1; }); return;
    case NV_SASS_SR_LANEMASK_GT: each([&](unsigned l) { return l == 31 ? 0u : kFullMask << (l + 1); }); return;
    case NV_SASS_SR_LANEMASK_GE: each([&](unsigned l) { return kFullMask << l; }); return;
    case NV_SASS_SR_CLOCK: case NV_SASS_SR_CLOCK_HI: case NV_SASS_SR_CLOCK64: {
      // The SM clock as clock64() reads it (sm_clock.cpp): host time at 1.98 GHz.
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count();
      const auto c = static_cast<uint64_t>(ns / 1000 * 1980 + ns % 1000 * 1980 / 1000);
      each([&](unsigned) { return sr == NV_SASS_SR_CLOCK ? c & 0xFFFFFFFF : sr == NV_SASS_SR_CLOCK_HI ? c >> 32 : c; });
      return;
    }
    case NV_SASS_SR_GLOBALTIMER: case NV_SASS_SR_GLOBALTIMER_LO: case NV_SASS_SR_GLOBALTIMER_HI: {
      const auto ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
      each([&](unsigned) {
        return sr == NV_SASS_SR_GLOBALTIMER ? ns : sr == NV_SASS_SR_GLOBALTIMER_LO ? ns & 0xFFFFFFFF : ns >> 32;
      });
      return;
    }
    case NV_SASS_SR_DYNAMIC_SMEM_SIZE: each([&](unsigned) { return launch_->dynamic_shared; }); return;
    case NV_SASS_SR_TOTAL_SMEM_SIZE: each([&](unsigned) { return shared_size_; }); return;
    case NV_SASS_SR_WARPSIZE: each([&](unsigned) { return kLanes; }); return;
    // Reserved area 0 is the first 256 bytes, area 1 (cooperative groups' scratch) the rest.
    case NV_SASS_SR_RESERVED_SMEM_BEGIN: case NV_SASS_SR_RESERVED_SMEM_0:
      each([&](unsigned) { return reserved_shared_; });
      return;
    case NV_SASS_SR_RESERVED_SMEM_END: each([&](unsigned) { return reserved_shared_ + kReservedSharedBytes; }); return;
    case NV_SASS_SR_RESERVED_SMEM_CAP: each([&](unsigned) { return kReservedSharedBytes; }); return;
    case NV_SASS_SR_RESERVED_SMEM_1: each([&](unsigned) { return reserved_shared_ + 256; }); return;
    case NV_SASS_SR_ENVREG1: each([&](unsigned) { return launch_->grid_workspace >> 32; }); return;
    case NV_SASS_SR_ENVREG2: each([&](unsigned) { return launch_->grid_workspace & 0xFFFFFFFFu; }); return;
    default: each([&](unsigned) { return 0u; }); return;
  }
}

// --- half precision ---------------------------------------------------------------------------

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
  if (exp == 0) return std::copysign(std::ldexp(static_cast<float>(man), -24), sign ? -1.0f : 1.0f);
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7E00);
  const float a = std::fabs(f);
  if (a >= 65520.0f) return static_cast<uint16_t>(sign | 0x7C00);
  if (a < 6.103515625e-05f) {  // subnormal: a multiple of 2^-24, rounded to nearest even
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f)));
  }
  uint32_t bits = std::bit_cast<uint32_t>(a);
  const uint32_t round = 0xFFF + ((bits >> 13) & 1);
  bits += round;
  return static_cast<uint16_t>(sign | (((bits >> 23) - 112) << 10) | ((bits >> 13) & 0x3FF));
}

namespace {

// Rounds v to an integral value as the rounding modifier says (rni/rzi/rmi/rpi; none: rz for
// float -> int, as C++).
template <class F>
F round_integral(F v, uint8_t rounding) {
  switch (rounding) {
    case NV_SASS_RND_RNI: case NV_SASS_RND_RN: return std::nearbyint(v);
    case NV_SASS_RND_RMI: case NV_SASS_RND_RM: return std::floor(v);
    case NV_SASS_RND_RPI: case NV_SASS_RND_RP: return std::ceil(v);
    default: return std::trunc(v);
  }
}

// A float converted to integer type T: rounded, then clamped to T's range (NaN: 0), as PTX's
// float-to-integer cvt always saturates.
template <class T, class F>
T float_to_int(F v, uint8_t rounding, T nan_value) {
  if (std::isnan(v)) return nan_value;
  const F r = round_integral(v, rounding);
  if (r <= static_cast<F>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (r >= static_cast<F>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

// d rounded to f32 toward zero, with the lowest bit set when that was inexact (round to odd).
float to_odd_float(double d) {
  if (std::isnan(d) || std::isinf(d)) return static_cast<float>(d);
  const float mag = std::fabs(d) >= double{std::numeric_limits<float>::max()}
                        ? std::numeric_limits<float>::max()
                        : static_cast<float>(std::fabs(d));  // round to nearest, then step toward zero
  float t = static_cast<double>(mag) > std::fabs(d) ? std::nextafter(mag, 0.0f) : mag;
  if (static_cast<double>(t) != std::fabs(d)) t = std::bit_cast<float>(std::bit_cast<uint32_t>(t) | 1u);
  return std::copysign(t, static_cast<float>(d));
}

// f32 -> bf16, round to nearest even; a NaN stays a (quiet) NaN.
uint64_t float_to_bf16(float g) {
  const uint32_t x = std::bit_cast<uint32_t>(g);
  if (std::isnan(g)) return ((x >> 16) | 0x40) & 0xFFFF;
  return (x + 0x7FFF + ((x >> 16) & 1)) >> 16;
}

// The source of a cvt as a double or an integer.
struct Value {
  bool is_float = false;
  bool wide = false;  // an f64 source
  double f = 0;
  __int128 i = 0;
};

Value read_value(uint8_t t, uint64_t v) {
  Value r;
  switch (t) {
    case NV_SASS_TYPE_F32: r.is_float = true, r.f = get<float>(v); break;
    case NV_SASS_TYPE_F64: r.is_float = true, r.wide = true, r.f = get<double>(v); break;
    case NV_SASS_TYPE_F16: r.is_float = true, r.f = half_to_float(static_cast<uint16_t>(v)); break;
    case NV_SASS_TYPE_BF16: r.is_float = true, r.f = std::bit_cast<float>(static_cast<uint32_t>(v & 0xFFFF) << 16); break;
    default:
      with_int_type(t, [&]<class T>() { r.i = get<T>(v); });
  }
  return r;
}

template <class T>
uint64_t int_result(const Value& v, uint8_t rounding, bool sat) {
  if (v.is_float) {
    // NaN: 0 from a 32-bit (or narrower) float to a 32-bit (or narrower) integer, else the
    // destination's top bit alone (INT_MIN, 0x80000000u, LLONG_MIN, 1ull << 63), as the C++
    // kernels' conversions (crt/device_rounding_intrinsics.h) and the PTX ISA give it.
    const bool zero = sizeof(T) < 4 || (sizeof(T) == 4 && !v.wide);
    const T nan_value = zero ? T{0} : static_cast<T>(std::make_unsigned_t<T>{1} << (8 * sizeof(T) - 1));
    return put<T>(float_to_int<T>(v.f, rounding, nan_value));
  }
  if (sat) {
    const __int128 lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    return put<T>(static_cast<T>(v.i < lo ? lo : v.i > hi ? hi : v.i));
  }
  return put<T>(static_cast<T>(v.i));
}

// cvt d (in.type) = a (in.stype).
void convert(Warp& w, const NvSassInstruction& in, const uint64_t* a, uint32_t mask) {
  uint64_t* d = dest(w, in.operand[0]);
  const bool sat = in.flags & NV_SASS_FLAG_SAT, ftz = in.flags & NV_SASS_FLAG_FTZ;
  // The commonest conversions on their own loops.
  if (in.type == NV_SASS_TYPE_F32 && in.stype == NV_SASS_TYPE_S32 && in.rounding <= NV_SASS_RND_RN) {
    for_lanes(mask, [&](unsigned l) { d[l] = put<float>(static_cast<float>(get<int32_t>(a[l]))); });
    return;
  }
  if ((in.type == NV_SASS_TYPE_U64 || in.type == NV_SASS_TYPE_S64) && in.stype == NV_SASS_TYPE_U32) {
    for_lanes(mask, [&](unsigned l) { d[l] = static_cast<uint32_t>(a[l]); });
    return;
  }
  if (in.type == NV_SASS_TYPE_S64 && in.stype == NV_SASS_TYPE_S32) {
    for_lanes(mask, [&](unsigned l) { d[l] = put<int64_t>(get<int32_t>(a[l])); });
    return;
  }
  // cvt.rz/.rm/.rp to f32 and f64 round in the host's mode; to f16 and bf16 the lowering
  // admits only .rn (and the integral roundings), which the software conversions implement.
  const RoundingScope rounding(in.type == NV_SASS_TYPE_F32 || in.type == NV_SASS_TYPE_F64 ? in.rounding : uint8_t{NV_SASS_RND_NONE});
  for_lanes(mask, [&](unsigned l) {
    const Value v = read_value(in.stype, a[l]);
    switch (in.type) {
      case NV_SASS_TYPE_F32: case NV_SASS_TYPE_F64: case NV_SASS_TYPE_F16: case NV_SASS_TYPE_BF16: {
        double f = v.is_float ? v.f : static_cast<double>(v.i);
        if (in.rounding >= NV_SASS_RND_RNI) f = round_integral(f, in.rounding);
        if (sat) f = std::isnan(f) ? 0.0 : std::clamp(f, 0.0, 1.0);
        if (in.type == NV_SASS_TYPE_F64) {
          // An integer rounds once, from its 64-bit value.
          d[l] = put<double>(v.is_float ? f
                             : v.i < 0 ? static_cast<double>(static_cast<int64_t>(v.i))
                                       : static_cast<double>(static_cast<uint64_t>(v.i)));
          if (sat || in.rounding >= NV_SASS_RND_RNI) d[l] = put<double>(f);
        } else {
          // Integer -> f32 rounds once from the integer, not through a double.
          // f64 -> f16/bf16 rounds once: through f32 rounded to odd (toward zero, the last bit
          // set when inexact), which keeps the nearest-even of the narrower type exact.
          const bool to_odd = in.stype == NV_SASS_TYPE_F64 && in.type != NV_SASS_TYPE_F32;
          float g = to_odd ? to_odd_float(f)
                    : v.is_float || sat || in.rounding >= NV_SASS_RND_RNI ? static_cast<float>(f)
                    : v.i < 0 ? static_cast<float>(static_cast<int64_t>(v.i))
                              : static_cast<float>(static_cast<uint64_t>(v.i));
          if (ftz && std::fpclassify(g) == FP_SUBNORMAL) g = std::copysign(0.0f, g);
          if (in.type == NV_SASS_TYPE_F32) d[l] = put<float>(g);
          else if (in.type == NV_SASS_TYPE_F16) d[l] = float_to_half(g);
          else d[l] = float_to_bf16(g);
        }
        break;
      }
      default:
        with_int_type(in.type, [&]<class T>() { d[l] = int_result<T>(v, in.rounding, sat); });
    }
  });
}

template <class F>
F special(uint16_t op, F x) {
  switch (op) {
    case NV_SASS_OP_RCP: return F(1) / x;
    case NV_SASS_OP_SQRT: return std::sqrt(x);
    case NV_SASS_OP_RSQRT: return F(1) / std::sqrt(x);
    case NV_SASS_OP_SIN: return std::sin(x);
    case NV_SASS_OP_COS: return std::cos(x);
    case NV_SASS_OP_EX2: return std::exp2(x);
    case NV_SASS_OP_LG2: return std::log2(x);
    case NV_SASS_OP_TANH: return std::tanh(x);
    default: return x;
  }
}

bool testp(uint8_t mode, double v) {
  switch (mode) {
    case NV_SASS_TESTP_FINITE: return std::isfinite(v);
    case NV_SASS_TESTP_INFINITE: return std::isinf(v);
    case NV_SASS_TESTP_NUMBER: return !std::isnan(v);
    case NV_SASS_TESTP_NOTANUMBER: return std::isnan(v);
    case NV_SASS_TESTP_NORMAL: return std::isnormal(v);
    case NV_SASS_TESTP_SUBNORMAL: return std::fpclassify(v) == FP_SUBNORMAL;
    default: return false;
  }
}

}  // namespace

bool execute_convert(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  uint64_t scratch[4][kLanes];
  auto src = [&](unsigned i) { return source(b, w, in.operand[i], mask, scratch[i - 1]); };
  switch (in.opcode) {
    case NV_SASS_OP_MOV: {
      if (in.type == NV_SASS_TYPE_PRED) {
        write_predicate(w, in.operand[0].index, predicate_mask(w, in.operand[1], mask), mask);
        return true;
      }
      uint64_t* d = dest(w, in.operand[0]);
      const uint64_t* a = src(1);
      const unsigned bits = type_bits(in.type);
      const uint64_t keep = bits == 0 || bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      for_lanes(mask, [&](unsigned l) { d[l] = a[l] & keep; });
      return true;
    }
    case NV_SASS_OP_PACK: {  // d = {a, b(, c, e)}, element type `type`
      const unsigned bits = type_bits(in.type);
      const unsigned n = in.operand_count - 1;
      const uint64_t keep = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      uint64_t* d = dest(w, in.operand[0]);
      const uint64_t* parts[4] = {};
      for (unsigned i = 0; i < n && i < 4; ++i) parts[i] = src(i + 1);
      for_lanes(mask, [&](unsigned l) {
        uint64_t v = 0;
        for (unsigned i = 0; i < n && i < 4; ++i) v |= (parts[i][l] & keep) << (i * bits);
        d[l] = v;
      });
      return true;
    }
    case NV_SASS_OP_UNPACK: {  // {d, a(, b, c)} = the last operand
      const unsigned bits = type_bits(in.type);
      const unsigned n = in.operand_count - 1;
      const uint64_t keep = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      uint64_t whole[kLanes];
      const uint64_t* s = src(n);
      for_lanes(mask, [&](unsigned l) { whole[l] = s[l]; });
      for (unsigned i = 0; i < n; ++i) {
        if (in.operand[i].kind != NV_SASS_OPND_REG) continue;  // "_" sinks
        uint64_t* d = dest(w, in.operand[i]);
        for_lanes(mask, [&](unsigned l) { d[l] = (whole[l] >> (i * bits)) & keep; });
      }
      return true;
    }
    case NV_SASS_OP_CVT:
      convert(w, in, src(1), mask);
      return true;
    case NV_SASS_OP_RCP: case NV_SASS_OP_SQRT: case NV_SASS_OP_RSQRT: case NV_SASS_OP_SIN:
    case NV_SASS_OP_COS: case NV_SASS_OP_EX2: case NV_SASS_OP_LG2: case NV_SASS_OP_TANH: {
      uint64_t* d = dest(w, in.operand[0]);
      const uint64_t* a = src(1);
      const bool ftz = in.flags & NV_SASS_FLAG_FTZ;
      if (in.type != NV_SASS_TYPE_F32 && in.type != NV_SASS_TYPE_F64) return false;  // f16: refused at load
      const RoundingScope rounding(in.rounding);  // rcp.rz, sqrt.rm, ... (exact operations only)
      if (in.type == NV_SASS_TYPE_F64) {
        for_lanes(mask, [&](unsigned l) { d[l] = put<double>(special<double>(in.opcode, get<double>(a[l]))); });
      } else {
        for_lanes(mask, [&](unsigned l) {
          float x = get<float>(a[l]);
          if (ftz && std::fpclassify(x) == FP_SUBNORMAL) x = std::copysign(0.0f, x);
          float r = special<float>(in.opcode, x);
          if (ftz && std::fpclassify(r) == FP_SUBNORMAL) r = std::copysign(0.0f, r);
          d[l] = put<float>(r);
        });
      }
      return true;
    }
    case NV_SASS_OP_TESTP: {
      const uint64_t* a = src(1);
      uint32_t r = 0;
      for_lanes(mask, [&](unsigned l) {
        const double v = in.type == NV_SASS_TYPE_F64 ? get<double>(a[l]) : double{get<float>(a[l])};
        r |= uint32_t{testp(in.mode, v)} << l;
      });
      write_predicate(w, in.operand[0].index, r, mask);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace minicuda::gpu::simt
