// cooperative_groups/details/functional.h: the operations cg::reduce and the scans combine values
// with - plus (a + b), less (the smaller), greater (the larger), bit_and, bit_or, bit_xor.
#ifndef _CG_FUNCTIONAL_H
#define _CG_FUNCTIONAL_H

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {
// The group's values gathered in rank order: f(r, value of rank r) for r = 0 .. size - 1, one
// shuffle each (every lane of the group takes part in every one).
template <class Group, class T, class F>
void for_each_rank(const Group& g, const T& value, F&& f) {
  const unsigned mask = coalesced_group(g).get_mask(), n = static_cast<unsigned>(std::popcount(mask));
  for (unsigned r = 0; r < n; ++r) f(r, shfl(mask, value, static_cast<int>(lane_of(mask, r))));
}
// Groups of lanes of one warp only (a tile of up to 32 threads or a coalesced group).
template <class Group>
inline constexpr bool is_warp_group = std::is_convertible_v<Group, coalesced_group>;
}  // namespace details

}  // namespace cooperative_groups

#endif  // _CG_FUNCTIONAL_H
