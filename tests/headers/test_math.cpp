// The math a CUDA program finds after #include <cuda_runtime.h> (math_functions.h): the C
// library's functions in the global namespace for host code, the global min/max overloads
// (mixed signed/unsigned pairs compare as unsigned, as the toolkit's do), and the CUDA-only
// functions (crt/math_functions_cuda.h) with their special values and accuracy.
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <type_traits>

#include <gtest/gtest.h>

TEST(HostMath, TheCLibraryIsInTheGlobalNamespace) {
  EXPECT_EQ(::sqrtf(4.0f), 2.0f);
  EXPECT_EQ(::powf(2.0f, 3.0f), 8.0f);
  EXPECT_EQ(::expf(0.0f), 1.0f);
  EXPECT_EQ(::fabs(-1.5), 1.5);
  EXPECT_EQ(::fabsf(-1.5f), 1.5f);
  EXPECT_EQ(::fmaf(2.0f, 3.0f, 1.0f), 7.0f);
  EXPECT_FLOAT_EQ(::exp10f(2.0f), 100.0f);
  float s = 1.0f, c = 0.0f;
  ::sincosf(0.0f, &s, &c);
  EXPECT_EQ(s, 0.0f);
  EXPECT_EQ(c, 1.0f);
  static_assert(std::is_same_v<decltype(sqrt(2.0f)), float>);  // the C++ float overloads too
  static_assert(std::is_same_v<decltype(fabs(2.0f)), float>);
}

TEST(HostMath, MinMaxOverloads) {
  EXPECT_EQ(min(3, -4), -4);
  EXPECT_EQ(max(3u, 4u), 4u);
  static_assert(std::is_same_v<decltype(min(-1, 1u)), unsigned int>);
  EXPECT_EQ(min(-1, 1u), 1u);  // -1 converts to 0xFFFFFFFF first, as in the toolkit
  EXPECT_EQ(max(-1, 1u), 0xFFFFFFFFu);
  EXPECT_EQ(min(-5l, 3l), -5l);
  EXPECT_EQ(max(2ll, -7ll), 2ll);
  EXPECT_EQ(min(1ull, -1ll), 1ull);
  static_assert(std::is_same_v<decltype(max(1.0f, 2.0)), double>);
  EXPECT_EQ(max(1.0f, 2.0), 2.0);
  EXPECT_EQ(min(NAN, 1.0f), 1.0f);  // fmin: a NaN operand yields the other
  EXPECT_EQ(umin(3u, 2u), 2u);
  EXPECT_EQ(umax(3u, 2u), 3u);
  EXPECT_EQ(llmin(-3ll, 2ll), -3ll);
  EXPECT_EQ(llmax(-3ll, 2ll), 2ll);
  EXPECT_EQ(ullmin(3ull, 2ull), 2ull);
  EXPECT_EQ(ullmax(3ull, 2ull), 3ull);
}

TEST(CudaMath, ReciprocalRoots) {
  EXPECT_EQ(rsqrtf(4.0f), 0.5f);
  EXPECT_EQ(rsqrtf(0.0f), INFINITY);
  EXPECT_EQ(rsqrtf(-0.0f), -INFINITY);
  EXPECT_EQ(rsqrtf(INFINITY), 0.0f);
  EXPECT_TRUE(std::isnan(rsqrtf(-1.0f)));
  EXPECT_EQ(rsqrt(0.25), 2.0);
  EXPECT_EQ(rcbrtf(8.0f), 0.5f);
  EXPECT_DOUBLE_EQ(rcbrt(-27.0), -1.0 / 3.0);  // within 4 ulp: the C library cbrt is not exact
  EXPECT_EQ(rhypotf(3.0f, 4.0f), 0.2f);
  EXPECT_EQ(rhypot(0.0, 0.0), INFINITY);
}

TEST(CudaMath, SinPiCosPiAreExactAtIntegersAndHalves) {
  EXPECT_EQ(sinpif(0.5f), 1.0f);
  EXPECT_EQ(sinpif(1.5f), -1.0f);
  EXPECT_EQ(cospif(1.0f), -1.0f);
  EXPECT_DOUBLE_EQ(sinpi(0.25), std::sqrt(0.5));
  EXPECT_EQ(std::signbit(sinpif(3.0f)), false);  // +0 for a positive integer
  EXPECT_EQ(std::signbit(sinpif(-3.0f)), true);  // -0 for a negative one
  EXPECT_EQ(std::signbit(sinpi(-0.0)), true);
  EXPECT_EQ(cospif(0.5f), 0.0f);
  EXPECT_EQ(std::signbit(cospif(-2.5f)), false);  // +0 at every half-integer
  EXPECT_EQ(sinpi(1e300), 0.0);                    // huge arguments are even integers
  EXPECT_EQ(cospi(1e300), 1.0);
  EXPECT_TRUE(std::isnan(sinpif(INFINITY)));
  EXPECT_TRUE(std::isnan(cospi(-INFINITY)));
  float s = 0.0f, c = 0.0f;
  sincospif(2.5f, &s, &c);
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(c, 0.0f);
  double sd = 0.0, cd = 0.0;
  sincospi(-1.0, &sd, &cd);
  EXPECT_EQ(cd, -1.0);
  for (double x = -4.0; x <= 4.0; x += 0.01) {
    EXPECT_NEAR(sinpi(x), std::sin(M_PI * x), 1e-14) << x;
    EXPECT_NEAR(cospi(x), std::cos(M_PI * x), 1e-14) << x;
  }
}

