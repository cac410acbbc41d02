// crt/math_functions_cuda.h: the functions of the CUDA math API that the C library does not
// have, in single and double precision, as the toolkit's crt/math_functions.h declares them:
//   rsqrt, rcbrt           1/sqrt(x), 1/cbrt(x)
//   sinpi, cospi, sincospi sin(pi x), cos(pi x), exact at integers and half-integers
//   erfinv, erfcinv        inverses of erf and erfc
//   erfcx                  exp(x^2) erfc(x), without the overflow of the product
//   normcdf, normcdfinv    the standard normal distribution and its inverse
//   rhypot                 1/hypot(x, y)
//   norm3d, norm4d, norm   Euclidean lengths (norm: of an array), rnorm*: their reciprocals
//   cyl_bessel_i0, _i1     modified Bessel functions of the first kind, orders 0 and 1
// each with an f-suffixed float version. Callable from host and kernel code.
//
// Accuracy: the float versions are computed in double and rounded once, so they are within the
// CUDA bounds (mostly 2-4 ulp) and usually correctly rounded. The double versions are within a
// few ulp. Special values follow the CUDA documentation: rsqrt(+0) = +inf, sinpi(n) = +/-0 with
// the sign of n, cospi(n + 1/2) = +0, erfinv(+/-1) = +/-inf, erfcinv(0) = +inf, erfcinv(2) = -inf,
// norm*(...) = +inf when any component is infinite (even with a NaN).
#ifndef __MINICUDA_MATH_FUNCTIONS_CUDA_H__
#define __MINICUDA_MATH_FUNCTIONS_CUDA_H__

#include <cmath>
#include <limits>

namespace minicuda::gpu::math {

inline constexpr double kPi = 3.14159265358979323846;

// sin(pi x): the argument reduced exactly to [-2, 2] (fmod), then to a quarter period.
inline double sinpi(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  const double r = std::fmod(x, 2.0);
  const double a = std::fabs(r);
  double s;
  if (a <= 0.25) s = std::sin(kPi * a);
  else if (a <= 0.75) s = std::cos(kPi * (0.5 - a));  // each subtraction is exact (Sterbenz)
  else if (a <= 1.25) s = std::sin(kPi * (1.0 - a));
  else if (a <= 1.75) s = -std::cos(kPi * (a - 1.5));
  else s = -std::sin(kPi * (2.0 - a));
  if (s == 0.0) return std::copysign(0.0, x);
  return r < 0 ? -s : s;
}
inline double cospi(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();
  const double a = std::fabs(std::fmod(x, 2.0));
  double c;
  if (a <= 0.25) c = std::cos(kPi * a);
  else if (a <= 0.75) c = std::sin(kPi * (0.5 - a));
  else if (a <= 1.25) c = -std::cos(kPi * (1.0 - a));
  else if (a <= 1.75) c = std::sin(kPi * (a - 1.5));
  else c = std::cos(kPi * (2.0 - a));
  return c == 0.0 ? 0.0 : c;
}

// exp(x^2) erfc(x). Large positive x: the asymptotic series, since erfc underflows; elsewhere
// exp(x^2) with x^2 split into its rounded value and the rounding error, times erfc(x).
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < -26.7) return std::numeric_limits<double>::infinity();  // exp(x^2) overflows
  if (x > 25.0) {
    if (std::isinf(x)) return 0.0;
    const double t = 1.0 / (2.0 * x * x);
    double sum = 1.0, term = 1.0;
    for (int k = 1; k < 12; ++k) {
      term *= -(2.0 * k - 1.0) * t;
      sum += term;
    }
    return sum / (x * 1.77245385090551602730);
  }
  const double hi = x * x;
  const double lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1.0 + lo) * std::erfc(x);
}

