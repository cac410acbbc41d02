// The integer intrinsics (crt/device_int_intrinsics.h) against the values the CUDA documentation
// and the PTX instructions define, edge cases first. They are pure functions, so the test calls
// them from host code; test_intrinsics_kernel.cu checks that a kernel sees the same results.
#include <cuda_runtime.h>

#include <climits>

#include <gtest/gtest.h>

TEST(IntIntrinsics, BitCounts) {
  EXPECT_EQ(__popc(0u), 0);
  EXPECT_EQ(__popc(0xFFFFFFFFu), 32);
  EXPECT_EQ(__popcll(0xF0F0F0F0F0F0F0F0ull), 32);
  EXPECT_EQ(__clz(0), 32);
  EXPECT_EQ(__clz(1), 31);
  EXPECT_EQ(__clz(-1), 0);
  EXPECT_EQ(__clzll(0), 64);
  EXPECT_EQ(__clzll(1), 63);
  EXPECT_EQ(__clzll(LLONG_MIN), 0);
  EXPECT_EQ(__ffs(0), 0);
  EXPECT_EQ(__ffs(1), 1);
  EXPECT_EQ(__ffs(INT_MIN), 32);
  EXPECT_EQ(__ffs(0x50), 5);
  EXPECT_EQ(__ffsll(0), 0);
  EXPECT_EQ(__ffsll(1ll << 40), 41);
  EXPECT_EQ(__ffsll(LLONG_MIN), 64);
}

TEST(IntIntrinsics, BitReversal) {
  EXPECT_EQ(__brev(1u), 0x80000000u);
  EXPECT_EQ(__brev(0x12345678u), 0x1E6A2C48u);
  EXPECT_EQ(__brev(0u), 0u);
  EXPECT_EQ(__brevll(1ull), 0x8000000000000000ull);
  EXPECT_EQ(__brevll(0x0123456789ABCDEFull), 0xF7B3D591E6A2C480ull);
}

TEST(IntIntrinsics, BytePermSelectors) {
  const unsigned x = 0x33221100u, y = 0x77665544u;  // byte i of y:x is 0x11 * i
  EXPECT_EQ(__byte_perm(x, y, 0x3210u), x);           // the identity
  EXPECT_EQ(__byte_perm(x, y, 0x7654u), y);
  EXPECT_EQ(__byte_perm(x, y, 0x0123u), 0x00112233u); // byte swap of x
  EXPECT_EQ(__byte_perm(x, y, 0x4444u), 0x44444444u); // broadcast of byte 4
  EXPECT_EQ(__byte_perm(x, y, 0x5140u), 0x55114400u);
  EXPECT_EQ(__byte_perm(x, y, 0xCDEFu), 0x44556677u); // only the low 3 bits of a selector count
  EXPECT_EQ(__byte_perm(x, y, 0xFFFF3210u), x);        // selector bits above 15 are ignored
}

TEST(IntIntrinsics, FunnelShifts) {
  const unsigned lo = 0x89ABCDEFu, hi = 0x01234567u;
  EXPECT_EQ(__funnelshift_l(lo, hi, 0), hi);
  EXPECT_EQ(__funnelshift_l(lo, hi, 8), 0x23456789u);
  EXPECT_EQ(__funnelshift_l(lo, hi, 40), 0x23456789u);  // wraps: shift & 31
  EXPECT_EQ(__funnelshift_l(lo, hi, 32), hi);
  EXPECT_EQ(__funnelshift_lc(lo, hi, 32), lo);  // clamps: the whole low word moved up
  EXPECT_EQ(__funnelshift_lc(lo, hi, 100), lo);
  EXPECT_EQ(__funnelshift_r(lo, hi, 8), 0x6789ABCDu);
  EXPECT_EQ(__funnelshift_r(lo, hi, 36), 0x789ABCDEu);  // 36 & 31 = 4
  EXPECT_EQ(__funnelshift_rc(lo, hi, 32), hi);
  EXPECT_EQ(__funnelshift_rc(lo, hi, 4000000000u), hi);
  EXPECT_EQ(__funnelshift_r(lo, hi, 0), lo);
}

