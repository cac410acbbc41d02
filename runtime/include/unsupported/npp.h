/* npp.h -- a header of NPP, an NVIDIA library that minicuda does not provide: minicuda
 * simulates the CUDA runtime (libcudart) and driver (libcuda) and the GPU beneath them, not the
 * libraries built on top. Including it stops the build with one message naming the library
 * (one per library, however many of its headers a file includes). */
#ifndef MINICUDA_UNSUPPORTED_NPP
#define MINICUDA_UNSUPPORTED_NPP
#error "NPP (npp.h) is an NVIDIA library that minicuda does not provide; minicuda simulates the CUDA runtime and driver APIs only (docs/layers/runtime.md, 'Headers')"
#endif
