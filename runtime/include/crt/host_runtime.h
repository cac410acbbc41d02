/* crt/host_runtime.h: the hidden ABI between compiled .cu files and libcudart, as nvcc's host
 * code uses it (real-stack.md §2.8), and minicuda's typed launch API built on it.
 *
 * What nvcc emits, minicuda's translator (tools/cu2cxx) emits too:
 *   - at start-up, per translation unit: __cudaRegisterFatBinary(&wrapper) -> handle, then
 *     __cudaRegisterFunction(handle, host function, name, ...) per kernel, then
 *     __cudaRegisterVar(handle, host shadow, name, name, 0, size, constant, 0) per __device__ or
 *     __constant__ variable, then __cudaRegisterFatBinaryEnd(handle) (MINICUDA_REGISTER_MODULE below);
 *   - per launch `k<<<g, b, s, st>>>(args)`: (__cudaPushCallConfiguration(g, b, s, st)) ? (void)0
 *     : kernel_stub<k>::launch(args), whose body is nvcc's device stub: pop the configuration,
 *     build void* args[] pointing at the parameters, cudaLaunchKernel(k, ...).
 * Registration makes no driver call; the module is loaded at its first launch (lazy loading:
 * cuLibraryLoadData, cuLibraryGetKernel), as CUDA 13 does.
 *
 * Included by cuda_runtime.h. */
#pragma once

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "crt/kernel_image.h"
#include "fatbinary.h"
#include "minicuda/device_code.h"

extern "C" {
/* Records a fatbinary (a minicuda::fatbin::FatbinWrapper); returns its handle. */
void** __cudaRegisterFatBinary(void* fatCubin);
void __cudaRegisterFatBinaryEnd(void** fatCubinHandle);
/* Forgets a fatbinary's kernels (their launches then fail with cudaErrorInvalidDeviceFunction). */
void __cudaUnregisterFatBinary(void** fatCubinHandle);
/* Binds a host function (the key cudaLaunchKernel takes) to the kernel deviceName of the module. */
void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int thread_limit, uint3* tid, uint3* bid, dim3* bDim, dim3* gDim, int* wSize);
/* Binds a variable's host shadow (the key of the symbol calls) to the variable deviceName of the
 * module: size bytes, constant != 0 for __constant__. deviceAddress and ext and global are
 * accepted and ignored (the module image holds the rest: fatbinary.h, VariableImage). */
void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName, int ext,
                       size_t size, int constant, int global);
/* The rest of CUDA 13's hidden ABI, which only host code nvcc compiled calls (runtime/src/nvcc_abi.cpp,
 * docs/nvcc-programs.md). A kernel handle as the real driver_types.h spells it. */
typedef struct CUkern_st* cudaKernel_t;
/* The handle of the kernel registered for hostFun (what nvcc's launch code asks once per kernel). */
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun);
/* Launches a handle from __cudaGetKernel (the _ptsz twin: stream 0 is the per-thread stream). */
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                               struct CUstream_st* stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem, struct CUstream_st* stream);
/* Records a __managed__ variable: __cudaInitModule points *hostVarPtrAddress at it. */
void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                              const char* deviceName, int ext, size_t size, int constant, int global);
/* Loads the fatbinary's module now and binds its managed variables: nonzero when the module
 * loaded (when it did not, each managed variable gets managed memory of its own; returns 0). */
char __cudaInitModule(void** fatCubinHandle);
/* The per-thread launch-configuration stack of <<<>>>: push returns 0 on success. */
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, struct CUstream_st* stream = 0);
cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream);
}

namespace minicuda {
namespace detail {

/* "vector_add" from GCC's "... [with auto F = vector_add]"; "::ns::k" -> "ns::k". */
std::string kernel_display_name(const char* pretty_or_spelled);

template <auto F>
const char* kernel_name() {
  static const std::string name = kernel_display_name(crt::kernel_pretty<F>());
  return name.c_str();
}

/* One kernel of a module: its host key and its image. */
struct ModuleKernel {
  const void* host_function;
  fatbin::KernelImage image;
};

/* One __device__ or __constant__ variable of a module: its host shadow and its image (the
 * initializer is copied from the shadow at registration, before any host code can change it). */
struct ModuleVariable {
  const void* host_variable;
  fatbin::VariableImage image;
};
using ModuleEntry = std::variant<ModuleKernel, ModuleVariable>;

/* The start-up registration of one translation unit's kernels and variables (what nvcc's
 * __sti____cudaRegisterAll does): builds the module's fatbinary and registers it. */
class ModuleRegistration {
 public:
  /* flags: fatbin::kModule* bits (kModuleUsesDeviceHeap). */
  ModuleRegistration(const char* source, std::vector<ModuleEntry> entries, uint32_t flags = 0);
  ModuleRegistration(const ModuleRegistration&) = delete;
  ModuleRegistration& operator=(const ModuleRegistration&) = delete;

