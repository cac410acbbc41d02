// The C++ path of tests/data/ptx/src/histogram.cu, the kernel's one source (its PTX is nvcc's
// tests/data/ptx/corpus/histogram.ptx).
#include "../../data/ptx/src/histogram.cu"

void xc_histogram_cxx(unsigned blocks, unsigned threads, const unsigned char* data, unsigned* bins, int n) {
  histogram256<<<blocks, threads>>>(data, bins, n);
}
