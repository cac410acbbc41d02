/* thrust/detail/config.h -- included by every thrust/ header here. Thrust is an NVIDIA library that minicuda does
 * not provide: minicuda simulates the CUDA runtime (libcudart) and driver (libcuda) and the GPU
 * beneath them, not the libraries built on top. Including any of its headers stops the build
 * with one message naming the library. */
#ifndef MINICUDA_UNSUPPORTED_THRUST
#define MINICUDA_UNSUPPORTED_THRUST
#error "Thrust (the thrust/ headers) is an NVIDIA library that minicuda does not provide; minicuda simulates the CUDA runtime and driver APIs only (docs/layers/runtime.md, 'Headers')"
#endif