// erfinv / erfcinv: a single-precision starting point (Giles' polynomial in w = -log((1-x)(1+x)),
// where (1-x)(1+x) = y(2-y) for erfcinv's y = 1-x; sqrt(w) in the far tail, beyond the
// polynomial's range), then Newton steps: on erf near 0, and in the tail on
// log(erfc(x)) = log(erfcx(x)) - x^2, which is nearly quadratic, so the steps converge from afar
// and nothing underflows.
inline double erfinv_start(double w) {
  if (w > 25.0) return std::sqrt(w);
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
  }
  return p;
}
inline constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
// x > 0 with erfc(x) = y, for 0 < y <= 1/2, from a start x.
inline double erfc_solve(double y, double x) {
  const double log_y = std::log(y);
  for (int i = 0; i < 10; ++i) {
    const double hi = x * x;
    const double lo = std::fma(x, x, -hi);
    const double e = erfcx(x);
    const double step = (std::log(e) - log_y - hi - lo) * e / kTwoOverSqrtPi;
    x += step;
    if (std::fabs(step) <= 1e-17 * x) break;
  }
  return x;
}
inline double erfinv(double y) {
  if (std::isnan(y)) return y;
  const double a = std::fabs(y);
  if (a > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (a == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  if (a == 0.0) return y;
  const double w = -std::log((1.0 - a) * (1.0 + a));
  double x;
  if (a < 0.5) {
    x = a * erfinv_start(w);
    for (int i = 0; i < 4; ++i) x -= (std::erf(x) - a) / (kTwoOverSqrtPi * std::exp(-x * x));
  } else {
    x = erfc_solve(1.0 - a, w > 25.0 ? erfinv_start(w) : a * erfinv_start(w));  // 1 - a: exact
  }
  return std::copysign(x, y);
}
inline double erfcinv(double y) {
  if (std::isnan(y)) return y;
  if (y < 0.0 || y > 2.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 0.0) return std::numeric_limits<double>::infinity();
  if (y == 2.0) return -std::numeric_limits<double>::infinity();
  if (y >= 0.5) return erfinv(1.0 - y);  // exact for y in [0.5, 2]
  const double w = -std::log(y * (2.0 - y));
  return erfc_solve(y, w > 25.0 ? erfinv_start(w) : (1.0 - y) * erfinv_start(w));
}

// Euclidean length of p[0..n), scaled by the largest magnitude so no square overflows.
inline double norm(int n, const double* p) {
  double m = 0.0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    if (std::isinf(p[i])) return std::numeric_limits<double>::infinity();
    if (std::isnan(p[i])) nan = true;
    else m = std::fmax(m, std::fabs(p[i]));
  }
  if (nan) return std::numeric_limits<double>::quiet_NaN();
  if (m == 0.0) return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += (p[i] / m) * (p[i] / m);
  return m * std::sqrt(sum);
}
inline double normf_in_double(int n, const float* p) {  // exact squares in double: no scaling needed
  double sum = 0.0;
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    if (std::isinf(p[i])) return std::numeric_limits<double>::infinity();
    if (std::isnan(p[i])) nan = true;
    else sum += static_cast<double>(p[i]) * p[i];
  }
  return nan ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(sum);
}

}  // namespace minicuda::gpu::math

// --- Double precision ----------------------------------------------------------------------------
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
inline double sinpi(double x) { return minicuda::gpu::math::sinpi(x); }
inline double cospi(double x) { return minicuda::gpu::math::cospi(x); }
inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
inline double erfinv(double x) { return minicuda::gpu::math::erfinv(x); }
inline double erfcinv(double x) { return minicuda::gpu::math::erfcinv(x); }
inline double erfcx(double x) { return minicuda::gpu::math::erfcx(x); }
inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
inline double normcdfinv(double p) { return -1.41421356237309504880 * erfcinv(2.0 * p); }
inline double rhypot(double x, double y) { return 1.0 / std::hypot(x, y); }
inline double norm(int dim, const double* p) { return minicuda::gpu::math::norm(dim, p); }
inline double rnorm(int dim, const double* p) { return 1.0 / norm(dim, p); }
inline double norm3d(double a, double b, double c) { const double p[3] = {a, b, c}; return norm(3, p); }
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
inline double norm4d(double a, double b, double c, double d) { const double p[4] = {a, b, c, d}; return norm(4, p); }
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
// I0 is even and I1 odd; the C++ library's cyl_bessel_i takes x >= 0.
inline double cyl_bessel_i0(double x) { return std::isnan(x) ? x : std::cyl_bessel_i(0.0, std::fabs(x)); }
inline double cyl_bessel_i1(double x) {
  return std::isnan(x) ? x : std::copysign(std::cyl_bessel_i(1.0, std::fabs(x)), x);
}

// --- Single precision (computed in double, rounded once) -----------------------------------------
inline float rsqrtf(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }
inline float rcbrtf(float x) { return static_cast<float>(rcbrt(x)); }
inline float sinpif(float x) { return static_cast<float>(sinpi(x)); }
inline float cospif(float x) { return static_cast<float>(cospi(x)); }
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
inline float erfinvf(float x) { return static_cast<float>(erfinv(x)); }
inline float erfcinvf(float x) { return static_cast<float>(erfcinv(x)); }
inline float erfcxf(float x) { return static_cast<float>(erfcx(x)); }
inline float normcdff(float x) { return static_cast<float>(normcdf(x)); }
inline float normcdfinvf(float p) { return static_cast<float>(normcdfinv(p)); }
inline float rhypotf(float x, float y) { return static_cast<float>(rhypot(x, y)); }
inline float normf(int dim, const float* p) { return static_cast<float>(minicuda::gpu::math::normf_in_double(dim, p)); }
inline float rnormf(int dim, const float* p) { return static_cast<float>(1.0 / minicuda::gpu::math::normf_in_double(dim, p)); }
inline float norm3df(float a, float b, float c) { const float p[3] = {a, b, c}; return normf(3, p); }
inline float rnorm3df(float a, float b, float c) { const float p[3] = {a, b, c}; return rnormf(3, p); }
inline float norm4df(float a, float b, float c, float d) { const float p[4] = {a, b, c, d}; return normf(4, p); }
inline float rnorm4df(float a, float b, float c, float d) { const float p[4] = {a, b, c, d}; return rnormf(4, p); }
inline float cyl_bessel_i0f(float x) { return static_cast<float>(cyl_bessel_i0(x)); }
inline float cyl_bessel_i1f(float x) { return static_cast<float>(cyl_bessel_i1(x)); }

#endif /* __MINICUDA_MATH_FUNCTIONS_CUDA_H__ */