TEST(IntIntrinsics, Multiplies) {
  EXPECT_EQ(__mul24(3, -4), -12);
  EXPECT_EQ(__mul24(0x01000003, 2), 6);       // bits above 23 are ignored
  EXPECT_EQ(__mul24(0x00800000, 1), -8388608);  // bit 23 is the sign
  EXPECT_EQ(__umul24(0xFF000002u, 3u), 6u);
  EXPECT_EQ(__umul24(0xFFFFFFu, 0xFFFFFFu), 0xFE000001u);  // low 32 bits of the 48-bit product
  EXPECT_EQ(__mulhi(INT_MIN, INT_MIN), 0x40000000);
  EXPECT_EQ(__mulhi(-1, 1), -1);
  EXPECT_EQ(__umulhi(0xFFFFFFFFu, 0xFFFFFFFFu), 0xFFFFFFFEu);
  EXPECT_EQ(__mul64hi(LLONG_MIN, 2), -1);
  EXPECT_EQ(__umul64hi(~0ull, ~0ull), ~0ull - 1);
  EXPECT_EQ(__umul64hi(1ull << 32, 1ull << 32), 1ull);
}

TEST(IntIntrinsics, SumsOfAbsoluteDifferences) {
  EXPECT_EQ(__sad(3, 10, 5u), 12u);
  EXPECT_EQ(__sad(-5, 5, 0u), 10u);
  EXPECT_EQ(__sad(INT_MIN, INT_MAX, 0u), 0xFFFFFFFFu);  // the difference taken without overflow
  EXPECT_EQ(__usad(1u, 0xFFFFFFFFu, 1u), 0xFFFFFFFFu);
  EXPECT_EQ(__usad(7u, 7u, 9u), 9u);
}

TEST(IntIntrinsics, PackedDotProducts) {
  // Signed bytes: (-1)(-1) + (2)(-128) + (3)(127) + (-128)(1) = 1 - 256 + 381 - 128 = -2.
  const int a = static_cast<int>(0x8003'02FFu), b = static_cast<int>(0x017F'80FFu);
  EXPECT_EQ(__dp4a(a, b, 0), -2);
  EXPECT_EQ(__dp4a(a, b, 10), 8);
  // Unsigned bytes of the same words: 255*255 + 2*128 + 3*127 + 128*1 = 65790.
  EXPECT_EQ(__dp4a(0x800302FFu, 0x017F80FFu, 0u), 65790u);
  EXPECT_EQ(__dp4a(0x01010101, 0x7F7F7F7F, INT_MAX), INT_MIN + 507);  // wraps modulo 2^32, as on the GPU
  // dp2a: the 16-bit halves of a times bytes 0-1 (lo) or 2-3 (hi) of b.
  const int h = static_cast<int>(0xFFFE'0003u);  // halves 3 (low) and -2 (high)
  const int bb = static_cast<int>(0x05FB'7F80u);  // bytes -128, 127, -5, 5
  EXPECT_EQ(__dp2a_lo(h, bb, 1), 1 + 3 * -128 + -2 * 127);
  EXPECT_EQ(__dp2a_hi(h, bb, 1), 1 + 3 * -5 + -2 * 5);
  EXPECT_EQ(__dp2a_lo(0xFFFE0003u, 0x05FB7F80u, 1u), 1u + 3u * 128u + 65534u * 127u);
  EXPECT_EQ(__dp2a_hi(0xFFFE0003u, 0x05FB7F80u, 1u), 1u + 3u * 251u + 65534u * 5u);
}

TEST(IntIntrinsics, HalvingAdds) {
  EXPECT_EQ(__hadd(INT_MAX, INT_MAX), INT_MAX);  // no overflow in the sum
  EXPECT_EQ(__hadd(-3, 0), -2);                   // an arithmetic shift: rounds down
  EXPECT_EQ(__rhadd(-3, 0), -1);
  EXPECT_EQ(__rhadd(1, 2), 2);
  EXPECT_EQ(__uhadd(0xFFFFFFFFu, 0xFFFFFFFFu), 0xFFFFFFFFu);
  EXPECT_EQ(__urhadd(0xFFFFFFFFu, 0u), 0x80000000u);
  EXPECT_EQ(__uhadd(1u, 2u), 1u);
}
