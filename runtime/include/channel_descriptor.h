/* channel_descriptor.h: cudaCreateChannelDesc<T>(), the channel description of an element type -
 * bits per component and their kind - for cudaMallocArray and the texture resource descriptions.
 * A type it does not know gives an empty description of kind None. Included by cuda_runtime.h. */
#ifndef __CHANNEL_DESCRIPTOR_H__
#define __CHANNEL_DESCRIPTOR_H__

#if defined(__cplusplus)

#include <type_traits>

#include "driver_types.h"
#include "vector_types.h"

namespace minicuda::channel {

/* The scalar type of T (T itself, or the component type of a vector type) and how many. */
template <class T, class = void>
struct shape {
  using scalar = T;
  static constexpr int count = 1;
};
template <class T>
struct shape<T, std::void_t<decltype(T::x)>> {
  using scalar = std::remove_cv_t<decltype(T::x)>;
  static constexpr int count = sizeof(T) / sizeof(scalar);
};

template <class S>
constexpr enum cudaChannelFormatKind kind() {
  if constexpr (std::is_floating_point_v<S>) return cudaChannelFormatKindFloat;
  else if constexpr (std::is_signed_v<S>) return cudaChannelFormatKindSigned;
  else return cudaChannelFormatKindUnsigned;
}

}  // namespace minicuda::channel

template <class T>
static inline struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
  using shape = minicuda::channel::shape<T>;
  using S = typename shape::scalar;
  if constexpr (!std::is_arithmetic_v<S> || std::is_same_v<S, double> || std::is_same_v<S, long double> ||
                sizeof(S) > 4 || std::is_same_v<S, bool>) {
    return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
  } else {
    const int bits = static_cast<int>(sizeof(S) * 8);
    return cudaCreateChannelDesc(bits, shape::count > 1 ? bits : 0, shape::count > 2 ? bits : 0,
                                 shape::count > 3 ? bits : 0, minicuda::channel::kind<S>());
  }
}

/* 16-bit floats: one to four channels of kind Float. */
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf(void) {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf1(void) { return cudaCreateChannelDescHalf(); }
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf2(void) {
  return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
static inline struct cudaChannelFormatDesc cudaCreateChannelDescHalf4(void) {
  return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

#endif /* __cplusplus */

#endif /* __CHANNEL_DESCRIPTOR_H__ */