 private:
  std::vector<ModuleKernel> kernels_;
  std::vector<std::string> names_;
  std::vector<fatbin::KernelImage> images_;
  std::vector<const void*> host_functions_;  // kernels_'s, in images_'s order
  std::vector<ModuleVariable> variables_;
  std::vector<std::string> variable_names_;
  std::vector<std::vector<unsigned char>> initializers_;
  std::vector<fatbin::VariableImage> variable_images_;
  std::string source_;
  fatbin::MinicudaFatbin fatbin_{};
  fatbin::FatbinWrapper wrapper_{};
};

/* Registers F in a module of its own, once: kernels no start-up registration covered (templates,
 * overloads, kernels in plain .cpp files), with the block function a split template kernel
 * recorded (crt/kernel_image.h, RegionLink). */
template <auto F>
void ensure_registered() {
  static const ModuleRegistration registration(
      "(registered at first launch)",
      {ModuleKernel{reinterpret_cast<const void*>(F),
                    crt::kernel_image<F>(kernel_name<F>(), crt::linked_regions(reinterpret_cast<const void*>(F)))}});
}

/* The start-up registration of a template kernel's instantiation F, in a module of its own, as
 * nvcc registers every instantiation its translation unit uses: cu2cxx names it (without
 * evaluating it) at each `k<args><<<...>>>` launch, so the instantiation is registered before
 * main and function APIs (cudaFuncSetCacheConfig, cudaFuncGetAttributes, cudaLaunchKernel by
 * address) know it before its first launch. An inline variable: one registration per program,
 * whichever translation units launch F. */
template <auto F>
inline const ModuleRegistration start_up_registration{
    "(template instantiation)", {ModuleKernel{reinterpret_cast<const void*>(F), crt::kernel_image<F>(kernel_name<F>())}}};

}  // namespace detail

namespace detail {
/* A kernel compiled with __cluster_dims__(x, y, z): cu2cxx wraps its MINICUDA_KERNEL entry in this. */
inline ModuleKernel with_cluster_dims(ModuleKernel k, unsigned x, unsigned y = 1, unsigned z = 1) {
  k.image = crt::with_cluster_dims(k.image, x, y, z);
  return k;
}
}  // namespace detail

/* The device stub of kernel F (nvcc's __device_stub__*): launch() takes the kernel's own
 * parameter types, so arguments convert exactly as in a call, then pops the <<<>>>
 * configuration and calls cudaLaunchKernel. Errors go to the last-error slot, as with nvcc.
 * Compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM, cudaLaunchKernel here is cudaLaunchKernel_ptsz
 * (cuda_runtime_api.h, included first), so a popped stream 0 is the per-thread stream, as nvcc's
 * stub does in that mode. The mode is the kernel's file's: F is a kernel of that file. */
template <auto F>
struct kernel_stub;

template <class... P, void (*F)(P...)>
struct kernel_stub<F> {
  static void launch(std::decay_t<P>... params) {
    dim3 grid, block;
    size_t shared = 0;
    cudaStream_t stream = nullptr;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &stream) != cudaSuccess) return;
    detail::ensure_registered<F>();
    void* args[] = {static_cast<void*>(&params)..., nullptr};
    (void)cudaLaunchKernel(reinterpret_cast<const void*>(F), grid, block, args, shared, stream);
  }
};

/* A launch whose kernel only the call's arguments select - a template kernel launched without
 * template arguments, an overloaded kernel (cu2cxx writes `k<<<g, b>>>(a, b)` as
 * launch_deduced([](auto... x) { k(x...); }, a, b) for those): the launched kernel is
 * called_kernel<Call, decayed argument types...>, which calls k as that call would, so template
 * arguments are deduced and overloads resolved as nvcc does. Traces and errors name it
 * `called_kernel<...>`, not k. */
