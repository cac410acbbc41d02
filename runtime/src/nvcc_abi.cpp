// The part of CUDA 13's hidden runtime ABI that only host code compiled by NVIDIA's nvcc calls
// (crt/host_runtime.h; docs/nvcc-programs.md): the kernel handle and launch of nvcc's launch
// code (__cudaGetKernel, __cudaLaunchKernel, __cudaLaunchKernel_ptsz), managed variables
// (__cudaRegisterManagedVar, __cudaInitModule), and the trace of a registered nvcc fatbinary.
//
// What nvcc's launch code does for k<<<g, b, s, st>>>(args): once per kernel,
// __cudaGetKernel(&handle, k); then per launch __cudaPushCallConfiguration,
// __cudaPopCallConfiguration and __cudaLaunchKernel(handle, g, b, args, s, st) (the _ptsz twin
// when compiled with --default-stream per-thread). minicuda's handle names the registration of
// the host function, not a loaded kernel: under lazy loading the module is loaded at the first
// launch, so every launch answers with what loading and launching answered (the same path as
// cudaLaunchKernel of the host function).
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

// The managed variables of each registered fatbinary, by handle.
struct ManagedVariable {
  void** host_pointer;  // where nvcc's host code reads the variable's address
  std::string name;
  size_t size;
  bool bound = false;
  cudaError_t error = cudaSuccess;  // why it has managed memory of its own, when it has
};
struct ManagedRegistry {
  std::mutex mutex;
  std::map<void**, std::vector<ManagedVariable>> by_module;
};
ManagedRegistry& managed_registry() {
  static auto* r = new ManagedRegistry;  // never destroyed: modules unregister from atexit handlers
  return *r;
}

// The handle __cudaGetKernel gives for a host function, and back.
cudaKernel_t handle_of(const void* host_function) {
  return reinterpret_cast<cudaKernel_t>(const_cast<void*>(host_function));
}
const void* host_function_of(cudaKernel_t kernel) { return reinterpret_cast<const void*>(kernel); }

const char* entry_kind_name(uint16_t kind) {
  switch (kind) {
    case fatbin::kFatbinKindPtx: return "PTX";
    case fatbin::kFatbinKindElf: return "ELF";
    case fatbin::kFatbinKindHostCode: return "host code";
    default: return "unknown";
  }
}

}  // namespace

namespace minicuda::cudart {

// The trace of a fatbinary nvcc built, at its registration: one line per entry (kind, target,
// size), read from the headers only. libcuda reads the whole container at cuLibraryLoadData.
void trace_nvcc_fatbin(const void* wrapper) {
  if (!trace::enabled(trace::Layer::Cudart)) return;
  const auto* w = static_cast<const fatbin::FatbinWrapper*>(wrapper);
  if (w == nullptr || w->magic != fatbin::kFatbinWrapperMagic || w->data == nullptr) {
    trace::note(trace::Layer::Cudart, "__cudaRegisterFatBinary: wrapper {} is not a fatbinary wrapper", wrapper);
    return;
  }
  const auto* header = static_cast<const fatbin::FatbinHeader*>(w->data);
  if (header->magic != fatbin::kFatbinMagic) {
    trace::note(trace::Layer::Cudart, "__cudaRegisterFatBinary: data {} is not a fatbinary (magic {:#x})", w->data,
                header->magic);
    return;
  }
  trace::note(trace::Layer::Cudart, "__cudaRegisterFatBinary: nvcc fatbinary at {}, {} bytes of entries", w->data,
              header->fat_size);
  const auto* base = static_cast<const unsigned char*>(w->data) + header->header_size;
  for (uint64_t at = 0; at + sizeof(fatbin::FatbinEntry) <= header->fat_size;) {
    fatbin::FatbinEntry e;
    std::memcpy(&e, base + at, sizeof e);
    trace::note(trace::Layer::Cudart, "  entry: {} for sm_{}, {} bytes{}", entry_kind_name(e.kind), e.sm_version,
                e.padded_payload_size, e.uncompressed_size != 0 ? " (compressed)" : "");
    const uint64_t step = static_cast<uint64_t>(e.header_size) + e.padded_payload_size;
    if (step == 0) break;
    at += step;
  }
}

}  // namespace minicuda::cudart

