// The directed-rounding intrinsics and conversions (crt/device_rounding_intrinsics.h): each
// result is the one IEEE 754 defines for the mode, checked bit for bit on values whose rounding
// is known (1/3, sqrt(2), integers just past 2^24 and 2^53, overflow, underflow, x - x), and the
// saturating float-to-integer conversions with the PTX ISA's NaN results.
#include <cuda_runtime.h>

#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>

#include <gtest/gtest.h>

namespace {
unsigned bits(float f) { return __float_as_uint(f); }
unsigned long long bits(double d) { return static_cast<unsigned long long>(__double_as_longlong(d)); }
}  // namespace

TEST(RoundingIntrinsics, OneThirdInEveryMode) {
  EXPECT_EQ(bits(__fdiv_rn(1.0f, 3.0f)), 0x3EAAAAABu);
  EXPECT_EQ(bits(__fdiv_rz(1.0f, 3.0f)), 0x3EAAAAAAu);
  EXPECT_EQ(bits(__fdiv_ru(1.0f, 3.0f)), 0x3EAAAAABu);
  EXPECT_EQ(bits(__fdiv_rd(1.0f, 3.0f)), 0x3EAAAAAAu);
  EXPECT_EQ(bits(__fdiv_rd(-1.0f, 3.0f)), 0xBEAAAAABu);  // toward -inf: the larger magnitude
  EXPECT_EQ(bits(__fdiv_rz(-1.0f, 3.0f)), 0xBEAAAAAAu);
  EXPECT_EQ(bits(__frcp_ru(3.0f)), 0x3EAAAAABu);
  EXPECT_EQ(bits(__frcp_rd(3.0f)), 0x3EAAAAAAu);
  EXPECT_EQ(bits(__ddiv_rn(1.0, 3.0)), 0x3FD5555555555555ull);
  EXPECT_EQ(bits(__ddiv_ru(1.0, 3.0)), 0x3FD5555555555556ull);
  EXPECT_EQ(bits(__ddiv_rd(1.0, 3.0)), 0x3FD5555555555555ull);
  EXPECT_EQ(bits(__ddiv_rz(-1.0, 3.0)), 0xBFD5555555555555ull);
  EXPECT_EQ(bits(__drcp_ru(3.0)), 0x3FD5555555555556ull);
  EXPECT_EQ(bits(__drcp_rz(3.0)), 0x3FD5555555555555ull);
}

TEST(RoundingIntrinsics, AddSubMulRoundOneUlpApart) {
  const float tiny = 0x1p-30f;
  EXPECT_EQ(__fadd_rn(1.0f, tiny), 1.0f);
  EXPECT_EQ(__fadd_rz(1.0f, tiny), 1.0f);
  EXPECT_EQ(__fadd_rd(1.0f, tiny), 1.0f);
  EXPECT_EQ(bits(__fadd_ru(1.0f, tiny)), 0x3F800001u);
  EXPECT_EQ(bits(__fsub_rd(-1.0f, tiny)), 0xBF800001u);
  EXPECT_EQ(__fsub_rz(-1.0f, tiny), -1.0f);
  EXPECT_EQ(__dadd_ru(1.0, 0x1p-60), 1.0 + 0x1p-52);
  EXPECT_EQ(__dadd_rd(1.0, 0x1p-60), 1.0);
  EXPECT_EQ(__dsub_ru(1.0, 0x1p-60), 1.0);
  EXPECT_EQ(__dsub_rd(1.0, 0x1p-60), 1.0 - 0x1p-53);
  // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: the last term decides.
  const float a = 1.0f + 0x1p-23f;
  EXPECT_EQ(bits(__fmul_rn(a, a)), 0x3F800002u);
  EXPECT_EQ(bits(__fmul_ru(a, a)), 0x3F800003u);
  EXPECT_EQ(bits(__fmul_rd(a, a)), 0x3F800002u);
  const double b = 1.0 + 0x1p-52;
  EXPECT_EQ(__dmul_ru(b, b), 1.0 + 0x1p-51 + 0x1p-52);
  EXPECT_EQ(__dmul_rz(b, b), 1.0 + 0x1p-51);
}

