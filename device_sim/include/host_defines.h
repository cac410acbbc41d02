// host_defines.h: the execution-space and memory-space qualifiers of CUDA C++ (__global__,
// __device__, __shared__, ...) and the toolkit's declaration helpers (__align__,
// __forceinline__, __device_builtin__ ...), as the toolkit's crt/host_defines.h names them. Here
// they are macros over plain C++: a kernel is host code run by the simulated SM, so a qualifier
// that only steers nvcc's code generation expands to nothing. Part of the kernel language
// (minicuda::device_code).
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__

// Execution spaces.
#define __global__                       /* a kernel: an entry point the SM runs per thread */
#define __device__                       /* device code is host C++ here */
#define __host__
// Memory spaces.
#define __constant__                     /* an ordinary global here (no constant bank of its own) */
#define __managed__                      /* an ordinary global: host and device share one address space */
// Static shared memory: one copy per block. A block runs start to finish on one host worker
// thread (all its CUDA threads, as fibers or one after another), so a thread-local variable is
// exactly "one per resident block".
#define __shared__ static thread_local
#define __grid_constant__                /* kernel parameters are read-only copies anyway */

// Code-generation hints nvcc acts on; accepted and ignored (the SM model takes its register
// count from the QMD).
#define __launch_bounds__(...)
#define __maxnreg__(n)
// The cluster shape a kernel is compiled for: cu2cxx (minicuda-nvcc) reads and removes it from a
// .cu file; left in plain C++, where nothing would give the kernel its clusters, launching the
// kernel does not compile.
#define __cluster_dims__(...)                                                                      \
  __attribute__((error("minicuda: __cluster_dims__ is read by cu2cxx (.cu files) only; in C++ launch " \
                       "with cudaLaunchKernelEx and cudaLaunchAttributeClusterDimension")))
#define __inline_hint__
#define __nv_pure__

// Declaration helpers.
#define __forceinline__ inline __attribute__((always_inline))
#define __no_return__ __attribute__((noreturn))
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __builtin_align__(n) __attribute__((aligned(n)))  /* usable between `struct` and the name, in C too */
#define __thread__ __thread
#define __import__
#define __export__
#define __location__(a)
#define __annotate__(a)
// Markers the toolkit puts on its own types and functions (empty outside nvcc, as in the toolkit).
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__

// The TLS model of the built-in variables (device_launch_parameters.h): one %fs-relative access.
#define MINICUDA_TLS __attribute__((tls_model("initial-exec")))

#endif /* __HOST_DEFINES_H__ */
