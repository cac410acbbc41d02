// crt/kernel_image.h: how the compiler side turns a C++ __global__ function into the KernelImage
// of the module format (fatbinary.h): its parameter layout (the CUDA parameter ABI), its per-thread
// entry, its per-block loop and, for a kernel cu2cxx split at its barriers, its block function.
// What nvcc compiles into a kernel's SASS and metadata, minicuda instantiates here as templates;
// crt/host_runtime.h registers the images. Included by crt/host_runtime.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "device_launch_parameters.h"
#include "fatbinary.h"
#include "minicuda/kernel_entry.h"

namespace minicuda::crt {

using fatbin::KernelImage;
using fatbin::kDefaultRegisters;
using fatbin::kMaxParamBytes;
using gpu::KernelRegionEntry;

// --- building a KernelImage from a C++ function -------------------------------------------

template <class... P>
struct ParamLayout {
  static constexpr uint32_t count = sizeof...(P);
  static constexpr std::array<uint32_t, sizeof...(P)> sizes{static_cast<uint32_t>(sizeof(P))...};
  static constexpr std::array<uint32_t, sizeof...(P)> aligns{static_cast<uint32_t>(alignof(P))...};
  static constexpr std::array<uint32_t, sizeof...(P)> offsets = [] {
    std::array<uint32_t, sizeof...(P)> out{};
    uint32_t at = 0;
    for (size_t i = 0; i < sizeof...(P); ++i) {
      at = (at + aligns[i] - 1) / aligns[i] * aligns[i];
      out[i] = at;
      at += sizes[i];
    }
    return out;
  }();
  static constexpr uint32_t bytes = [] {
    uint32_t at = 0;
    for (size_t i = 0; i < sizeof...(P); ++i) at = (at + aligns[i] - 1) / aligns[i] * aligns[i] + sizes[i];
    return at;
  }();
};

template <auto F>
struct KernelTraits;  // only for functions returning void: a __global__ function

template <class... P, void (*F)(P...)>
struct KernelTraits<F> {
  using Layout = ParamLayout<std::decay_t<P>...>;
  static_assert((std::is_trivially_copyable_v<std::decay_t<P>> && ...),
                "kernel parameters are copied by value into the parameter buffer");
  static_assert(Layout::bytes <= kMaxParamBytes, "kernel parameters exceed 32764 bytes");

