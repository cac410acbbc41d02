// device_launch_parameters.h: the built-in variables threadIdx, blockIdx, blockDim, gridDim and
// warpSize, which the SM sets for the thread it runs (device_sim/src/sm.cpp). As the toolkit's
// device_launch_parameters.h. Part of the kernel language (minicuda::device_code).
#ifndef __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__

#include "host_defines.h"
#include "vector_types.h"

// constinit: no dynamic initialisation, so kernel code reaches them with one %fs-relative access
// instead of a call to a TLS wrapper function per use.
// blockIdx, blockDim and gridDim are read-only, as in CUDA (nvcc rejects a store to them). Being
// const also tells the compiler that the kernel's own stores (c[i] = ...) cannot change them, so
// it keeps them in registers for a whole block instead of reloading them for every thread - a
// reload after each store costs 4x in a loop like vector_add. The SM writes them through
// non-const names for the same symbols (sm.cpp). threadIdx stays writable: the kernel's block
// loop (KernelTraits::block_entry, compiled with the kernel) sets it for every thread.
// blockDim and gridDim are declared uint3 rather than dim3 (CUDA's type): a const object whose
// type has constructors is not read-only to g++, which would then reload it. dim3 converts from
// and to uint3, so `dim3 b = blockDim;` and every member access read the same.
extern thread_local constinit uint3 threadIdx MINICUDA_TLS;
extern thread_local constinit const uint3 blockIdx MINICUDA_TLS;
extern thread_local constinit const uint3 blockDim MINICUDA_TLS;
extern thread_local constinit const uint3 gridDim MINICUDA_TLS;
inline constexpr int warpSize = 32;

#endif /* __DEVICE_LAUNCH_PARAMETERS_H__ */
