// sm_32_intrinsics.h: the loads and stores with a cache hint, as the toolkit's
// sm_32_intrinsics.h: __ldg (through the read-only data cache), __ldcg (L2 only), __ldca (all
// levels), __ldcs (streaming), __ldlu (last use), __ldcv (volatile: fetch again), and __stwb
// (write-back), __stcg (L2 only), __stcs (streaming), __stwt (write-through). The toolkit
// overloads each for the scalar and vector types and cuda_fp16.hpp / cuda_bf16.hpp add the narrow
// ones; here each is a template over any trivially copyable type of those sizes.
//
// The simulated GPU has one memory and no caches, so the hint changes nothing about the value.
// What it does keep is the compiler-visible contract: the loads that bypass L1 (__ldcg, __ldcs,
// __ldlu, __ldcv) read memory again at every call, so a loop that polls a flag another block
// writes sees the write, as on the GPU; __stwt and __stcg are not delayed past the next access.
// Part of the kernel language (minicuda::device_code); the functions are only valid in a kernel.
#ifndef __SM_32_INTRINSICS_H__
#define __SM_32_INTRINSICS_H__

#include <type_traits>

namespace minicuda::gpu::isa {
template <class T>
inline constexpr bool cache_hint_type = std::is_trivially_copyable_v<T> && sizeof(T) <= 16;
// A load the compiler may not merge with an earlier one nor move out of a loop.
template <class T>
inline T load_again(const T* p) {
  static_assert(cache_hint_type<T>, "the cache-hint loads take the toolkit's scalar and vector types");
  asm volatile("" ::: "memory");
  return *p;
}
template <class T>
inline void store_now(T* p, T v) {
  static_assert(cache_hint_type<T>, "the cache-hint stores take the toolkit's scalar and vector types");
  *p = v;
  asm volatile("" ::: "memory");
}
}  // namespace minicuda::gpu::isa

// The read-only cache (texture path): the data must not change while the kernel runs, so a plain
// load is exact.
template <class T>
inline T __ldg(const T* p) {
  static_assert(minicuda::gpu::isa::cache_hint_type<T>, "__ldg takes the toolkit's scalar and vector types");
  return *p;
}
template <class T>
inline T __ldca(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return minicuda::gpu::isa::load_again(p); }
template <class T>
inline T __ldcs(const T* p) { return minicuda::gpu::isa::load_again(p); }
template <class T>
inline T __ldlu(const T* p) { return minicuda::gpu::isa::load_again(p); }
template <class T>
inline T __ldcv(const T* p) { return minicuda::gpu::isa::load_again(p); }

// The value type is deduced from the pointer only, so __stcg(p, 0) stores a T as the toolkit's
// overloads convert their argument.
template <class T>
inline void __stwb(T* p, std::type_identity_t<T> v) { minicuda::gpu::isa::store_now(p, v); }
template <class T>
inline void __stcg(T* p, std::type_identity_t<T> v) { minicuda::gpu::isa::store_now(p, v); }
template <class T>
inline void __stcs(T* p, std::type_identity_t<T> v) { minicuda::gpu::isa::store_now(p, v); }
template <class T>
inline void __stwt(T* p, std::type_identity_t<T> v) { minicuda::gpu::isa::store_now(p, v); }

#endif /* __SM_32_INTRINSICS_H__ */
