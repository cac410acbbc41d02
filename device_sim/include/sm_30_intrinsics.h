// sm_30_intrinsics.h: the warp intrinsics - __syncwarp, the votes (__ballot_sync, __any_sync,
// __all_sync, __activemask) and the shuffles (__shfl_*_sync, with sub-warp segments of `width`
// lanes) - as the toolkit's sm_30_intrinsics.h. A warp operation is a barrier over the warp's active lanes. Part of the kernel language
// (minicuda::device_code); the functions are only valid inside a kernel.
#ifndef __SM_30_INTRINSICS_H__
#define __SM_30_INTRINSICS_H__

#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "device_launch_parameters.h"
#include "minicuda/isa.h"

inline void __syncwarp(unsigned mask = 0xffffffffu) { minicuda::gpu::isa::syncwarp(mask); }
// A predicate is true when non-zero (2, 0x100, -1 all count); __all_sync asks every lane that
// takes part, __any_sync some lane.
inline unsigned __ballot_sync(unsigned mask, int p) { return minicuda::gpu::isa::vote(mask, p, 0); }
inline int __any_sync(unsigned mask, int p) { return static_cast<int>(minicuda::gpu::isa::vote(mask, p, 1)); }
inline int __all_sync(unsigned mask, int p) { return static_cast<int>(minicuda::gpu::isa::vote(mask, p, 2)); }

namespace minicuda::gpu::isa {
// The caller's place in the source, taken by a default argument (`CallSite at = CallSite::current()`):
// std::source_location where the compiler can make one, else the same three facts from the
// builtins it has (clang 14 with libstdc++ 12, the fuzz preset, lacks __builtin_source_location).
#if defined(__has_builtin) && __has_builtin(__builtin_source_location)
using CallSite = std::source_location;
#else
class CallSite {
 public:
  static constexpr CallSite current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
                                    unsigned column = __builtin_COLUMN()) {
    CallSite site;
    site.file_ = file, site.line_ = line, site.column_ = column;
    return site;
  }
  constexpr const char* file_name() const { return file_; }
  constexpr unsigned line() const { return line_; }
  constexpr unsigned column() const { return column_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0, column_ = 0;
};
#endif
// A call site as a number: the lanes of a warp that reach the same one together are its active mask.
inline uint64_t site_of(const CallSite& at) {
  return reinterpret_cast<uintptr_t>(at.file_name()) ^ (uint64_t{at.line()} << 40) ^ (uint64_t{at.column()} << 20);
}
}  // namespace minicuda::gpu::isa

// The lanes of the warp that execute this call together: those of the same branch that have not
// exited (the caller's call site tells the branches apart).
inline unsigned __activemask(minicuda::gpu::isa::CallSite at = minicuda::gpu::isa::CallSite::current()) {
  return minicuda::gpu::isa::activemask(minicuda::gpu::isa::site_of(at));
}

namespace minicuda::gpu::isa {
template <class T>
T shuffle_as(unsigned mask, T var, int mode, int arg, int width) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move 4- or 8-byte values");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = shuffle(mask, bits, mode, arg, width);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace minicuda::gpu::isa

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 0, src_lane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 1, static_cast<int>(delta), width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 2, static_cast<int>(delta), width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 3, lane_mask, width);
}

// The later architectures' warp intrinsics: __match_*_sync (sm_70), __reduce_*_sync (sm_80).
#include "crt/sm_70_rt.h"
#include "crt/sm_80_rt.h"

#endif /* __SM_30_INTRINSICS_H__ */
