// cooperative_groups/reduce.h: cg::reduce(group, value, op) - every thread of a tile or coalesced
// group gets op folded over the group's values in rank order (op: cg::plus, cg::less, cg::greater,
// cg::bit_and/or/xor, or any callable). Kernel code only.
#ifndef _COOPERATIVE_GROUPS_REDUCE_H
#define _COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"
#include "details/functional.h"

namespace cooperative_groups {

template <class Group, class T, class Op>
auto reduce(const Group& g, T&& value, Op&& op) -> std::decay_t<T> {
  static_assert(details::is_warp_group<Group>,
                "minicuda: cg::reduce takes a thread_block_tile of up to 32 threads or a coalesced_group");
  using V = std::decay_t<T>;
  V acc{};
  details::for_each_rank(g, static_cast<V>(value), [&](unsigned r, const V& v) { acc = r == 0 ? v : op(acc, v); });
  return acc;
}

}  // namespace cooperative_groups

#endif  // _COOPERATIVE_GROUPS_REDUCE_H
