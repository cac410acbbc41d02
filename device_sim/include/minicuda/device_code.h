// minicuda/device_code.h: the language C++ kernels are written in, and the object format the SM runs.
//
// The other face of the simulated GPU (device.h is the one the kernel module programs): what a
// compiled kernel sees. A CUDA kernel here is an ordinary C++ function compiled by g++; the SM
// runs it once per thread with threadIdx/blockIdx set, on a host worker thread. This header
// gives it the CUDA C++ vocabulary - the qualifiers, the built-in variables, barriers, warp
// shuffles and votes, atomics, fences, printf, assert and __trap - and defines the "cubin" the
// compiler side (crt/host_runtime.h) emits and the driver loads: one KernelImage per __global__
// function, whose entry runs one thread with the kernel's parameter buffer.
//
// Included by cuda_runtime.h, as nvcc includes the device headers implicitly. Host code may
// include it too; the intrinsics may only be called from kernel code (outside a kernel they
// trap, like calling a __device__ function from the host would not compile).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

// --- vector_types.h ---------------------------------------------------------------------------

/* Three unsigned components, as in vector_types.h (threadIdx and blockIdx are uint3). */
struct uint3 {
  unsigned int x, y, z;
};
/* Grid and block sizes; unspecified components are 1, so dim3(256) is 256 x 1 x 1. */
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
// Aligned as vector_types.h aligns them (a float4 load is one 16-byte access on the GPU).
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned int x, y; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct float3 { float x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline constexpr int2 make_int2(int x, int y) { return {x, y}; }
inline constexpr int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline constexpr uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
inline constexpr float2 make_float2(float x, float y) { return {x, y}; }
inline constexpr float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline constexpr float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline constexpr double2 make_double2(double x, double y) { return {x, y}; }

// --- qualifiers ------------------------------------------------------------------------------

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

// --- built-in variables (set by the SM for the running thread) --------------------------------

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
#define MINICUDA_TLS __attribute__((tls_model("initial-exec")))
extern thread_local constinit uint3 threadIdx MINICUDA_TLS;
extern thread_local constinit const uint3 blockIdx MINICUDA_TLS;
extern thread_local constinit const uint3 blockDim MINICUDA_TLS;
extern thread_local constinit const uint3 gridDim MINICUDA_TLS;
inline constexpr int warpSize = 32;

namespace minicuda::gpu {

// --- the object format ("cubin") ---------------------------------------------------------------

// Runs one CUDA thread of a kernel: `params` is the kernel's constant bank 0, its parameters by
// value at the offsets of the CUDA parameter ABI (each aligned to its own alignment).
using KernelEntry = void (*)(const void* params);
// Runs the threads of the calling SM's current block one after another, from thread 0 (setting
// threadIdx), with the kernel inlined into the loop; stops early once *stop is set (a thread
// reached a barrier: the rest of the block runs as fibers). Returns how many threads it ran.
using KernelBlockEntry = unsigned (*)(const void* params, const bool* stop);
// Runs the whole of the calling SM's current block through the kernel's *block function*, the
// copy of its body that cu2cxx split at its barriers into regions, each a loop over the block's
// threads (docs/tools/cu2cxx.md, "Region fission"): no fiber, no switch per barrier. Returns
// false, having run nothing, when the block function cannot run the kernel (a replicated local
// of a type it cannot keep per thread); the SM then runs the block through block_entry.
using KernelRegionEntry = bool (*)(const void* params);

// One __global__ function as the compiler emits it.
struct KernelImage {
  const char* name;                // as written in the source, e.g. "vector_add", "scale<float>"
  KernelEntry entry;               // the code: one thread
  KernelBlockEntry block_entry;    // the code: a block's threads in a loop (may be null)
  uint32_t param_count;
  uint32_t param_bytes;            // size of the parameter buffer (<= kMaxParamBytes)
  const uint32_t* param_offsets;   // param_count offsets into the buffer
  const uint32_t* param_sizes;     // param_count sizes
  uint32_t num_regs;               // registers per thread (occupancy); kDefaultRegisters
  KernelRegionEntry region_entry;  // the code: a block as regions, without fibers (may be null)
};

inline constexpr uint32_t kMaxParamBytes = 32764;  // CUDA 12.1+ limit on kernel parameters
inline constexpr uint32_t kDefaultRegisters = 32;  // what the SM model charges per thread

// The payload of minicuda's fatbinary entry: the kernels of one translation unit.
struct ModuleImage {
  uint32_t magic;        // kModuleMagic
  uint32_t version;      // 1
  const char* source;    // the .cu file it came from
  uint32_t kernel_count;
  const KernelImage* kernels;
};
inline constexpr uint32_t kModuleMagic = 0x4E42434D;  // "MCBN"

// --- the fatbinary container (real-stack.md §2.9) --------------------------------------------
// What __cudaRegisterFatBinary receives (__fatBinC_Wrapper_t) and what cuLibraryLoadData reads:
// a fatbinary header, then entries. nvcc's entries hold SASS (ELF) or PTX; minicuda's one entry
// holds a ModuleImage, the host code of the translation unit's kernels.
struct FatbinWrapper {
  int magic;                  // kFatbinWrapperMagic
  int version;                // 1
  const void* data;           // the FatbinHeader
  void* filename_or_fatbins;  // null
};
inline constexpr int kFatbinWrapperMagic = 0x466243B1;
struct FatbinHeader {
  uint32_t magic;  // kFatbinMagic
  uint16_t version;
  uint16_t header_size;  // 16
  uint64_t fat_size;     // bytes of entries after the header
};
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
struct FatbinEntry {
  uint16_t kind;  // kFatbinKindPtx, kFatbinKindElf, or minicuda's kFatbinKindHostCode
  uint16_t version;
  uint32_t header_size;  // 64: the payload follows
  uint32_t padded_payload_size;
  uint32_t unknown0;
  uint32_t payload_size;
  uint32_t unknown1, unknown2;
  uint32_t sm_version;  // 90
  uint32_t bit_width;
  uint32_t unknown3;
  uint64_t flags;
  uint64_t unknown4;
  uint64_t uncompressed_size;
};
static_assert(sizeof(FatbinEntry) == 64);
inline constexpr uint16_t kFatbinKindPtx = 1, kFatbinKindElf = 2, kFatbinKindHostCode = 0x4D43;
// One translation unit's fatbinary, as crt/host_runtime.h lays it out.
struct MinicudaFatbin {
  FatbinHeader header;
  FatbinEntry entry;
  ModuleImage module;
};

// --- what the SM provides (device_sim/src/sm.cpp); only valid inside a kernel -----------------
namespace isa {
void syncthreads();
int syncthreads_reduce(int op, int predicate);  // op: 0 count, 1 and, 2 or
void syncwarp(unsigned mask);
// mode: 0 idx, 1 up, 2 down, 3 xor
uint64_t shuffle(unsigned mask, uint64_t value, int mode, int lane_or_delta, int width);
unsigned ballot(unsigned mask, int predicate);
unsigned activemask();
[[noreturn]] void trap();
// The block's dynamic shared memory (extern __shared__).
unsigned char* dynamic_shared();
int printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Is the calling host thread running kernel code? (The runtime refuses host API calls from it.)
bool in_kernel_code();
// The SM's cycle counter (clock64): the host's monotonic clock at the device's clock rate
// (1.98 GHz on the H200), so a kernel that spins for N cycles waits about as long as on the GPU.
// Like the real counter it tells elapsed time on one SM, not the simulated timeline.
long long clock64();
}  // namespace isa

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
                     regions};
}

