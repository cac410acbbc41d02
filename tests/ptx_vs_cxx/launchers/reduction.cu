// The C++ path of tests/data/ptx/src/reduction.cu, the kernel's one source (its PTX is nvcc's
// tests/data/ptx/corpus/reduction.ptx). Integer addition is associative, so the sum is the same
// whatever order the blocks' atomicAdds land in.
// The kernel compares i + blockDim.x, unsigned, with n, as its PTX does: the same comparison on
// both paths, which the host compiler would warn about.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "../../data/ptx/src/reduction.cu"
#pragma GCC diagnostic pop

void xc_reduce_cxx(unsigned blocks, unsigned threads, const int* in, int* out, int n) {
  reduce_sum<<<blocks, threads, threads * sizeof(int)>>>(in, out, n);
}