// --- the hidden ABI (contracts: crt/host_runtime.h) -------------------------------------------

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun) {
  trace::Scope scope(trace::Layer::Cudart, "__cudaGetKernel(kernel={}, hostFun={})", static_cast<void*>(kernel),
                     hostFun);
  cudaError_t e = kernel == nullptr ? cudaErrorInvalidValue : registered_kernel(hostFun);
  if (e == cudaSuccess) *kernel = handle_of(hostFun);
  // A hidden call: its answer reaches nvcc's launch code, not the last-error slot (the launch
  // that follows reports the error).
  if (scope.active()) scope.result("{}", error_name(e));
  return e;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                               struct CUstream_st* stream) {
  return launch_kernel("__cudaLaunchKernel", DefaultStream::Legacy, host_function_of(kernel), gridDim, blockDim, args,
                       sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                    struct CUstream_st* stream) {
  return launch_kernel("__cudaLaunchKernel_ptsz", DefaultStream::PerThread, host_function_of(kernel), gridDim,
                       blockDim, args, sharedMem, stream);
}

void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char*, const char* deviceName, int,
                              size_t size, int, int) {
  if (fatCubinHandle == nullptr || hostVarPtrAddress == nullptr || deviceName == nullptr) return;
  ManagedRegistry& r = managed_registry();
  std::lock_guard lock(r.mutex);
  r.by_module[fatCubinHandle].push_back(ManagedVariable{hostVarPtrAddress, deviceName, size});
}

namespace {

// Binds the managed variables of a module: each host pointer gets the variable's device address
// (cuLibraryGetGlobal), which the host can dereference (device memory is mapped in the process's
// unified address space). A variable the module cannot give (the module did not load, or has no
// image minicuda runs) gets managed memory of its own (cuMemAllocManaged) instead, so that host
// code reading it does not dereference null; no kernel of that module can run. Returns
// cudaSuccess when every variable is the module's, else the first error. Caller holds the
// registry's mutex.
cudaError_t bind_managed(std::vector<ManagedVariable>& variables, CUlibrary library, cudaError_t load) {
  cudaError_t result = load;
  for (ManagedVariable& v : variables) {
    if (v.bound) {
      if (result == cudaSuccess) result = v.error;
      continue;
    }
    CUdeviceptr address = 0;
    size_t bytes = 0;
    cudaError_t e = load;
    if (library != nullptr) e = to_cuda_error(cuLibraryGetGlobal(&address, &bytes, library, v.name.c_str()));
    if (e != cudaSuccess) {
      if (result == cudaSuccess) result = e;
      if (cuMemAllocManaged(&address, v.size, CU_MEM_ATTACH_GLOBAL) != CUDA_SUCCESS) continue;
      trace::note(trace::Layer::Cudart, "__cudaInitModule: the module has no {} ({}): {} bytes of managed memory of its "
                  "own at {:#x}", v.name, error_name(e), v.size, address);
    }
    *v.host_pointer = reinterpret_cast<void*>(address);
    v.bound = true;
    v.error = e;
  }
  return result;
}

}  // namespace

char __cudaInitModule(void** fatCubinHandle) {
  trace::Scope scope(trace::Layer::Cudart, "__cudaInitModule(fatCubinHandle={})", static_cast<void*>(fatCubinHandle));
  cudaError_t e = ensure_context();
  if (e == cudaSuccess) {
    CUlibrary library = nullptr;
    e = library_of_module(fatCubinHandle, &library);
    ManagedRegistry& r = managed_registry();
    std::lock_guard lock(r.mutex);
    if (auto it = r.by_module.find(fatCubinHandle); it != r.by_module.end())
      e = bind_managed(it->second, e == cudaSuccess ? library : nullptr, e);
  }
  // A hidden call: nvcc's host code ignores the answer, which does not reach the last-error slot.
  if (scope.active()) scope.result("{}", error_name(e));
  return e == cudaSuccess ? 1 : 0;
}