TEST(CudaMath, ErrorFunctionInverses) {
  EXPECT_EQ(erfinvf(0.0f), 0.0f);
  EXPECT_EQ(erfinvf(1.0f), INFINITY);
  EXPECT_EQ(erfinv(-1.0), -INFINITY);
  EXPECT_TRUE(std::isnan(erfinv(1.5)));
  EXPECT_EQ(erfcinvf(0.0f), INFINITY);
  EXPECT_EQ(erfcinv(2.0), -INFINITY);
  EXPECT_EQ(erfcinv(1.0), 0.0);
  EXPECT_TRUE(std::isnan(erfcinv(-0.5)));
  // Round trips: erf(erfinv(y)) = y and erfc(erfcinv(y)) = y to within rounding, also where y is
  // within a few ulp of 1 or far in the tail.
  for (double y : {1e-300, 1e-10, 0.001, 0.3, 0.5, 0.7, 0.999, 1.0 - 1e-15}) {
    EXPECT_NEAR(std::erf(erfinv(y)), y, 4e-16 * y + 1e-300) << y;
    EXPECT_NEAR(std::erf(erfinv(-y)), -y, 4e-16 * y + 1e-300) << y;
  }
  // erfc's relative condition number is about 2x^2, so the tolerance grows with x.
  for (double y : {1e-300, 1e-100, 1e-20, 1e-5, 0.25, 0.75, 1.5, 1.9999}) {
    const double x = erfcinv(y);
    EXPECT_NEAR(std::erfc(x), y, 4e-16 * (1.0 + 2.0 * x * x) * y) << y;
  }
  EXPECT_NEAR(erfinvf(0.5f), 0.4769362762f, 1e-7f);
}

TEST(CudaMath, ScaledComplementaryErrorFunction) {
  EXPECT_EQ(erfcx(0.0), 1.0);
  EXPECT_EQ(erfcx(INFINITY), 0.0);
  EXPECT_EQ(erfcxf(-INFINITY), INFINITY);
  EXPECT_NEAR(erfcx(1.0), 0.42758357615580700442, 1e-15);
  EXPECT_NEAR(erfcx(10.0), 0.05614099274382258586, 1e-17);
  EXPECT_NEAR(erfcx(30.0) * 30.0 * std::sqrt(M_PI), 1.0 - 1.0 / 1800.0, 2e-6);  // no underflow
  EXPECT_NEAR(erfcx(1e10) * 1e10 * std::sqrt(M_PI), 1.0, 1e-15);
  EXPECT_NEAR(erfcxf(-2.0f), 108.9409043f, 1e-4f);
}

TEST(CudaMath, NormalDistribution) {
  EXPECT_EQ(normcdf(0.0), 0.5);
  EXPECT_EQ(normcdff(INFINITY), 1.0f);
  EXPECT_EQ(normcdf(-INFINITY), 0.0);
  EXPECT_NEAR(normcdf(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(normcdf(-10.0), 7.619853024160527e-24, 1e-36);
  EXPECT_EQ(normcdfinv(0.5), 0.0);
  EXPECT_EQ(normcdfinvf(0.0f), -INFINITY);
  EXPECT_EQ(normcdfinv(1.0), INFINITY);
  EXPECT_NEAR(normcdfinv(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normcdfinvf(0.025f), -1.959964f, 1e-5f);
}

TEST(CudaMath, Norms) {
  EXPECT_EQ(norm3df(2.0f, 3.0f, 6.0f), 7.0f);
  EXPECT_EQ(norm4d(1.0, 1.0, 1.0, 1.0), 2.0);
  EXPECT_EQ(rnorm3d(0.0, 3.0, 4.0), 0.2);
  EXPECT_EQ(rnorm4df(2.0f, 2.0f, 2.0f, 2.0f), 0.25f);
  EXPECT_EQ(norm3d(1e300, 1e300, 1e300), std::sqrt(3.0) * 1e300);  // no overflow in the squares
  EXPECT_EQ(norm3d(1e-300, 0.0, 0.0), 1e-300);                     // no underflow either
  EXPECT_EQ(norm3d(NAN, INFINITY, 1.0), INFINITY);                 // infinity wins over NaN
  EXPECT_TRUE(std::isnan(norm4df(NAN, 1.0f, 1.0f, 1.0f)));
  const double v[5] = {1, 2, 4, 2, 0};
  EXPECT_EQ(norm(5, v), 5.0);
  EXPECT_EQ(rnorm(5, v), 0.2);
  const float w[2] = {3 * 0x1p100f, 4 * 0x1p100f};
  EXPECT_EQ(normf(2, w), 5 * 0x1p100f);
  EXPECT_EQ(rnormf(2, w), 0.2f * 0x1p-100f);
  EXPECT_EQ(norm(0, v), 0.0);
}

TEST(CudaMath, ModifiedBesselFunctions) {
  EXPECT_EQ(cyl_bessel_i0(0.0), 1.0);
  EXPECT_EQ(cyl_bessel_i1f(0.0f), 0.0f);
  EXPECT_NEAR(cyl_bessel_i0(1.0), 1.2660658777520082, 1e-15);
  EXPECT_NEAR(cyl_bessel_i1(1.0), 0.5651591039924851, 1e-15);
  EXPECT_NEAR(cyl_bessel_i1(-1.0), -0.5651591039924851, 1e-15);  // odd
  EXPECT_NEAR(cyl_bessel_i0f(-2.0f), 2.2795853f, 1e-6f);            // even
}
