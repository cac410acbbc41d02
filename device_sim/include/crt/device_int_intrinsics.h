// crt/device_int_intrinsics.h: the integer intrinsics of CUDA C++ - bit counting and reversal
// (__popc, __clz, __ffs, __brev and their 64-bit forms), byte permutation and funnel shifts,
// 24-bit and high-half multiplies, sums of absolute differences, dot products of packed bytes,
// and halving adds - with the results the CUDA documentation defines, edge cases included
// (__clz(0) == 32, __ffs(0) == 0, funnel shifts by 32 or more). As the toolkit's
// crt/device_functions.h declares them. Included by device_functions.h; callable from host and
// kernel code.
#ifndef __MINICUDA_DEVICE_INT_INTRINSICS_H__
#define __MINICUDA_DEVICE_INT_INTRINSICS_H__

// --- Bit counting and reversal -------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
// Leading zeros from the most significant bit: 32 (64) for 0.
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
// Position (1-based) of the least significant set bit; 0 for 0.
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
// Bit i of the result is bit 31 - i (63 - i) of x.
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) | __brev(static_cast<unsigned int>(x >> 32));
}

// --- Byte permutation and funnel shifts ----------------------------------------------------------
// The eight bytes of y:x (x is bytes 0-3, y bytes 4-7); result byte i is the byte that nibble i
// of s selects (its low three bits; the fourth bit is ignored).
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned int sel = (s >> (4 * i)) & 7u;
    r |= static_cast<unsigned int>((bytes >> (8 * sel)) & 0xFFu) << (8 * i);
  }
  return r;
}
// hi:lo shifted left (the high word kept) or right (the low word kept). The _l/_r forms shift by
// shift & 31; the _lc/_rc forms clamp the shift to 32.
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>((v << (shift < 32u ? shift : 32u)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>(v >> (shift < 32u ? shift : 32u));
}

// --- Multiplies ----------------------------------------------------------------------------------
// The low 32 bits of the product of the low 24 bits of x and y (signed: sign-extended from bit 23).
inline int __mul24(int x, int y) {
  const long long a = static_cast<long long>(static_cast<int>(static_cast<unsigned int>(x) << 8) >> 8);
  const long long b = static_cast<long long>(static_cast<int>(static_cast<unsigned int>(y) << 8) >> 8);
  return static_cast<int>(static_cast<unsigned int>(static_cast<unsigned long long>(a * b)));
}
inline unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xFFFFFFu) * (y & 0xFFFFFFu); }
// The high half of the full product.
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<long long>(x) * y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) { return static_cast<long long>((static_cast<__int128>(x) * y) >> 64); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}

// --- Sums of absolute differences, packed dot products, halving adds -----------------------------
// |x - y| + z, the difference taken exactly (as 64-bit), the sum modulo 2^32.
inline unsigned int __sad(int x, int y, unsigned int z) {
  const long long d = static_cast<long long>(x) - y;
  return static_cast<unsigned int>(d < 0 ? -d : d) + z;
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return (x > y ? x - y : y - x) + z; }
// Four-way byte dot product plus c: bytes signed for int, unsigned for unsigned int.
// The sums wrap modulo 2^32, as the GPU's do (computed unsigned: no signed overflow in C++).
inline int __dp4a(int srcA, int srcB, int c) {
  unsigned int sum = static_cast<unsigned int>(c);
  for (int i = 0; i < 4; ++i)
    sum += static_cast<unsigned int>(static_cast<signed char>(srcA >> (8 * i)) * static_cast<signed char>(srcB >> (8 * i)));
  return static_cast<int>(sum);
}
inline unsigned int __dp4a(unsigned int srcA, unsigned int srcB, unsigned int c) {
  unsigned int sum = c;
  for (int i = 0; i < 4; ++i) sum += ((srcA >> (8 * i)) & 0xFFu) * ((srcB >> (8 * i)) & 0xFFu);
  return sum;
}
// Two-way dot product of srcA's two 16-bit halves with two bytes of srcB (bytes 0-1 for _lo,
// bytes 2-3 for _hi), plus c.
inline int __dp2a_lo(int srcA, int srcB, int c) {
  return static_cast<int>(static_cast<unsigned int>(c) +
                          static_cast<unsigned int>(static_cast<short>(srcA) * static_cast<signed char>(srcB)) +
                          static_cast<unsigned int>(static_cast<short>(srcA >> 16) * static_cast<signed char>(srcB >> 8)));
}
inline int __dp2a_hi(int srcA, int srcB, int c) {
  return static_cast<int>(static_cast<unsigned int>(c) +
                          static_cast<unsigned int>(static_cast<short>(srcA) * static_cast<signed char>(srcB >> 16)) +
                          static_cast<unsigned int>(static_cast<short>(srcA >> 16) * static_cast<signed char>(srcB >> 24)));
}
inline unsigned int __dp2a_lo(unsigned int srcA, unsigned int srcB, unsigned int c) {
  return c + (srcA & 0xFFFFu) * (srcB & 0xFFu) + (srcA >> 16) * ((srcB >> 8) & 0xFFu);
}
inline unsigned int __dp2a_hi(unsigned int srcA, unsigned int srcB, unsigned int c) {
  return c + (srcA & 0xFFFFu) * ((srcB >> 16) & 0xFFu) + (srcA >> 16) * (srcB >> 24);
}
// (x + y) >> 1 and (x + y + 1) >> 1 without overflow of the intermediate sum.
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

#endif /* __MINICUDA_DEVICE_INT_INTRINSICS_H__ */
