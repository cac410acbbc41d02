// The kernel language that the PTX gate's kernels use, for clang's NVPTX back end without
// NVIDIA's headers (scripts/clang-ptx.sh; docs/ptx.md, "PTX from clang"). clang's CUDA mode
// gives the attributes and the built-in variables; each device function here is the NVVM
// built-in that emits the PTX instruction nvcc's header function emits. Anything else a kernel
// calls is missing, and the kernel does not compile: that is part of what the script measures.
#pragma once

#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define MINICUDA_SHIM static __device__ __forceinline__

// __syncthreads is a clang built-in (bar.sync 0).
MINICUDA_SHIM int __shfl_down_sync(unsigned mask, int v, unsigned delta) {
  return __nvvm_shfl_sync_down_i32(mask, v, static_cast<int>(delta), 0x1f);
}
MINICUDA_SHIM float __shfl_down_sync(unsigned mask, float v, unsigned delta) {
  return __nvvm_shfl_sync_down_f32(mask, v, static_cast<int>(delta), 0x1f);
}
MINICUDA_SHIM unsigned __ballot_sync(unsigned mask, int predicate) { return __nvvm_vote_ballot_sync(mask, predicate != 0); }
MINICUDA_SHIM unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
MINICUDA_SHIM int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
MINICUDA_SHIM int __popc(unsigned x) { return __builtin_popcount(x); }
MINICUDA_SHIM float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
MINICUDA_SHIM float fabsf(float x) { return __nvvm_fabs_f(x); }
MINICUDA_SHIM long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
MINICUDA_SHIM float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
MINICUDA_SHIM float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
// The device heap: calls to the .extern functions the JIT links (as nvcc's PTX declares them).
extern "C" __device__ void* malloc(unsigned long bytes);
extern "C" __device__ void free(void* p);
__device__ inline void* operator new(unsigned long bytes) { return malloc(bytes); }
__device__ inline void* operator new[](unsigned long bytes) { return malloc(bytes); }
__device__ inline void operator delete(void* p) noexcept { free(p); }
__device__ inline void operator delete[](void* p) noexcept { free(p); }
__device__ inline void operator delete(void* p, unsigned long) noexcept { free(p); }
__device__ inline void operator delete[](void* p, unsigned long) noexcept { free(p); }
MINICUDA_SHIM int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
MINICUDA_SHIM unsigned atomicAdd(unsigned* p, unsigned v) {
  return static_cast<unsigned>(__nvvm_atom_add_gen_i(reinterpret_cast<int*>(p), static_cast<int>(v)));
}
MINICUDA_SHIM float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }

// What the host side of a .cu needs from the runtime to parse (clang parses both sides; the
// device pass emits no host code): dim3 and the launch syntax's configuration call.
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  __host__ __device__ dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
typedef struct CUstream_st* cudaStream_t;
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, unsigned long shared = 0, cudaStream_t stream = 0);
