// minicuda/device_runtime.h: the GPU side of CUDA dynamic parallelism (CDP2) - what kernel code
// calls to launch a child grid, create and destroy device-side streams and read its last error
// (defined in device_sim/src/device_runtime.cpp). On a real GPU this is libcudadevrt, linked into
// the device code with -rdc=true: it writes a launch record into a queue in GPU memory that the
// compute work distributor drains. Here the record goes into the launching grid's queue, which
// the compute engine drains once the grid's blocks have run (device_launch_queue.h,
// docs/dynamic-parallelism.md). The CUDA-named functions built on these (cudaGetLastError, ...,
// and the device stub of `k<<<...>>>` in device code) are in cuda_device_runtime_api.h. Errors are
// cudaError_t values as ints (this layer does not include the runtime's headers); every call is
// only valid inside a kernel. Part of the kernel language (minicuda::device_code).
#pragma once

#include <cstddef>
#include <cstdint>

#include "minicuda/kernel_entry.h"

struct dim3;

namespace minicuda::gpu::devrt {

// The code of a kernel as a device-side launch names it: what the device linker resolves a
// kernel's address to under -rdc=true. Built by the compiler side (cuda_device_runtime_api.h).
struct KernelCode {
  const char* name;
  KernelEntry entry;
  KernelBlockEntry block_entry;  // optional: the loop-mode fast path
  uint32_t param_bytes;          // the size of its parameter buffer (the CUDA parameter ABI)
};

// The stream handles a device-side launch takes besides NULL and those stream_create made (the
// values of cuda_device_runtime_api.h's cudaStreamTailLaunch and cudaStreamFireAndForget).
inline constexpr uintptr_t kTailLaunchStream = 0x3;
inline constexpr uintptr_t kFireAndForgetStream = 0x4;

// Queues a child grid of `code` with `params` (param_bytes bytes, laid out by the CUDA parameter
// ABI) on `stream`. Returns 0 (cudaSuccess) or the error the launch fails with, which is also
// the calling thread's last error: 9 cudaErrorInvalidConfiguration (a zero or oversized
// dimension, a block over 1024 threads, a block that does not fit on an SM), 1
// cudaErrorInvalidValue (dynamic shared memory over the per-block limit), 400
// cudaErrorInvalidResourceHandle (a stream this block did not create, or destroyed), 65
// cudaErrorLaunchMaxDepthExceeded (the child would nest deeper than the device allows), 69
// cudaErrorLaunchPendingCountExceeded (the device holds its limit of pending child grids).
int launch(const KernelCode& code, dim3 grid, dim3 block, size_t shared, void* stream, const void* params);

// The calling thread's last device-runtime error; `reset` clears it (cudaGetLastError) or not
// (cudaPeekAtLastError).
int last_error(bool reset);

// cudaStreamCreateWithFlags in device code: flags must be cudaStreamNonBlocking (1), else 1
// cudaErrorInvalidValue (as is a null `stream`). The stream belongs to the calling thread's block.
int stream_create(void** stream, unsigned flags);
// cudaStreamDestroy in device code: work already launched into it still runs. A handle this
// block did not create: 400 cudaErrorInvalidResourceHandle.
int stream_destroy(void* stream);

// The nesting depth of the running grid: 0 for a grid the host launched.
unsigned depth();

}  // namespace minicuda::gpu::devrt