// The KernelImage of kernel F whose block function is G (what cu2cxx registers for a kernel it
// split): G must take exactly F's parameters, so that both read the same parameter buffer.
template <auto F, auto G>
KernelImage kernel_image_with_regions(const char* name) {
  static_assert(std::is_same_v<typename KernelTraits<F>::Layout, typename BlockFunctionTraits<G>::Layout>,
                "a block function takes its kernel's parameters");
  return kernel_image<F>(name, &BlockFunctionTraits<G>::entry);
}

}  // namespace minicuda::gpu

namespace minicuda {

// `extern __shared__ T name[];` becomes `DynamicShared<T> name;` (cu2cxx): an array view of the
// running block's dynamic shared memory.
template <class T>
struct DynamicShared {
  T* get() const { return reinterpret_cast<T*>(gpu::isa::dynamic_shared()); }
  operator T*() const { return get(); }
  T& operator[](size_t i) const { return get()[i]; }
};
// The block's dynamic shared memory as a T*, for kernels written in plain .cpp files.
template <class T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(gpu::isa::dynamic_shared());
}

}  // namespace minicuda

// --- synchronisation, warp operations ----------------------------------------------------------

inline void __syncthreads() { minicuda::gpu::isa::syncthreads(); }
inline int __syncthreads_count(int p) { return minicuda::gpu::isa::syncthreads_reduce(0, p); }
inline int __syncthreads_and(int p) { return minicuda::gpu::isa::syncthreads_reduce(1, p); }
inline int __syncthreads_or(int p) { return minicuda::gpu::isa::syncthreads_reduce(2, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { minicuda::gpu::isa::syncwarp(mask); }
inline unsigned __ballot_sync(unsigned mask, int p) { return minicuda::gpu::isa::ballot(mask, p); }
inline int __any_sync(unsigned mask, int p) { return minicuda::gpu::isa::ballot(mask, p) != 0; }
inline int __all_sync(unsigned mask, int p) {
  return minicuda::gpu::isa::ballot(mask, p) == (mask & minicuda::gpu::isa::activemask());
}
inline unsigned __activemask() { return minicuda::gpu::isa::activemask(); }

namespace minicuda::gpu::isa {
template <class T>
T shuffle_as(unsigned mask, T var, int mode, int arg, int width) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move 4- or 8-byte values");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = shuffle(mask, bits, mode, arg, width);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace minicuda::gpu::isa

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 0, src_lane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 1, static_cast<int>(delta), width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 2, static_cast<int>(delta), width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return minicuda::gpu::isa::shuffle_as(mask, var, 3, lane_mask, width);
}

// --- memory fences and atomics (global and shared memory are both host memory here) ------------

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
[[noreturn]] inline void __trap() { minicuda::gpu::isa::trap(); }
template <class T>
inline T __ldg(const T* p) { return *p; }

#define MINICUDA_ATOMIC_INT_TYPES(X) X(int) X(unsigned int) X(unsigned long long int) X(long long int)
#define MINICUDA_DEFINE_ATOMICS(T)                                                                    \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }             \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }                 \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }               \
  inline T atomicCAS(T* a, T expected, T desired) {                                                  \
    __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);   \
    return expected;                                                                                 \
  }                                                                                                  \
  inline T atomicMin(T* a, T v) {                                                                    \
    T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                                    \
    while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
    }                                                                                                \
    return old;                                                                                      \
  }                                                                                                  \
  inline T atomicMax(T* a, T v) {                                                                    \
    T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                                    \
    while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { \
    }                                                                                                \
    return old;                                                                                      \
  }
