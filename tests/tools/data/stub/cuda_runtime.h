// A stand-in for minicuda's runtime headers, used only by test_cu2cxx_generated: the smallest
// definitions of the names cu2cxx's output uses (tools/cu2cxx/translate.h), so the translator's
// output is checked to be valid C++ independently of the real runtime. Launches run the kernel
// once, as thread 0 of block 0; registration records the module (cu2cxx_stub.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cu2cxx_stub.h"

#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
inline constexpr uint3 threadIdx{0, 0, 0};
inline constexpr uint3 blockIdx{0, 0, 0};
inline constexpr dim3 blockDim{1, 1, 1};
using cudaStream_t = struct CUstream_st*;

namespace cu2cxx_stub {
// Takes the kernel's address, so the name must denote exactly one function (no overload set).
template <class F>
std::string kernel_name(F* kernel, const char* name) {
  (void)kernel;
  return name;
}
inline bool register_module(const char* file, std::vector<std::string> kernels) {
  modules().push_back(Module{file, std::move(kernels)});
  return true;
}
}  // namespace cu2cxx_stub

// As in CUDA: 0 on success, and the launch happens only then. The stub accepts any config.
inline unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared_bytes = 0,
                                            cudaStream_t stream = nullptr) {
  (void)grid, (void)block, (void)shared_bytes, (void)stream;
  return 0;
}

namespace minicuda {
// As the runtime's: launch() takes the kernel's own parameter types, so the arguments convert
// as in a call of the kernel (a literal 0 for a pointer parameter).
template <auto Kernel>
struct kernel_stub;
template <class... Params, void (*Kernel)(Params...)>
struct kernel_stub<Kernel> {
  static void launch(Params... args) { Kernel(args...); }
};
// A launch through a variable holding a kernel's address: a call, as kernel_stub's.
template <class... Params>
struct pointer_launch {
  void (*kernel)(Params...);
  void operator()(Params... args) const { kernel(args...); }
};
template <class... Params>
pointer_launch<Params...> launch_through(void (*kernel)(Params...)) {
  return {kernel};
}
namespace detail {
// What cu2cxx names at a launch with template arguments (the runtime registers the kernel there).
template <auto Kernel>
inline const bool start_up_registration = true;
}  // namespace detail
// The block's dynamic shared memory (one block runs at a time in the stub).
alignas(16) inline unsigned char dynamic_shared_storage[1024];
template <class T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(dynamic_shared_storage);
}
template <class T>
struct DynamicShared {
  T* get() const { return dynamic_shared<T>(); }
  operator T*() const { return get(); }
  T& operator[](std::size_t i) const { return get()[i]; }
};
}  // namespace minicuda

#define MINICUDA_KERNEL(k) ::cu2cxx_stub::kernel_name(&k, #k)
#define MINICUDA_REGISTER_MODULE(file, ...) \
  static const bool cu2cxx_stub_registered = ::cu2cxx_stub::register_module(file, {__VA_ARGS__});
