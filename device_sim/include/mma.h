// mma.h: CUDA's warp matrix functions (namespace nvcuda::wmma), as the toolkit's header of the
// same name offers them, run by the simulated SM (minicuda/wmma_sim.h; docs/tensor-cores.md).
// Kernel code only.
//
// A fragment holds one warp's share of a matrix tile: x[0 .. num_elements) in each lane.
// mma_sync is warp-collective: all 32 lanes of the warp call it together (otherwise, as on the
// H200, no error and no useful result: D = 0). load_matrix_sync and store_matrix_sync move each
// lane's own elements; fill_fragment and work on x[] are per thread. A line (row or column) of a
// 16-bit matrix that does not start 4-byte aligned stops the kernel with
// cudaErrorMisalignedAddress (716), as on the H200.
//
// Shapes and types (m x n x k; A and B inputs -> accumulator):
//   16x16x16, 32x8x16, 8x32x16: half -> float or half; __nv_bfloat16 -> float;
//                               signed char, unsigned char -> int
//   16x16x8:                    precision::tf32 (held as float) -> float
//   8x8x4:                      double -> double
// matrix_a and matrix_b fragments name their memory layout (row_major, col_major); accumulators
// take it at each load and store (mem_row_major, mem_col_major). ldm is the leading dimension in
// elements.
#ifndef __CUDA_MMA_H__
#define __CUDA_MMA_H__

#include "minicuda/wmma_sim.h"

namespace nvcuda {
namespace wmma {

enum layout_t { mem_row_major, mem_col_major };

template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment {
  using traits = ::minicuda::wmma_sim::FragmentTraits<Use, m, n, k, T, Layout>;
  static_assert(traits::valid, "nvcuda::wmma::fragment: no such shape, element type and layout (see mma.h)");

 public:
  using element_type = T;
  using storage_element_type = typename traits::storage;
  enum : unsigned { num_elements = traits::per_lane };
  storage_element_type x[num_elements];
};

// Every element of the fragment = v (per thread: each lane sets its own elements).
template <class Use, int m, int n, int k, class T, class Layout>
void fill_fragment(fragment<Use, m, n, k, T, Layout>& f,
                   const typename fragment<Use, m, n, k, T, Layout>::storage_element_type& v) {
  for (auto& e : f.x) e = v;
}

// Loads a matrix_a (m x k) or matrix_b (k x n) tile from p, stored in the fragment's layout with
// leading dimension ldm: each lane its own elements.
template <class Use, int m, int n, int k, class T, class Layout>
void load_matrix_sync(fragment<Use, m, n, k, T, Layout>& f,
                      const typename fragment<Use, m, n, k, T, Layout>::storage_element_type* p, unsigned ldm) {
  using traits = ::minicuda::wmma_sim::FragmentTraits<Use, m, n, k, T, Layout>;
  static_assert(!traits::is_acc, "load_matrix_sync of an accumulator takes a layout_t");
  const unsigned lane = ::minicuda::wmma_sim::lane_id();
  for (int i = 0; i < traits::per_lane; ++i) {
    const unsigned e = lane * traits::per_lane + i, row = e / traits::cols, col = e % traits::cols;
    const unsigned line = traits::row_major_memory ? row : col, at = traits::row_major_memory ? col : row;
    ::minicuda::wmma_sim::check_line(p + line * ldm, "load_matrix_sync");
    f.x[i] = p[line * ldm + at];
  }
}

// Loads an accumulator (m x n) tile from p, stored as `layout` says with leading dimension ldm:
// each lane its own elements.
template <int m, int n, int k, class T>
void load_matrix_sync(fragment<accumulator, m, n, k, T>& f, const T* p, unsigned ldm, layout_t layout) {
  const unsigned lane = ::minicuda::wmma_sim::lane_id();
  for (unsigned i = 0; i < fragment<accumulator, m, n, k, T>::num_elements; ++i) {
    const unsigned e = lane * fragment<accumulator, m, n, k, T>::num_elements + i, row = e / n, col = e % n;
    const unsigned line = layout == mem_row_major ? row : col, at = layout == mem_row_major ? col : row;
    ::minicuda::wmma_sim::check_line(p + line * ldm, "load_matrix_sync");
    f.x[i] = p[line * ldm + at];
  }
}

// Stores an accumulator (m x n) tile to p as `layout` says, leading dimension ldm: each lane its
// own elements.
template <int m, int n, int k, class T>
void store_matrix_sync(T* p, const fragment<accumulator, m, n, k, T>& f, unsigned ldm, layout_t layout) {
  const unsigned lane = ::minicuda::wmma_sim::lane_id();
  for (unsigned i = 0; i < fragment<accumulator, m, n, k, T>::num_elements; ++i) {
    const unsigned e = lane * fragment<accumulator, m, n, k, T>::num_elements + i, row = e / n, col = e % n;
    const unsigned line = layout == mem_row_major ? row : col, at = layout == mem_row_major ? col : row;
    ::minicuda::wmma_sim::check_line(p + line * ldm, "store_matrix_sync");
    p[line * ldm + at] = f.x[i];
  }
}

// d = a * b + c, the warp's m x n tile, with the H200's arithmetic (minicuda/wmma_sim.h, dot).
// Warp-collective. d and c may be the same fragment. With
// satf, a floating-point result that is NaN becomes +0 and an infinite one the largest finite value
// of its sign; an integer one is clamped to int's range instead of wrapping.
template <int m, int n, int k, class Tab, class La, class Lb, class Td, class Tc>
void mma_sync(fragment<accumulator, m, n, k, Td>& d, const fragment<matrix_a, m, n, k, Tab, La>& a,
              const fragment<matrix_b, m, n, k, Tab, Lb>& b, const fragment<accumulator, m, n, k, Tc>& c,
              bool satf = false) {
  constexpr auto in = ::minicuda::wmma_sim::inputs_of<Tab>();
  static_assert(::minicuda::wmma_sim::accumulates_in<in, Td>() && ::minicuda::wmma_sim::accumulates_in<in, Tc>(),
                "mma_sync: these inputs do not accumulate in this type (see mma.h)");
  ::minicuda::wmma_sim::mma<in, m, n, k>(d.x, a.x, b.x, c.x, satf);
}

// float -> tf32 (round to nearest, ties away from zero), returned as a float whose low 13
// mantissa bits are zero.
inline float __float_to_tf32(float in) { return ::minicuda::wmma_sim::float_to_tf32(in); }

}  // namespace wmma
}  // namespace nvcuda

#endif  // __CUDA_MMA_H__
