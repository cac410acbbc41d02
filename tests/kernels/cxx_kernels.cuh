// Kernels defined in a header that a .cu includes (test_cxx_kernels.cu launches them): the header
// is compiled as it is, and a kernel of it registers at its first launch.
#pragma once

template <class T>
__global__ void header_iota(T* out, T start) {
  out[threadIdx.x] = start + static_cast<T>(threadIdx.x);
}

__global__ void header_negate(int* data) { data[threadIdx.x] = -data[threadIdx.x]; }