  template <size_t... I>
  static void call([[maybe_unused]] const unsigned char* params, std::index_sequence<I...>) {
    F(*std::launder(reinterpret_cast<const std::decay_t<P>*>(params + Layout::offsets[I]))...);
  }
  template <size_t... I>
  static std::tuple<std::decay_t<P>...> load([[maybe_unused]] const unsigned char* params, std::index_sequence<I...>) {
    return {*std::launder(reinterpret_cast<const std::decay_t<P>*>(params + Layout::offsets[I]))...};
  }
  // The KernelEntry of F.
  static void entry(const void* params) {
    call(static_cast<const unsigned char*>(params), std::index_sequence_for<P...>{});
  }
  // The KernelBlockEntry of F: the whole loop in one function, so that per thread there is no
  // indirect call, and what does not change (parameters, blockIdx, blockDim) can stay in registers.
  static unsigned block_entry(const void* params, const bool* stop) {
    // Component by component: a whole uint3 copy may be an 8-byte move at a 4-byte-aligned
    // address, which the SM's alignment check would trap (and then stop checking this block).
    // The parameters, copied once per block into locals: read from the parameter buffer, they
    // would be reloaded for every thread (the kernel's stores might alias the buffer).
    std::tuple<std::decay_t<P>...> args = load(static_cast<const unsigned char*>(params), std::index_sequence_for<P...>{});
    const unsigned nx = blockDim.x, ny = blockDim.y, nz = blockDim.z;
    unsigned ran = 0;
    for (unsigned z = 0; z < nz; ++z)
      for (unsigned y = 0; y < ny; ++y)
        for (unsigned x = 0; x < nx; ++x) {
          threadIdx.x = x;  // y and z too: the kernel may have changed them (it is its variable)
          threadIdx.y = y;
          threadIdx.z = z;
          std::apply(F, args);  // by value: each thread gets its own copy, as from the buffer
          ++ran;
          if (*stop) return ran;
        }
    return ran;
  }
};

// The display name of F ("vector_add", "ns::scale<float>"), from the compiler's own spelling.
template <auto F>
constexpr const char* kernel_pretty() {
  return __PRETTY_FUNCTION__;  // "... [with auto F = NAME]"
}

// The KernelRegionEntry of G, the block function cu2cxx emits for a kernel: G takes the
// kernel's own parameters (so the same buffer layout), unpacked here once per block.
template <auto G>
struct BlockFunctionTraits;

template <class... P, bool (*G)(P...)>
struct BlockFunctionTraits<G> {
  using Layout = ParamLayout<std::decay_t<P>...>;
  template <size_t... I>
  static bool call([[maybe_unused]] const unsigned char* params, std::index_sequence<I...>) {
    return G(*std::launder(reinterpret_cast<const std::decay_t<P>*>(params + Layout::offsets[I]))...);
  }
  static bool entry(const void* params) {
    return call(static_cast<const unsigned char*>(params), std::index_sequence_for<P...>{});
  }
};

// The KernelImage of F, named `name`; `regions`: its block function's entry, if it has one.
template <auto F>
KernelImage kernel_image(const char* name, KernelRegionEntry regions = nullptr) {
  using T = KernelTraits<F>;
  return KernelImage{name,
                     &T::entry,
                     &T::block_entry,
                     T::Layout::count,
                     T::Layout::bytes,
                     T::Layout::count ? T::Layout::offsets.data() : nullptr,
                     T::Layout::count ? T::Layout::sizes.data() : nullptr,
                     kDefaultRegisters,
                     regions,
                     {0, 0, 0}};
}

// The KernelImage of a kernel compiled with __cluster_dims__(x, y, z) (cu2cxx registers it so).
inline KernelImage with_cluster_dims(KernelImage image, unsigned x, unsigned y = 1, unsigned z = 1) {
  image.cluster_dims[0] = x;
  image.cluster_dims[1] = y;
  image.cluster_dims[2] = z;
  return image;
}

// The KernelImage of kernel F whose block function is G (what cu2cxx registers for a kernel it
// split): G must take exactly F's parameters, so that both read the same parameter buffer.
template <auto F, auto G>
KernelImage kernel_image_with_regions(const char* name) {
  static_assert(std::is_same_v<typename KernelTraits<F>::Layout, typename BlockFunctionTraits<G>::Layout>,
                "a block function takes its kernel's parameters");
  return kernel_image<F>(name, &BlockFunctionTraits<G>::entry);
}

// --- block functions of template kernels ----------------------------------------------------
//
// A template kernel is registered at its first launch (host_runtime.h, ensure_registered), and
// nothing there can name the block function of that instantiation. The kernel names it instead:
// cu2cxx starts the body of a template kernel it split with
// `(void)::minicuda::crt::RegionLink<&k<A...>, &k__regions<A...>>::linked;`, which makes every
// instantiation of the kernel record its block function at static initialization. A kernel
// launched before that (from another static initializer) finds none and runs with fibers.

// The recorded pairs (kernel's host function, its block function's entry). Thread-safe.
struct RegionLinks {
  std::mutex mutex;
  std::vector<std::pair<const void*, KernelRegionEntry>> links;
};
inline RegionLinks& region_links() {
  static RegionLinks links;
  return links;
}
inline bool link_regions(const void* kernel, KernelRegionEntry entry) {
  RegionLinks& r = region_links();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.links.emplace_back(kernel, entry);
  return true;
}
// The block function recorded for `kernel`, or nullptr.
inline KernelRegionEntry linked_regions(const void* kernel) {
  RegionLinks& r = region_links();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& [k, entry] : r.links)
    if (k == kernel) return entry;
  return nullptr;
}

template <auto F, auto G>
struct RegionLink {
  static_assert(std::is_same_v<typename KernelTraits<F>::Layout, typename BlockFunctionTraits<G>::Layout>,
                "a block function takes its kernel's parameters");
  static inline const bool linked = link_regions(reinterpret_cast<const void*>(F), &BlockFunctionTraits<G>::entry);
};

}  // namespace minicuda::crt
