// minicuda/inline_ptx.h: the operations cu2cxx emits for inline PTX (`asm("..." : ...)` in device
// code, docs/tools/cu2cxx.md "Inline PTX") whose PTX semantics take more than one C++ operator:
// the special registers of the running thread and the bit-field, permute, logic-table and shift
// instructions, each exactly as the PTX ISA defines it. Part of the kernel language
// (minicuda::device_code); the special registers are only valid inside a kernel.
#pragma once

#include <chrono>
#include <cstdint>
#include <type_traits>

namespace minicuda::inline_ptx {

// %laneid and %warpid: the warp is formed from the block's linear thread index, 32 lanes each.
// %warpid is the warp's index in its block (the simulator keeps a block's warps in fixed slots).
inline unsigned linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned laneid() { return linear_tid() % 32u; }
inline unsigned warpid() { return linear_tid() / 32u; }
// %lanemask_eq/lt/le/gt/ge (which: 0 eq, 1 lt, 2 le, 3 gt, 4 ge).
inline unsigned lanemask(int which) {
  const unsigned lane = laneid(), eq = 1u << lane, lt = eq - 1u;
  switch (which) {
    case 0: return eq;
    case 1: return lt;
    case 2: return lt | eq;
    case 3: return ~(lt | eq);
    default: return ~lt;
  }
}

// %globaltimer: the GPU's nanosecond timer, read as the PTX executor reads it (the host's
// system clock in nanoseconds since the epoch), so C++ and PTX kernels share one time base.
inline uint64_t globaltimer() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// shl/shr: a shift amount of the operand's width or more gives 0 (shr.s: the sign in every bit).
template <class T>
T shl(T a, uint32_t b) {
  return b >= sizeof(T) * 8 ? T(0) : T(a << b);
}
template <class T>
T shr(T a, uint32_t b) {
  constexpr uint32_t w = sizeof(T) * 8;
  if constexpr (std::is_signed_v<T>) return T(a >> (b >= w ? w - 1 : b));
  else return b >= w ? T(0) : T(a >> b);
}

// bfe: len bits of a from pos (each the low 8 bits of its operand), zero- or sign-extended; bits
// past the most significant take the sign (bfe.s) or 0; len 0 gives 0.
template <class T>
T bfe(T a, uint32_t b, uint32_t c) {
  using U = std::make_unsigned_t<T>;
  constexpr uint32_t msb = sizeof(T) * 8 - 1;
  const uint32_t pos = b & 0xffu, len = c & 0xffu;
  const U ua = static_cast<U>(a);
  U sbit = 0;
  if (std::is_signed_v<T> && len != 0) sbit = (ua >> (pos + len - 1 > msb ? msb : pos + len - 1)) & 1u;
  U d = 0;
  for (uint32_t i = 0; i <= msb; ++i) {
    const U bit = (i < len && pos + i <= msb) ? U((ua >> (pos + i)) & 1u) : sbit;
    d |= U(bit << i);
  }
  return static_cast<T>(d);
}

// bfi: b with len bits from pos replaced by the low bits of f (pos, len: low 8 bits).
template <class T>
T bfi(T f, T b, uint32_t c, uint32_t d) {
  constexpr uint32_t msb = sizeof(T) * 8 - 1;
  const uint32_t pos = c & 0xffu, len = d & 0xffu;
  T r = b;
  for (uint32_t i = 0; i < len && pos + i <= msb; ++i) {
    const T bit = T(T(1) << (pos + i));
    r = ((f >> i) & 1u) ? T(r | bit) : T(r & ~bit);
  }
  return r;
}

// prmt.b32 (default mode): byte i of the result is byte (c >> 4i) & 7 of {b, a} (a bytes 0-3,
// b bytes 4-7), or, when bit 3 of that selector is set, that byte's sign bit in all 8 bits.
inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t c) {
  const uint64_t bytes = (uint64_t{b} << 32) | a;
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t sel = (c >> (4 * i)) & 0xfu;
    uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (sel & 7u))) & 0xffu;
    if (sel & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
    d |= byte << (8 * i);
  }
  return d;
}

// lop3.b32: bit i of the result is bit (a_i * 4 + b_i * 2 + c_i) of the 8-bit table.
inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t d = 0;
  for (uint32_t k = 0; k < 8; ++k)
    if ((lut >> k) & 1u) d |= ((k & 4u) ? a : ~a) & ((k & 2u) ? b : ~b) & ((k & 1u) ? c : ~c);
  return d;
}

// brev: the bits in reverse order. clz/popc: counts, 0..width.
template <class T>
T brev(T a) {
  T r = 0;
  for (uint32_t i = 0; i < sizeof(T) * 8; ++i) r = T(r | (T((a >> i) & 1u) << (sizeof(T) * 8 - 1 - i)));
  return r;
}
template <class T>
uint32_t clz(T a) {
  return a == 0 ? uint32_t(sizeof(T) * 8) : uint32_t(sizeof(T) == 8 ? __builtin_clzll(a) : __builtin_clz(uint32_t(a)));
}
template <class T>
uint32_t popc(T a) {
  return uint32_t(__builtin_popcountll(uint64_t(a)));
}

// mul.hi: the high half of the double-width product.
template <class T>
T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return T((W(a) * W(b)) >> 64);
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return T((W(a) * W(b)) >> (sizeof(T) * 8));
  }
}

}  // namespace minicuda::inline_ptx