MINICUDA_ATOMIC_INT_TYPES(MINICUDA_DEFINE_ATOMICS)
#undef MINICUDA_DEFINE_ATOMICS
#undef MINICUDA_ATOMIC_INT_TYPES

inline unsigned short atomicCAS(unsigned short* a, unsigned short expected, unsigned short desired) {
  __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}
// ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1), atomically.
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0u : old + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, (old == 0 || old > limit) ? limit : old - 1, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
namespace minicuda::gpu::isa {
template <class F, class Op>
F atomic_float(F* a, Op op) {  // a CAS loop over the bits, as the hardware's float atomics behave
  using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
  Bits* word = reinterpret_cast<Bits*>(a);
  Bits old = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    F before;
    std::memcpy(&before, &old, sizeof(F));
    F after = op(before);
    Bits next;
    std::memcpy(&next, &after, sizeof(F));
    if (__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return before;
  }
}
}  // namespace minicuda::gpu::isa
inline float atomicAdd(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float x) { return x + v; });
}
inline double atomicAdd(double* a, double v) {
  return minicuda::gpu::isa::atomic_float(a, [v](double x) { return x + v; });
}
inline float atomicExch(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float) { return v; });
}
inline float atomicMin(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float x) { return v < x ? v : x; });
}
inline float atomicMax(float* a, float v) {
  return minicuda::gpu::isa::atomic_float(a, [v](float x) { return v > x ? v : x; });
}
#define MINICUDA_SCOPED_ATOMIC(name)                                                 \
  template <class T, class... A>                                                     \
  inline auto name##_block(T* a, A... v) { return name(a, v...); }                  \
  template <class T, class... A>                                                     \
  inline auto name##_system(T* a, A... v) { return name(a, v...); }
MINICUDA_SCOPED_ATOMIC(atomicAdd)
MINICUDA_SCOPED_ATOMIC(atomicSub)
MINICUDA_SCOPED_ATOMIC(atomicExch)
MINICUDA_SCOPED_ATOMIC(atomicMin)
MINICUDA_SCOPED_ATOMIC(atomicMax)
MINICUDA_SCOPED_ATOMIC(atomicCAS)
#undef MINICUDA_SCOPED_ATOMIC

// --- integer and float intrinsics ----------------------------------------------------------

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline long long clock64() { return minicuda::gpu::isa::clock64(); }
inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
// The device min/max overloads CUDA declares at global scope.
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }

// Device-side printf: in a .cu file (MINICUDA_CU_SOURCE, set by minicuda_add_executable) printf
// goes through the SM, which buffers kernel output until the host synchronises, as the real
// printf FIFO does; outside a kernel it is the C library's printf.
extern "C" int minicuda_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
#ifdef MINICUDA_CU_SOURCE
namespace std {
using ::minicuda_printf;
}
#define printf minicuda_printf
#endif

#include "minicuda/fission.h"  // what cu2cxx's block functions use
