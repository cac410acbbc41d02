/* nvrtc.h -- a header of NVRTC, an NVIDIA library that minicuda does not provide: minicuda
 * simulates the CUDA runtime (libcudart) and driver (libcuda) and the GPU beneath them, not the
 * libraries built on top. Including it stops the build with one message naming the library
 * (one per library, however many of its headers a file includes). */
#ifndef MINICUDA_UNSUPPORTED_NVRTC
#define MINICUDA_UNSUPPORTED_NVRTC
#error "NVRTC (nvrtc.h) is an NVIDIA library that minicuda does not provide; minicuda simulates the CUDA runtime and driver APIs only (docs/layers/runtime.md, 'Headers')"
#endif
