// math_functions.h: the device math functions that C++'s <cmath> lacks - rsqrtf and the min/max
// overloads CUDA declares at global scope - as the toolkit's crt/math_functions.h.
// Part of the kernel language (minicuda::device_code).
#ifndef __MATH_FUNCTIONS_H__
#define __MATH_FUNCTIONS_H__

inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
// The device min/max overloads CUDA declares at global scope.
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }

#endif /* __MATH_FUNCTIONS_H__ */
