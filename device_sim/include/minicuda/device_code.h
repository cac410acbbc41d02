// minicuda/device_code.h: the language C++ kernels are written in - everything nvcc makes visible
// to a .cu file without an #include. A CUDA kernel here is an ordinary C++ function compiled by
// g++; the SM runs it once per thread with threadIdx/blockIdx set, on a host worker thread.
//
// An umbrella over headers named after the toolkit's, one idea each:
//   host_defines.h              the qualifiers: __global__, __device__, __shared__, ...
//   vector_types.h              char1 .. double4, uint3, dim3 (vector_functions.h: make_*)
//   device_launch_parameters.h  threadIdx, blockIdx, blockDim, gridDim, warpSize
//   device_functions.h          __syncthreads, fences, __trap, bit and float intrinsics, clock64
//   sm_20_intrinsics.h          __syncthreads_count / _and / _or
//   sm_30_intrinsics.h          __syncwarp, votes, shuffles
//   sm_32_intrinsics.h          __ldg and the other cache-hint loads and stores
//   device_atomic_functions.h   integer atomics, atomicInc/Dec, float atomicExch/Min/Max
//   sm_20_atomic_functions.h    float atomicAdd; sm_60_atomic_functions.h double atomicAdd and
//                               the _block / _system scopes
//   crt/sm_70_rt.h              __nanosleep, the warp match intrinsics
//   crt/sm_90_rt.h              thread block clusters: __clusterDim, __cluster_barrier_*, ...
//   math_functions.h            rsqrtf, the global min/max overloads
//   common_functions.h          device printf
//   texture_indirect_functions.h, surface_indirect_functions.h  texture fetches, surface access
// and minicuda's own: minicuda/isa.h (what the SM provides, which the intrinsics call),
// minicuda/kernel_entry.h (how the SM calls a kernel), minicuda/fission.h (what cu2cxx's block
// functions call). The module format is the toolkit/driver boundary's (fatbinary.h), not part of
// this language.
//
// Included by cuda_runtime.h, as nvcc includes the device headers implicitly. Host code may
// include it too; the intrinsics may only be called from kernel code (outside a kernel they
// trap, like calling a __device__ function from the host would not compile).
#pragma once

// What kernel code has always found here without its own #include.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "host_defines.h"
#include "vector_types.h"
#include "vector_functions.h"
#include "device_launch_parameters.h"
#include "minicuda/isa.h"
#include "minicuda/kernel_entry.h"
#include "device_functions.h"
#include "sm_20_intrinsics.h"
#include "sm_30_intrinsics.h"
#include "sm_32_intrinsics.h"
#include "device_atomic_functions.h"
#include "sm_20_atomic_functions.h"
#include "sm_60_atomic_functions.h"
#include "crt/sm_70_rt.h"
#include "crt/sm_90_rt.h"
#include "math_functions.h"
#include "common_functions.h"
#include "texture_indirect_functions.h"
#include "surface_indirect_functions.h"
#include "minicuda/fission.h"
