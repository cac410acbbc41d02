/* cub/config.cuh -- included by every cub/ header here. CUB is an NVIDIA library that minicuda does
 * not provide: minicuda simulates the CUDA runtime (libcudart) and driver (libcuda) and the GPU
 * beneath them, not the libraries built on top. Including any of its headers stops the build
 * with one message naming the library. */
#ifndef MINICUDA_UNSUPPORTED_CUB
#define MINICUDA_UNSUPPORTED_CUB
#error "CUB (the cub/ headers) is an NVIDIA library that minicuda does not provide; minicuda simulates the CUDA runtime and driver APIs only (docs/layers/runtime.md, 'Headers')"
#endif
