// cooperative_groups/scan.h: cg::inclusive_scan / cg::exclusive_scan over a tile or coalesced
// group in rank order: rank r gets op folded over the values of ranks 0..r (inclusive) or 0..r-1
// (exclusive; rank 0 gets T{}, the sum's identity for the default cg::plus). Kernel code only.
#ifndef _COOPERATIVE_GROUPS_SCAN_H
#define _COOPERATIVE_GROUPS_SCAN_H

#include "../cooperative_groups.h"
#include "details/functional.h"

namespace cooperative_groups {

template <class Group, class T, class Op>
auto inclusive_scan(const Group& g, T&& value, Op&& op) -> std::decay_t<T> {
  static_assert(details::is_warp_group<Group>,
                "minicuda: cg::inclusive_scan takes a thread_block_tile of up to 32 threads or a coalesced_group");
  using V = std::decay_t<T>;
  const unsigned me = static_cast<unsigned>(g.thread_rank());
  V acc{};
  details::for_each_rank(g, static_cast<V>(value), [&](unsigned r, const V& v) {
    if (r <= me) acc = r == 0 ? v : op(acc, v);
  });
  return acc;
}
template <class Group, class T>
auto inclusive_scan(const Group& g, T&& value) -> std::decay_t<T> {
  return inclusive_scan(g, std::forward<T>(value), plus<std::decay_t<T>>());
}

template <class Group, class T, class Op>
auto exclusive_scan(const Group& g, T&& value, Op&& op) -> std::decay_t<T> {
  static_assert(details::is_warp_group<Group>,
                "minicuda: cg::exclusive_scan takes a thread_block_tile of up to 32 threads or a coalesced_group");
  using V = std::decay_t<T>;
  const unsigned me = static_cast<unsigned>(g.thread_rank());
  V acc{};
  details::for_each_rank(g, static_cast<V>(value), [&](unsigned r, const V& v) {
    if (r < me) acc = r == 0 ? v : op(acc, v);
  });
  return acc;
}
template <class Group, class T>
auto exclusive_scan(const Group& g, T&& value) -> std::decay_t<T> {
  return exclusive_scan(g, std::forward<T>(value), plus<std::decay_t<T>>());
}

}  // namespace cooperative_groups

#endif  // _COOPERATIVE_GROUPS_SCAN_H