TEST(RoundingIntrinsics, FusedMultiplyAddRoundsOnce) {
  const float a = 1.0f + 0x1p-23f;
  // a * a - 1 = 2^-22 + 2^-46, half an ulp above 2^-22: the tie goes to the even 2^-22.
  EXPECT_EQ(__fmaf_rn(a, a, -1.0f), 0x1p-22f);
  EXPECT_EQ(__fmaf_ru(a, a, -1.0f), 0x1p-22f + 0x1p-45f);
  EXPECT_EQ(bits(__fmaf_ru(a, a, 0.0f)), 0x3F800003u);
  EXPECT_EQ(bits(__fmaf_rz(a, a, 0.0f)), 0x3F800002u);
  EXPECT_EQ(bits(__fmaf_rd(-a, a, 0.0f)), 0xBF800003u);
  const double b = 1.0 + 0x1p-52;
  EXPECT_EQ(__fma_rn(b, b, -1.0), 0x1p-51);  // 2^-51 + 2^-104: a tie, to even
  EXPECT_EQ(__fma_ru(b, b, -1.0), 0x1p-51 + 0x1p-103);
  EXPECT_EQ(__fma_ru(b, b, 0.0), 1.0 + 0x1p-51 + 0x1p-52);
  EXPECT_EQ(__fma_rd(b, b, 0.0), 1.0 + 0x1p-51);
}

TEST(RoundingIntrinsics, SquareRoots) {
  EXPECT_EQ(bits(__fsqrt_rn(2.0f)), 0x3FB504F3u);
  EXPECT_EQ(bits(__fsqrt_rd(2.0f)), 0x3FB504F3u);
  EXPECT_EQ(bits(__fsqrt_rz(2.0f)), 0x3FB504F3u);
  EXPECT_EQ(bits(__fsqrt_ru(2.0f)), 0x3FB504F4u);
  EXPECT_EQ(__fsqrt_ru(4.0f), 2.0f);  // exact results are the same in every mode
  EXPECT_EQ(bits(__dsqrt_rn(2.0)), 0x3FF6A09E667F3BCDull);  // above sqrt(2)
  EXPECT_EQ(bits(__dsqrt_ru(2.0)), 0x3FF6A09E667F3BCDull);
  EXPECT_EQ(bits(__dsqrt_rd(2.0)), 0x3FF6A09E667F3BCCull);
  EXPECT_TRUE(std::isnan(__fsqrt_rn(-1.0f)));
  EXPECT_EQ(bits(__fsqrt_rd(-0.0f)), 0x80000000u);
  EXPECT_EQ(__frsqrt_rn(4.0f), 0.5f);
}

TEST(RoundingIntrinsics, OverflowUnderflowSignedZeroAndNaN) {
  EXPECT_EQ(__fmul_rn(FLT_MAX, 2.0f), INFINITY);
  EXPECT_EQ(__fmul_ru(FLT_MAX, 2.0f), INFINITY);
  EXPECT_EQ(__fmul_rz(FLT_MAX, 2.0f), FLT_MAX);
  EXPECT_EQ(__fmul_rd(FLT_MAX, 2.0f), FLT_MAX);
  EXPECT_EQ(__fmul_rd(-FLT_MAX, 2.0f), -INFINITY);
  EXPECT_EQ(__fmul_ru(-FLT_MAX, 2.0f), -FLT_MAX);
  EXPECT_EQ(__dadd_rz(DBL_MAX, DBL_MAX), DBL_MAX);
  EXPECT_EQ(__dadd_ru(DBL_MAX, DBL_MAX), INFINITY);
  EXPECT_EQ(bits(__fmul_rd(FLT_TRUE_MIN, 0.5f)), 0u);  // subnormal results are kept, not flushed
  EXPECT_EQ(bits(__fmul_ru(FLT_TRUE_MIN, 0.5f)), 1u);
  EXPECT_EQ(bits(__fmul_rn(FLT_TRUE_MIN, 1.5f)), 2u);  // 1.5 ulp: the tie goes to even
  EXPECT_EQ(bits(__fadd_rn(1.0f, -1.0f)), 0u);
  EXPECT_EQ(bits(__fadd_rd(1.0f, -1.0f)), 0x80000000u);  // x - x is -0 toward -inf only
  EXPECT_EQ(bits(__dsub_rd(2.0, 2.0)), 0x8000000000000000ull);
  EXPECT_EQ(bits(__dsub_ru(2.0, 2.0)), 0ull);
  EXPECT_TRUE(std::isnan(__fadd_rd(NAN, 1.0f)));
  EXPECT_TRUE(std::isnan(__fmul_rz(0.0f, INFINITY)));
  EXPECT_TRUE(std::isnan(__dsub_ru(INFINITY, INFINITY)));
  EXPECT_EQ(__fdiv_rz(1.0f, 0.0f), INFINITY);
}

