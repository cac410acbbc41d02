// device_atomic_functions.h: the atomic functions on integers (atomicAdd ... atomicCAS,
// atomicInc, atomicDec) and float atomicExch, as the toolkit's device_atomic_functions.h, plus
// float atomicMin/atomicMax. Global and shared memory are both host memory here, so each is a
// host atomic; the float ones are a compare-and-swap loop over the bits, as the hardware's float
// atomics behave. Part of the kernel language
// (minicuda::device_code); the functions are only valid inside a kernel.
#ifndef __DEVICE_ATOMIC_FUNCTIONS_H__
#define __DEVICE_ATOMIC_FUNCTIONS_H__

#include <cstdint>
#include <cstring>
#include <type_traits>

#define MINICUDA_ATOMIC_INT_TYPES(X) X(int) X(unsigned int) X(unsigned long long int) X(long long int)
#define MINICUDA_DEFINE_ATOMICS(T)                                                                    \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }             \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }                 \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicCAS(T* a, T expected, T desired) {                                                  \
    __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);   \
    return expected;                                                                                 \
  }                                                                                                  \
  inline T atomicMin(T* a, T v) {                                                                    \
    T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                                    \
    while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
    }                                                                                                \
    return old;                                                                                      \
  }                                                                                                  \
  inline T atomicMax(T* a, T v) {                                                                    \
    T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                                    \
    while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
    }                                                                                                \
    return old;                                                                                      \
  }
MINICUDA_ATOMIC_INT_TYPES(MINICUDA_DEFINE_ATOMICS)
#undef MINICUDA_DEFINE_ATOMICS
#undef MINICUDA_ATOMIC_INT_TYPES

inline unsigned short atomicCAS(unsigned short* a, unsigned short expected, unsigned short desired) {
  __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}
// ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1), atomically.
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0u : old + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, (old == 0 || old > limit) ? limit : old - 1, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
namespace minicuda::gpu::isa {
template <class F, class Op>
F atomic_float(F* a, Op op) {  // a CAS loop over the bits, as the hardware's float atomics behave
  using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  Bits* word = reinterpret_cast<Bits*>(a);
  Bits old = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    F before;
    std::memcpy(&before, &old, sizeof(F));
    F after = op(before);
    Bits next;
    std::memcpy(&next, &after, sizeof(F));
    if (__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return before;
  }
}
}  // namespace minicuda::gpu::isa
inline float atomicExch(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float) { return v; });
}
inline float atomicMin(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float x) { return v < x ? v : x; });
}
inline float atomicMax(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float x) { return v > x ? v : x; });
}

#endif /* __DEVICE_ATOMIC_FUNCTIONS_H__ */
