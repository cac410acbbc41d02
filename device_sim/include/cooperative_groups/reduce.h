// cooperative_groups/reduce.h: cg::reduce(group, value, op) - every thread of a tile or coalesced
// group gets op folded over the group's values in rank order (op: cg::plus, cg::less, cg::greater,
// cg::bit_and/or/xor, or any callable). Kernel code only.
#ifndef _COOPERATIVE_GROUPS_REDUCE_H
#define _COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"
#include "details/functional.h"

namespace cooperative_groups {

namespace details {
// The Size of a tile of whole warps (thread_block_tile<Size, P> with Size > 32), else 0.
template <class Group>
struct warps_tile_size : std::integral_constant<unsigned, 0> {};
template <unsigned int Size, class P>
struct warps_tile_size<thread_block_tile<Size, P, false>> : std::integral_constant<unsigned, Size> {};
// cg::reduce over a tile of whole warps: each warp folds its lanes in rank order, its first lane
// leaves the result in the warp's slot of the block_tile_memory, and after a block barrier every
// thread folds its tile's slots in order; a second barrier frees the slots for the next use.
template <unsigned int Size, class V, class Op>
V reduce_warps(const thread_block_tile<Size, void, false>& g, const V& value, Op& op) {
  static_assert(sizeof(V) <= 16, "minicuda: a multi-warp cg::reduce combines values of up to 16 bytes");
  auto* slots = static_cast<unsigned char*>(g.tile_memory());
  const unsigned warp = block_rank() / 32;
  V acc{};
  for_each_rank(coalesced_group(warp_lanes()), value, [&](unsigned r, const V& v) { acc = r == 0 ? v : op(acc, v); });
  if (lane() == 0) std::memcpy(slots + warp * 16, &acc, sizeof(V));
  __syncthreads();
  const unsigned first = warp / (Size / 32) * (Size / 32);
  for (unsigned w = first; w < first + Size / 32; ++w) {
    V part;
    std::memcpy(&part, slots + w * 16, sizeof(V));
    acc = w == first ? part : op(acc, part);
  }
  __syncthreads();
  return acc;
}
}  // namespace details

template <class Group, class T, class Op>
auto reduce(const Group& g, T&& value, Op&& op) -> std::decay_t<T> {
  using V = std::decay_t<T>;
  if constexpr (details::warps_tile_size<Group>::value != 0) {
    return details::reduce_warps<details::warps_tile_size<Group>::value>(g, static_cast<V>(value), op);
  } else {
    static_assert(details::is_warp_group<Group>,
                  "minicuda: cg::reduce takes a thread_block_tile (of up to 32 threads, or of whole warps with "
                  "block_tile_memory) or a coalesced_group");
    V acc{};
    details::for_each_rank(g, static_cast<V>(value), [&](unsigned r, const V& v) { acc = r == 0 ? v : op(acc, v); });
    return acc;
  }
}

}  // namespace cooperative_groups

#endif  // _COOPERATIVE_GROUPS_REDUCE_H