TEST(RoundingIntrinsics, TheHostThreadsModeIsRestored) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  (void)__fadd_ru(1.0f, 0x1p-30f);
  (void)__dsqrt_rd(2.0);
  (void)__ull2float_rz(~0ull);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  std::fesetround(FE_UPWARD);  // a caller's own mode survives too, and _rn ignores it
  EXPECT_EQ(bits(__fdiv_rn(1.0f, 3.0f)), 0x3EAAAAABu);
  EXPECT_EQ(bits(__fdiv_rd(1.0f, 3.0f)), 0x3EAAAAAAu);
  EXPECT_EQ(__float2int_rn(2.5f), 2);
  EXPECT_EQ(std::fegetround(), FE_UPWARD);
  std::fesetround(FE_TONEAREST);
}

TEST(RoundingIntrinsics, IntegerToFloatingPoint) {
  EXPECT_EQ(__int2float_rn(16777217), 16777216.0f);  // the tie goes to the even 2^24
  EXPECT_EQ(__int2float_ru(16777217), 16777218.0f);
  EXPECT_EQ(__int2float_rd(16777217), 16777216.0f);
  EXPECT_EQ(__int2float_rz(-16777217), -16777216.0f);
  EXPECT_EQ(__int2float_rd(-16777217), -16777218.0f);
  EXPECT_EQ(__int2float_rn(16777219), 16777220.0f);
  EXPECT_EQ(__uint2float_ru(0xFFFFFFFFu), 4294967296.0f);
  EXPECT_EQ(bits(__uint2float_rd(0xFFFFFFFFu)), 0x4F7FFFFFu);
  EXPECT_EQ(__ll2float_rn((1ll << 24) + 1), 16777216.0f);
  EXPECT_EQ(__ull2float_ru(~0ull), 0x1p64f);
  EXPECT_EQ(bits(__ull2float_rd(~0ull)), 0x5F7FFFFFu);
  EXPECT_EQ(bits(__ull2float_rz(~0ull)), 0x5F7FFFFFu);
  EXPECT_EQ(__ll2double_ru((1ll << 53) + 1), 0x1p53 + 2.0);
  EXPECT_EQ(__ll2double_rd((1ll << 53) + 1), 0x1p53);
  EXPECT_EQ(__ll2double_rd(-(1ll << 53) - 1), -0x1p53 - 2.0);
  EXPECT_EQ(__ull2double_rn((1ull << 63) + 1025), 0x1p63 + 2048.0);  // above the tie at 1024
  EXPECT_EQ(__int2double_rn(INT_MIN), -2147483648.0);
  EXPECT_EQ(__uint2double_rn(0xFFFFFFFFu), 4294967295.0);
}

