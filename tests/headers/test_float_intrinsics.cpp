// Bit reinterpretations and the fast single-precision intrinsics
// (crt/device_float_intrinsics.h): exact bit patterns, the special cases the CUDA documentation
// defines (__saturatef(NaN) = +0, __fdividef for 2^126 < |y| < 2^128), and the documented error
// bounds of the fast functions over a sweep of arguments.
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cmath>

#include <gtest/gtest.h>

namespace {
// Distance in units in the last place between two finite floats of the same sign.
long ulps(float a, float b) { return std::labs(static_cast<long>(__float_as_int(a)) - __float_as_int(b)); }
}  // namespace

TEST(FloatIntrinsics, BitReinterpretations) {
  EXPECT_EQ(__float_as_int(-0.0f), INT_MIN);
  EXPECT_EQ(__float_as_uint(1.0f), 0x3F800000u);
  EXPECT_EQ(__int_as_float(0x3F800000), 1.0f);
  EXPECT_EQ(__uint_as_float(0xFF800000u), -INFINITY);
  EXPECT_EQ(__double_as_longlong(1.0), 0x3FF0000000000000ll);
  EXPECT_EQ(__longlong_as_double(0x4000000000000000ll), 2.0);
  EXPECT_EQ(__double2hiint(1.0), 0x3FF00000);
  EXPECT_EQ(__double2loint(1.0), 0);
  const double d = __longlong_as_double(0x123456789ABCDEF0ll);
  EXPECT_EQ(__double2hiint(d), 0x12345678);
  EXPECT_EQ(__double2loint(d), static_cast<int>(0x9ABCDEF0u));
  EXPECT_EQ(__hiloint2double(0x3FF00000, 0), 1.0);
  EXPECT_EQ(__double_as_longlong(__hiloint2double(0x12345678, static_cast<int>(0x9ABCDEF0u))), 0x123456789ABCDEF0ll);
  EXPECT_TRUE(std::isnan(__hiloint2double(-1, -1)));
  static_assert(__float_as_int(2.0f) == 0x40000000);  // usable in constant expressions
}

TEST(FloatIntrinsics, SaturateClampsToZeroOne) {
  EXPECT_EQ(__saturatef(0.25f), 0.25f);
  EXPECT_EQ(__saturatef(2.0f), 1.0f);
  EXPECT_EQ(__saturatef(INFINITY), 1.0f);
  EXPECT_EQ(__saturatef(-3.0f), 0.0f);
  EXPECT_EQ(__float_as_uint(__saturatef(NAN)), 0u);  // NaN gives +0
  EXPECT_EQ(__float_as_uint(__saturatef(-NAN)), 0u);
}

TEST(FloatIntrinsics, FastDivide) {
  EXPECT_EQ(__fdividef(6.0f, 3.0f), 2.0f);
  EXPECT_EQ(__fdividef(1.0f, 0x1p127f), 0.0f);  // 2^126 < |y| < 2^128: 0
  EXPECT_EQ(__float_as_uint(__fdividef(-1.0f, 0x1p127f)), 0x80000000u);
  EXPECT_TRUE(std::isnan(__fdividef(INFINITY, 0x1p127f)));
  EXPECT_EQ(__fdividef(1.0f, 0x1p126f), 0x1p-126f);  // the range is open at 2^126
  EXPECT_EQ(__fdividef(1.0f, INFINITY), 0.0f);
}

TEST(FloatIntrinsics, FastFunctionsAtExactPoints) {
  EXPECT_EQ(__expf(0.0f), 1.0f);
  EXPECT_EQ(__exp10f(0.0f), 1.0f);
  EXPECT_EQ(__logf(1.0f), 0.0f);
  EXPECT_EQ(__log2f(8.0f), 3.0f);
  EXPECT_FLOAT_EQ(__log10f(1000.0f), 3.0f);
  EXPECT_EQ(__sinf(0.0f), 0.0f);
  EXPECT_EQ(__cosf(0.0f), 1.0f);
  EXPECT_EQ(__tanf(0.0f), 0.0f);
  EXPECT_EQ(__powf(2.0f, 10.0f), 1024.0f);
  float s = -1.0f, c = -1.0f;
  __sincosf(0.0f, &s, &c);
  EXPECT_EQ(s, 0.0f);
  EXPECT_EQ(c, 1.0f);
  EXPECT_EQ(__logf(0.0f), -INFINITY);
  EXPECT_EQ(__expf(-INFINITY), 0.0f);
}

// The CUDA Programming Guide's bounds: __expf within 2 + floor(|1.16 x|) ulp, __logf and __sinf
// within 2^-21.41 absolute on their small ranges, __log2f within 2^-22 absolute on [0.5, 2].
TEST(FloatIntrinsics, FastFunctionsWithinTheDocumentedBounds) {
  for (float x = -80.0f; x <= 80.0f; x += 0.37f)
    EXPECT_LE(ulps(__expf(x), static_cast<float>(std::exp(static_cast<double>(x)))), 2 + static_cast<long>(std::fabs(1.16f * x))) << x;
  for (float x = 0.5f; x <= 2.0f; x += 0.001f) {
    EXPECT_LE(std::fabs(__logf(x) - std::log(static_cast<double>(x))), std::exp2(-21.41)) << x;
    EXPECT_LE(std::fabs(__log2f(x) - std::log2(static_cast<double>(x))), 0x1p-22) << x;
  }
  for (float x = -3.14159f; x <= 3.14159f; x += 0.001f) {
    EXPECT_LE(std::fabs(__sinf(x) - std::sin(static_cast<double>(x))), std::exp2(-21.41)) << x;
    EXPECT_LE(std::fabs(__cosf(x) - std::cos(static_cast<double>(x))), std::exp2(-21.19)) << x;
  }
}
