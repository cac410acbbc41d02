// host_defines.h: the execution-space and memory-space qualifiers of CUDA C++ (__global__,
// __device__, __shared__, ...), which here are macros over plain C++: a kernel is host code run by
// the simulated SM. As the toolkit's crt/host_defines.h. Part of the kernel language
// (minicuda::device_code).
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__

#define __global__                       /* a kernel: an entry point the SM runs per thread */
#define __device__                       /* device code is host C++ here */
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)           /* accepted; the SM model uses the QMD's register count */
#define __restrict__ __restrict
#define __align__(n) alignas(n)
#define __constant__                     /* an ordinary global here (no constant bank of its own) */
// Static shared memory: one copy per block. A block runs start to finish on one host worker
// thread (all its CUDA threads, as fibers or one after another), so a thread-local variable is
// exactly "one per resident block".
#define __shared__ static thread_local

// The TLS model of the built-in variables (device_launch_parameters.h): one %fs-relative access.
#define MINICUDA_TLS __attribute__((tls_model("initial-exec")))

#endif /* __HOST_DEFINES_H__ */