TEST(RoundingIntrinsics, DoubleToFloat) {
  EXPECT_EQ(bits(__double2float_rn(0.1)), 0x3DCCCCCDu);
  EXPECT_EQ(bits(__double2float_ru(0.1)), 0x3DCCCCCDu);
  EXPECT_EQ(bits(__double2float_rd(0.1)), 0x3DCCCCCCu);
  EXPECT_EQ(bits(__double2float_rz(-0.1)), 0xBDCCCCCCu);
  EXPECT_EQ(__double2float_rn(1e300), INFINITY);
  EXPECT_EQ(__double2float_rz(1e300), FLT_MAX);
  EXPECT_EQ(__double2float_rd(-1e300), -INFINITY);
  EXPECT_EQ(bits(__double2float_ru(1e-300)), 1u);  // the smallest subnormal, not 0
  EXPECT_EQ(bits(__double2float_rd(1e-300)), 0u);
}

TEST(RoundingIntrinsics, FloatToIntegerRoundsThenSaturates) {
  EXPECT_EQ(__float2int_rn(2.5f), 2);
  EXPECT_EQ(__float2int_rn(3.5f), 4);
  EXPECT_EQ(__float2int_rn(-2.5f), -2);
  EXPECT_EQ(__float2int_rz(-2.7f), -2);
  EXPECT_EQ(__float2int_ru(2.1f), 3);
  EXPECT_EQ(__float2int_rd(-2.1f), -3);
  EXPECT_EQ(__float2int_rn(1e10f), INT_MAX);
  EXPECT_EQ(__float2int_rn(-1e10f), INT_MIN);
  EXPECT_EQ(__float2int_rz(INFINITY), INT_MAX);
  EXPECT_EQ(__float2int_rz(-INFINITY), INT_MIN);
  EXPECT_EQ(__float2uint_rn(-1.0f), 0u);
  EXPECT_EQ(__float2uint_rn(-0.4f), 0u);
  EXPECT_EQ(__float2uint_ru(4294967040.0f), 4294967040u);
  EXPECT_EQ(__float2uint_rn(5e9f), UINT_MAX);
  EXPECT_EQ(__float2ll_rd(-1e30f), LLONG_MIN);
  EXPECT_EQ(__float2ll_ru(1e30f), LLONG_MAX);
  EXPECT_EQ(__float2ll_rn(-3.5f), -4ll);
  EXPECT_EQ(__float2ull_rz(-5.0f), 0ull);
  EXPECT_EQ(__float2ull_rn(0x1p63f), 1ull << 63);
  EXPECT_EQ(__double2int_rd(-0.5), -1);
  EXPECT_EQ(__double2int_ru(-0.5), 0);
  EXPECT_EQ(__double2int_rn(2147483647.4), INT_MAX);
  EXPECT_EQ(__double2int_rn(2147483648.0), INT_MAX);
  EXPECT_EQ(__double2uint_ru(4294967295.5), UINT_MAX);
  EXPECT_EQ(__double2ll_rn(2251799813685249.5), 2251799813685250ll);  // 2^51 + 1.5: tie to even
  EXPECT_EQ(__double2ll_rn(2251799813685250.5), 2251799813685250ll);
  EXPECT_EQ(__double2ull_rd(1e20), ULLONG_MAX);
}

// NaN: 0 from a float into 32 bits; 1 << (bits - 1) from a double, or into 64 bits (PTX ISA).
TEST(RoundingIntrinsics, FloatToIntegerNaNResults) {
  EXPECT_EQ(__float2int_rn(NAN), 0);
  EXPECT_EQ(__float2uint_rz(NAN), 0u);
  EXPECT_EQ(__float2ll_rn(NAN), LLONG_MIN);
  EXPECT_EQ(__float2ull_ru(NAN), 1ull << 63);
  EXPECT_EQ(__double2int_rn(NAN), INT_MIN);
  EXPECT_EQ(__double2uint_rd(NAN), 0x80000000u);
  EXPECT_EQ(__double2ll_rz(NAN), LLONG_MIN);
  EXPECT_EQ(__double2ull_rn(NAN), 1ull << 63);
}
