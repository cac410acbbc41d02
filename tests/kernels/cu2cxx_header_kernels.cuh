// Device code in a header next to the .cu (included by test_cu2cxx_language.cu): cu2cxx
// translates it in place of the #include, as it does the .cu. Dynamic shared arrays declared in
// device member functions of a class template's specializations (one array name per element type,
// as CUDA requires), a template kernel using them, and a kernel defined and launched here.
#pragma once

#include <cuda_runtime.h>

template <class T>
struct HeaderShared;

template <>
struct HeaderShared<int> {
  __device__ int* get() {
    extern __shared__ int header_shared_int[];
    return header_shared_int;
  }
};

template <>
struct HeaderShared<float> {
  __device__ float* get() {
    extern __shared__ float header_shared_float[];
    return header_shared_float;
  }
};

// Each block reverses its own blockDim.x elements through dynamic shared memory.
template <class T>
__global__ void header_reverse(const T* in, T* out) {
  T* staged = HeaderShared<T>().get();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = staged[blockDim.x - 1 - threadIdx.x];
}

// A kernel of the header, registered with the including .cu's module.
__global__ void header_affine(int* data, int scale, int shift) {
  data[threadIdx.x] = data[threadIdx.x] * scale + shift;
}

// A launch written in the header.
inline cudaError_t launch_header_affine(int* data, int n, int scale, int shift) {
  header_affine<<<1, n>>>(data, scale, shift);
  return cudaGetLastError();
}
