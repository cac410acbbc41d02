// The C++ path of tests/data/ptx/src/vector_add.cu, the kernel's one source (its PTX is nvcc's
// tests/data/ptx/corpus/vector_add.ptx): the .cu is translated with the launcher below.
#include "../../data/ptx/src/vector_add.cu"

void xc_vector_add_cxx(unsigned blocks, unsigned threads, const float* a, const float* b, float* c, int n) {
  vector_add<<<blocks, threads>>>(a, b, c, n);
}