template <class Call, class... P>
void called_kernel(P... params) {
  Call{}(params...);
}
template <class Call, class... A>
void launch_deduced(Call, A&&... args) {
  kernel_stub<&called_kernel<Call, std::decay_t<A>...>>::launch(std::forward<A>(args)...);
}

/* A launch through a function-pointer variable that holds a kernel (`void (*k)(float*, int)`;
 * cu2cxx writes `k<<<g, b>>>(a, n)` as launch_through(k)(a, n)): the arguments convert to the
 * pointer's parameter types as in a call, then the configuration is popped and cudaLaunchKernel
 * gets the pointer's value, so the kernel it points to must be registered (kernels of a .cu are
 * at start-up); anything else fails as cudaLaunchKernel does for a function it does not know. */
template <class... P>
struct pointer_launch {
  void (*kernel)(P...);
  void operator()(std::decay_t<P>... params) const {
    dim3 grid, block;
    size_t shared = 0;
    cudaStream_t stream = nullptr;
    if (__cudaPopCallConfiguration(&grid, &block, &shared, &stream) != cudaSuccess) return;
    void* args[] = {static_cast<void*>(&params)..., nullptr};
    (void)cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream);
  }
};
template <class... P>
pointer_launch<P...> launch_through(void (*kernel)(P...)) {
  return pointer_launch<P...>{kernel};
}

/* The typed launch API, for kernels in plain C++ files:
 *   minicuda::launch<vector_add>(dim3(256), dim3(256), 0, stream, d_a, d_b, d_c, n);
 * The arguments convert to the kernel's parameter types as in a call. Returns what
 * cudaLaunchKernel returns (and records errors in the last-error slot, as it does). */
template <auto F>
struct typed_launch;

template <class... P, void (*F)(P...)>
struct typed_launch<F> {
  static cudaError_t run(dim3 grid, dim3 block, size_t shared, cudaStream_t stream, std::decay_t<P>... params) {
    detail::ensure_registered<F>();
    void* args[] = {static_cast<void*>(&params)..., nullptr};
    return cudaLaunchKernel(reinterpret_cast<const void*>(F), grid, block, args, shared, stream);
  }
};

template <auto F, class... A>
cudaError_t launch(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream, A&&... args) {
  return typed_launch<F>::run(grid, block, shared_bytes, stream, std::forward<A>(args)...);
}

}  // namespace minicuda

/* What minicuda_cu2cxx appends to a translated .cu (see tools/cu2cxx). */
#define MINICUDA_KERNEL(f) \
  ::minicuda::detail::ModuleKernel{reinterpret_cast<const void*>(&f), ::minicuda::crt::kernel_image<&f>(#f)}
/* A kernel cu2cxx split into regions: f and its block function g (docs/tools/cu2cxx.md). */
#define MINICUDA_KERNEL_REGIONS(f, g)                                  \
  ::minicuda::detail::ModuleKernel{reinterpret_cast<const void*>(&f), \
                                   ::minicuda::crt::kernel_image_with_regions<&f, &g>(#f)}
/* A __device__ (constant 0) or __constant__ (constant 1) variable v whose kernels reach it through
 * slot, a pointer to v's type that the loader sets to v's device storage (docs/kernels.md). */
#define MINICUDA_VARIABLE(v, slot, constant)                                                           \
  ::minicuda::detail::ModuleVariable{                                                                   \
      static_cast<const void*>(&v), ::minicuda::fatbin::VariableImage{#v, sizeof(v), constant, nullptr, \
                                                                      static_cast<void**>(static_cast<void*>(&slot))}}
#define MINICUDA_REGISTER_MODULE(source, ...) \
  static const ::minicuda::detail::ModuleRegistration minicuda_module_registration_{source, {__VA_ARGS__}};
/* The same for a file whose device code calls malloc/free or cudaMalloc/cudaFree (the device heap). */
#define MINICUDA_REGISTER_MODULE_WITH_HEAP(source, ...)                                   \
  static const ::minicuda::detail::ModuleRegistration minicuda_module_registration_{      \
      source, {__VA_ARGS__}, ::minicuda::fatbin::kModuleUsesDeviceHeap};

#include "cuda_device_runtime_api.h" /* the device runtime: launches and streams in device code (CDP2) */
