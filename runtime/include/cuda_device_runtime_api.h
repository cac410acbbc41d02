/* cuda_device_runtime_api.h: the device runtime's API as device code calls it - CUDA dynamic
 * parallelism (CDP2), what nvcc links in with -rdc=true -lcudadevrt (docs/dynamic-parallelism.md).
 *
 * nvcc resolves a call inside a __global__ or __device__ function to the device runtime's own
 * function of that name; minicuda's translator (tools/cu2cxx) does the same by rewriting, inside
 * device-only function bodies:
 *   - `k<<<g, b, s, st>>>(args)` -> (::minicuda::devrt::push_call_configuration(g, b, s, st) ? (void)0
 *                                     : ::minicuda::devrt::device_stub<k>::launch(args))
 *   - `cudaGetLastError()`, `cudaStreamCreateWithFlags(...)`, `cudaMalloc(...)`, `malloc(...)`, ...
 *     -> ::minicuda::devrt::cudaGetLastError(), ...
 * The functions below then talk to the GPU's device runtime (minicuda/device_runtime.h), never
 * to libcudart. Included by crt/host_runtime.h. */
#ifndef __CUDA_DEVICE_RUNTIME_API_H__
#define __CUDA_DEVICE_RUNTIME_API_H__

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "crt/kernel_image.h"
#include "driver_types.h"
#include "minicuda/device_runtime.h"

/* The per-grid streams of a device-side launch (CDP2). */
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
#define cudaStreamFireAndForget ((cudaStream_t)0x4)

namespace minicuda {
namespace detail {
template <auto F>
const char* kernel_name();  // crt/host_runtime.h
}  // namespace detail

namespace devrt {

/* The launch configuration of the `<<<>>>` being evaluated by the calling CUDA thread (the
 * configuration is pushed and popped within one expression, which never waits at a barrier). */
struct DeviceCallConfiguration {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
  bool pushed = false;
};
inline thread_local DeviceCallConfiguration t_device_config;

/* Returns 0, as __cudaPushCallConfiguration does, so that the launch expression continues. */
inline unsigned push_call_configuration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0) {
  t_device_config = DeviceCallConfiguration{grid, block, shared, stream, true};
  return 0;
}

/* The device stub of kernel F in device code: the child's parameters laid out by the CUDA
 * parameter ABI (as cudaGetParameterBuffer's buffer), then one launch record for the GPU. An
 * error becomes the calling thread's last error (cudaGetLastError below). */
template <auto F>
struct device_stub;

template <class... P, void (*F)(P...)>
struct device_stub<F> {
  static void launch(std::decay_t<P>... params) {
    using T = crt::KernelTraits<F>;
    const DeviceCallConfiguration c = t_device_config;
    t_device_config.pushed = false;
    static const gpu::devrt::KernelCode code{detail::kernel_name<F>(), &T::entry, &T::block_entry, T::Layout::bytes};
    alignas(16) unsigned char buffer[T::Layout::bytes == 0 ? 1 : T::Layout::bytes];
    copy_parameters(buffer, std::index_sequence_for<P...>{}, params...);
    (void)gpu::devrt::launch(code, c.grid, c.block, c.shared, c.stream, buffer);
  }

 private:
  template <size_t... I>
  static void copy_parameters([[maybe_unused]] unsigned char* buffer, std::index_sequence<I...>,
                              const std::decay_t<P>&... params) {
    using Layout = typename crt::KernelTraits<F>::Layout;
    (std::memcpy(buffer + Layout::offsets[I], &params, sizeof(std::decay_t<P>)), ...);
  }
};

/* A template or overloaded kernel launched from device code without template arguments (see
 * crt/host_runtime.h, launch_deduced). */
template <class Call, class... A>
void launch_deduced(Call, A&&... args) {
  device_stub<&::minicuda::called_kernel<Call, std::decay_t<A>...>>::launch(std::forward<A>(args)...);
}

/* The device runtime's API functions that minicuda has (the rest are refused by the translator,
 * naming the function). */
inline cudaError_t cudaGetLastError() { return static_cast<cudaError_t>(gpu::devrt::last_error(true)); }
inline cudaError_t cudaPeekAtLastError() { return static_cast<cudaError_t>(gpu::devrt::last_error(false)); }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return static_cast<cudaError_t>(gpu::devrt::stream_create(reinterpret_cast<void**>(stream), flags));
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return static_cast<cudaError_t>(gpu::devrt::stream_destroy(stream));
}

/* The device heap (docs/device-heap.md): malloc and free in device code, and the device runtime's
 * cudaMalloc and cudaFree, which share it. cudaMalloc, as on the H200 (tests/data/h200/device_heap):
 * *devPtr = the block and cudaSuccess; no room: cudaErrorMemoryAllocation; size 0 or a null
 * devPtr: cudaErrorInvalidValue; *devPtr is left as it was when it fails. cudaFree is free:
 * cudaSuccess, or the kernel error free raises. */
inline void* malloc(size_t size) { return gpu::isa::heap_malloc(size); }
inline void free(void* ptr) { gpu::isa::heap_free(ptr); }
inline cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (devPtr == nullptr || size == 0) return cudaErrorInvalidValue;
  void* p = gpu::isa::heap_malloc(size);
  if (p == nullptr) return cudaErrorMemoryAllocation;
  *devPtr = p;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* devPtr) {
  gpu::isa::heap_free(devPtr);
  return cudaSuccess;
}

}  // namespace devrt
}  // namespace minicuda

/* Sets a graph's conditional variable from device code (docs/graphs.md). minicuda's handle is the
 * device address of the variable's 4-byte slot (cudaGraphConditionalHandleCreate), so this is one
 * store to device memory, which the conditional node reads when the launch reaches it. Racing
 * stores from several threads leave one of their values, as on the GPU. */
inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
  *reinterpret_cast<volatile unsigned int*>(static_cast<uintptr_t>(handle)) = value;
}

#endif /* __CUDA_DEVICE_RUNTIME_API_H__ */
