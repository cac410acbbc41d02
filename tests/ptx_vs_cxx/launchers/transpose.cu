// The C++ path of tests/data/ptx/src/transpose.cu, the kernel's one source (its PTX is nvcc's
// tests/data/ptx/corpus/transpose.ptx). Blocks are 32 x 8: each thread moves four elements.
#include "../../data/ptx/src/transpose.cu"

void xc_transpose_cxx(int rows, int cols, const float* in, float* out) {
  dim3 grid((cols + 31) / 32, (rows + 31) / 32), block(32, 8);
  transpose<<<grid, block>>>(in, out, rows, cols);
}
