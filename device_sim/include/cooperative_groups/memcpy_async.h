// cooperative_groups/memcpy_async.h: cg::memcpy_async(group, dst, src, bytes) and cg::wait /
// cg::wait_prior<N>. The simulated copy is synchronous: each thread of the group copies its share
// (bytes r, r + n, ... for rank r of n) at the call, and wait(group) is the group's barrier, after
// which every thread sees the whole copy (as after the real wait). Kernel code only.
#ifndef _COOPERATIVE_GROUPS_MEMCPY_ASYNC
#define _COOPERATIVE_GROUPS_MEMCPY_ASYNC

#include <cstddef>

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class Group>
void memcpy_async(const Group& g, void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const std::size_t n = static_cast<std::size_t>(g.num_threads());
  for (std::size_t i = static_cast<std::size_t>(g.thread_rank()); i < bytes; i += n) d[i] = s[i];
}
// Copies min(dst_count, src_count) elements of T.
template <class Group, class T>
void memcpy_async(const Group& g, T* dst, std::size_t dst_count, const T* src, std::size_t src_count) {
  memcpy_async(g, static_cast<void*>(dst), static_cast<const void*>(src),
               (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}

// Every copy the group started is complete and visible to all its threads.
template <class Group>
void wait(const Group& g) {
  g.sync();
}
// All but the last N copies complete: with synchronous copies, all of them.
template <unsigned int N, class Group>
void wait_prior(const Group& g) {
  g.sync();
}

}  // namespace cooperative_groups

#endif  // _COOPERATIVE_GROUPS_MEMCPY_ASYNC
