// Kernels in the runtime: the registration ABI nvcc's host code calls (crt/host_runtime.h), the
// <<<>>> configuration stack, lazy module loading and cudaLaunchKernel.
//
// Registration only records: which fatbinary each host function's kernel lives in, under which
// name. The first launch of any kernel of a module loads the module - cuLibraryLoadData of its
// fatbinary, cuLibraryGetKernel for the kernel - and every launch then calls cuKernelGetName
// and, inside cudaLaunchKernel, cuLaunchKernel: the chain chain_cupti.txt shows for CUDA 13
// ("kernel launch vector_add<<<256,256>>>"), where the loading calls come before the runtime
// call's own scope.
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cudart.h"
#include "graph.h"
#include "minicuda/syscall.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

// Registration describes the executable, so it is shared by every simulated process; what the
// driver loaded belongs to one process (libcuda is per process), so it is kept by pid.
struct Module {
  const fatbin::FatbinWrapper* wrapper = nullptr;
  std::map<int, CUlibrary> library;  // by pid: loaded at the process's first launch
  bool registered = true;            // false after __cudaUnregisterFatBinary
  // The kernel images of a module this runtime built (ModuleRegistration), with their host
  // functions: a template kernel's block function, recorded at static initialization
  // (crt::RegionLink), may come after its instantiation's start-up registration built the image.
  fatbin::KernelImage* images = nullptr;
  const void* const* host_functions = nullptr;
  size_t image_count = 0;
  std::map<int, std::string> linked;  // by pid: the image link_relocatable made of the module
};

struct Function {
  Module* module = nullptr;
  std::string name;
  std::map<int, CUkernel> kernel;  // by pid: cuLibraryGetKernel's, once loaded
};

struct Variable {
  Module* module = nullptr;
  std::string name;
  size_t size = 0;
};

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Module>> modules;
  std::map<const void*, Function> functions;  // by host function
  std::map<const void*, Variable> variables;  // by host shadow
};
Registry& registry() {
  static auto* r = new Registry;  // never destroyed: kernels may launch from static destructors
  return *r;
}

struct LaunchConfig {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
};
thread_local std::vector<LaunchConfig> t_configs;  // the <<<>>> stack (push, then the stub pops)

// nvcc -rdc=true: the wrapper (version 2) lists in filename_or_fatbins each translation unit's
// fatbinary, NULL-terminated (crt/link.stub's __cudaPrelinkedFatbins), whose device code is
// linked when the module loads. The simulator runs PTX, not the device-linked SASS of `data`, so
// the runtime links the units' PTX with libcuda's linker: one cuLinkAddData of each fatbinary,
// cuLinkComplete, and the linked image is the module's. A unit with no PTX for the device (the
// device runtime's library carries SASS, and PTX only for the newest GPU) is left out; if another
// unit calls into it, the completion names the missing function. False (and nothing kept) when
// there is no list or the link fails; the caller then loads `data` as it is.
bool link_relocatable(Module& m, std::string* image) {
  const auto* units = static_cast<void* const*>(m.wrapper->filename_or_fatbins);
  if (m.wrapper->version != 2 || units == nullptr || units[0] == nullptr) return false;
  std::vector<bool> left_out;
  for (size_t i = 0; units[i] != nullptr; ++i) left_out.push_back(false);
  for (;;) {  // each pass leaves out one more unit without PTX for the device, or ends
    CUlinkState link = nullptr;
    if (cuLinkCreate(0, nullptr, nullptr, &link) != CUDA_SUCCESS) return false;
    CUresult added = CUDA_SUCCESS;
    size_t i = 0;
    for (; i < left_out.size() && added == CUDA_SUCCESS; ++i) {
      if (left_out[i]) continue;
      const auto* header = static_cast<const fatbin::FatbinHeader*>(units[i]);
      const size_t size = header->magic == fatbin::kFatbinMagic ? header->header_size + header->fat_size : 0;
      added = size == 0 ? CUDA_ERROR_INVALID_IMAGE
                        : cuLinkAddData(link, CU_JIT_INPUT_FATBINARY, units[i], size,
                                        fmt::format("translation unit {}", i).c_str(), 0, nullptr, nullptr);
    }
    void* linked = nullptr;
    size_t size = 0;
    const bool ok = added == CUDA_SUCCESS && cuLinkComplete(link, &linked, &size) == CUDA_SUCCESS;
    if (ok) image->assign(static_cast<const char*>(linked), size);
    (void)cuLinkDestroy(link);
    if (added != CUDA_ERROR_NO_BINARY_FOR_GPU) return ok;
    left_out[i - 1] = true;
  }
}

// The library of module m in this process, loaded at first use. Caller holds the registry lock.
cudaError_t library_of(Module& m, CUlibrary* out) {
  CUlibrary& library = m.library[kernel::vdso_getpid()];
  if (library == nullptr) {
    // Before the driver reads the images: the block functions recorded since they were built.
    for (size_t i = 0; i < m.image_count; ++i)
      if (m.images[i].region_entry == nullptr) m.images[i].region_entry = crt::linked_regions(m.host_functions[i]);
    std::string& linked = m.linked[kernel::vdso_getpid()];
    const void* image = link_relocatable(m, &linked) ? static_cast<const void*>(linked.data()) : m.wrapper->data;
    CUresult res = cuLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (res != CUDA_SUCCESS) return to_cuda_error(res);
  }
  *out = library;
  return cudaSuccess;
}

// The loaded kernel of func: loads its module at first use. As CUDA 13 answers on an H200
// (tests/data/h200/probe_bad_input.txt): cudaErrorInvalidDeviceFunction for NULL, and
// cudaErrorInvalidResourceHandle for a host function no kernel was registered for.
cudaError_t kernel_of(const void* func, CUkernel* out) {
  if (func == nullptr) return cudaErrorInvalidDeviceFunction;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.functions.find(func);
  if (it == r.functions.end()) return cudaErrorInvalidResourceHandle;
  if (!it->second.module->registered) return cudaErrorInvalidDeviceFunction;
  Function& f = it->second;
  const int pid = kernel::vdso_getpid();
  CUkernel& kernel = f.kernel[pid];
  if (kernel == nullptr) {
    CUlibrary library = nullptr;
    if (cudaError_t e = library_of(*f.module, &library); e != cudaSuccess) return e;
    // Kernels may read the variables of any module (a template kernel is registered in a module
    // of its own): every module with variables is loaded too, so the driver places them.
    for (const auto& m : r.modules) {
      CUlibrary other = nullptr;
      if (m->registered && is_minicuda_fatbin(m->wrapper) &&
          static_cast<const fatbin::MinicudaFatbin*>(m->wrapper->data)->module.variable_count != 0)
        (void)library_of(*m, &other);
    }
    if (CUresult res = cuLibraryGetKernel(&kernel, library, f.name.c_str()); res != CUDA_SUCCESS)
      return res == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidDeviceFunction : to_cuda_error(res);
  }
  *out = kernel;
  return cudaSuccess;
}

}  // namespace

namespace minicuda::cudart {
bool is_minicuda_fatbin(const void* wrapper) {
  const auto* w = static_cast<const fatbin::FatbinWrapper*>(wrapper);
  if (w == nullptr || w->magic != fatbin::kFatbinWrapperMagic || w->data == nullptr) return false;
  const auto* bin = static_cast<const fatbin::MinicudaFatbin*>(w->data);
  return bin->header.magic == fatbin::kFatbinMagic && bin->header.fat_size >= sizeof(fatbin::FatbinEntry) &&
         bin->entry.kind == fatbin::kFatbinKindHostCode && bin->module.magic == fatbin::kModuleMagic;
}

cudaError_t registered_kernel(const void* func) {
  if (func == nullptr) return cudaErrorInvalidDeviceFunction;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.functions.find(func);
  if (it == r.functions.end()) return cudaErrorInvalidResourceHandle;
  return it->second.module->registered ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

cudaError_t library_of_module(void** handle, CUlibrary* library) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& m : r.modules)
    if (reinterpret_cast<void**>(m.get()) == handle)
      return m->registered ? library_of(*m, library) : cudaErrorInvalidResourceHandle;
  return cudaErrorInvalidResourceHandle;
}

cudaError_t symbol_of(const void* symbol, CUdeviceptr* dptr, size_t* size) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = symbol == nullptr ? r.variables.end() : r.variables.find(symbol);
  if (it == r.variables.end() || !it->second.module->registered) return cudaErrorInvalidSymbol;
  CUlibrary library = nullptr;
  if (cudaError_t e = library_of(*it->second.module, &library); e != cudaSuccess) return e;
  if (CUresult res = cuLibraryGetGlobal(dptr, nullptr, library, it->second.name.c_str()); res != CUDA_SUCCESS)
    return res == CUDA_ERROR_NOT_FOUND ? cudaErrorInvalidSymbol : to_cuda_error(res);
  *size = it->second.size;
  return cudaSuccess;
}

// The lazy initialisation, then func's kernel (its module loaded at first use).
cudaError_t context_and_kernel(const void* func, CUkernel* kernel) {
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return e;
  return kernel_of(func, kernel);
}
}  // namespace minicuda::cudart

namespace minicuda::detail {

std::string kernel_display_name(const char* text) {
  std::string s(text);
  if (size_t at = s.find("F = "); at != std::string::npos) {  // GCC's __PRETTY_FUNCTION__
    s = s.substr(at + 4);
    if (size_t end = s.rfind(']'); end != std::string::npos) s.resize(end);
    if (size_t semi = s.find(';'); semi != std::string::npos) s.resize(semi);
  }
  if (s.rfind("::", 0) == 0) s = s.substr(2);
  if (!s.empty() && s[0] == '&') s = s.substr(1);
  return s;
}

ModuleRegistration::ModuleRegistration(const char* source, std::vector<ModuleEntry> entries, uint32_t flags)
    : source_(source) {
  for (ModuleEntry& e : entries) {
    if (auto* k = std::get_if<ModuleKernel>(&e)) kernels_.push_back(*k);
    else variables_.push_back(std::get<ModuleVariable>(e));
  }
  for (const ModuleVariable& v : variables_) {
    variable_names_.push_back(kernel_display_name(v.image.name));
    const auto* bytes = static_cast<const unsigned char*>(v.host_variable);
    initializers_.emplace_back(bytes, bytes + v.image.size);  // the static initializer's image
  }
  for (size_t i = 0; i < variables_.size(); ++i) {
    variable_images_.push_back(variables_[i].image);
    variable_images_.back().name = variable_names_[i].c_str();
    variable_images_.back().initializer = initializers_[i].data();
  }
  names_.reserve(kernels_.size());
  for (const ModuleKernel& k : kernels_) names_.push_back(kernel_display_name(k.image.name));
  for (size_t i = 0; i < kernels_.size(); ++i) {
    images_.push_back(kernels_[i].image);
    images_.back().name = names_[i].c_str();
  }
  fatbin_.header = {fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader), sizeof(fatbin::FatbinEntry) + sizeof(fatbin::ModuleImage)};
  fatbin_.entry.kind = fatbin::kFatbinKindHostCode;
  fatbin_.entry.version = 0x0101;
  fatbin_.entry.header_size = sizeof(fatbin::FatbinEntry);
  fatbin_.entry.payload_size = sizeof(fatbin::ModuleImage);
  fatbin_.entry.sm_version = 90;
  fatbin_.entry.bit_width = 64;
  fatbin_.module = {fatbin::kModuleMagic, 1, source_.c_str(), static_cast<uint32_t>(images_.size()), images_.data(),
                    static_cast<uint32_t>(variable_images_.size()), variable_images_.data(), flags};
  wrapper_ = {fatbin::kFatbinWrapperMagic, 1, &fatbin_, nullptr};
  void** handle = __cudaRegisterFatBinary(&wrapper_);
  host_functions_.reserve(kernels_.size());
  for (const ModuleKernel& k : kernels_) host_functions_.push_back(k.host_function);
  {
    std::lock_guard lock(registry().mutex);
    Module* m = reinterpret_cast<Module*>(handle);
    m->images = images_.data();
    m->host_functions = host_functions_.data();
    m->image_count = images_.size();
  }
  for (size_t i = 0; i < kernels_.size(); ++i) {
    __cudaRegisterFunction(handle, static_cast<const char*>(kernels_[i].host_function),
                           const_cast<char*>(names_[i].c_str()), names_[i].c_str(), -1, nullptr, nullptr, nullptr,
                           nullptr, nullptr);
  }
  for (size_t i = 0; i < variables_.size(); ++i) {
    const fatbin::VariableImage& v = variable_images_[i];
    __cudaRegisterVar(handle, static_cast<char*>(const_cast<void*>(variables_[i].host_variable)),
                      const_cast<char*>(v.name), v.name, 0, v.size, static_cast<int>(v.constant), 0);
  }
  __cudaRegisterFatBinaryEnd(handle);
}

}  // namespace minicuda::detail

// --- the registration ABI (contracts: crt/host_runtime.h) ------------------------------------

void** __cudaRegisterFatBinary(void* fatCubin) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto m = std::make_unique<Module>();
  m->wrapper = static_cast<const fatbin::FatbinWrapper*>(fatCubin);
  // nvcc's fatbinary (PTX and ELF entries) is handed to cuLibraryLoadData unchanged at the first
  // launch, as minicuda's own is; only its registration is traced (nvcc_abi.cpp).
  if (!is_minicuda_fatbin(fatCubin)) trace_nvcc_fatbin(fatCubin);
  r.modules.push_back(std::move(m));
  return reinterpret_cast<void**>(r.modules.back().get());
}

void __cudaRegisterFatBinaryEnd(void**) {}

void __cudaUnregisterFatBinary(void** handle) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  reinterpret_cast<Module*>(handle)->registered = false;
}

void __cudaRegisterFunction(void** handle, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*,
                            dim3*, dim3*, int*) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  // The first registration of a host function wins (a kernel registered at start-up and again
  // by its first launch keeps its module).
  r.functions.emplace(static_cast<const void*>(hostFun), Function{reinterpret_cast<Module*>(handle), deviceName, {}});
}

void __cudaRegisterVar(void** handle, char* hostVar, char*, const char* deviceName, int, size_t size, int, int) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.variables.emplace(static_cast<const void*>(hostVar), Variable{reinterpret_cast<Module*>(handle), deviceName, size});
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st* stream) {
  t_configs.push_back(LaunchConfig{gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  if (t_configs.empty()) return cudaErrorMissingConfiguration;
  LaunchConfig c = t_configs.back();
  t_configs.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

// --- launches (contracts: cuda_runtime_api.h) -------------------------------------------------

namespace minicuda::cudart {
cudaError_t launch_kernel(const char* api, DefaultStream mode, const void* func, dim3 gridDim, dim3 blockDim,
                          void** args, size_t sharedMem, cudaStream_t stream) {
  // Lazy loading and cuKernelGetName come before the runtime call's own scope (chain_cupti.txt).
  CUkernel kernel = nullptr;
  cudaError_t loaded = context_and_kernel(func, &kernel);
  const char* name = nullptr;
  if (loaded == cudaSuccess) (void)cuKernelGetName(&name, kernel);
  // The name as it is (no copy: a template kernel's name is long); the address only without one.
  const std::string unnamed = name != nullptr ? std::string() : fmt::format("{}", func);
  const std::string_view shown = name != nullptr ? std::string_view(name) : std::string_view(unnamed);
  trace::Scope scope(trace::Layer::Cudart, "{}(func={}, grid=({},{},{}), block=({},{},{}), sharedMem={}, stream={})",
                     api, shown, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z,
                     sharedMem, static_cast<void*>(stream));
  if (loaded != cudaSuccess) return done(scope, loaded);
  // capture hook
  if (auto e = graph::capture_kernel(func, gridDim, blockDim, args, sharedMem, stream)) return done(scope, *e);
  auto f = reinterpret_cast<CUfunction>(kernel);
  auto shared = static_cast<unsigned>(sharedMem);
  CUresult r = mode == DefaultStream::Legacy
                   ? cuLaunchKernel(f, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z, shared,
                                    stream, args, nullptr)
                   : cuLaunchKernel_ptsz(f, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z,
                                         shared, stream, args, nullptr);
  return done(scope, to_cuda_error(r));
}
}  // namespace minicuda::cudart

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                             cudaStream_t stream) {
  return launch_kernel("cudaLaunchKernel", DefaultStream::Legacy, func, gridDim, blockDim, args, sharedMem, stream);
}
cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                  cudaStream_t stream) {
  return launch_kernel("cudaLaunchKernel_ptsz", DefaultStream::PerThread, func, gridDim, blockDim, args, sharedMem,
                       stream);
}

namespace {
// cudaLaunchCooperativeKernel and cudaLaunchKernelExC: api names the call in the trace; a
// cooperative launch goes to cuLaunchCooperativeKernel, another to cuLaunchKernel.
cudaError_t launch_kernel_as(const char* api, const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, cudaStream_t stream, bool cooperative,
                             const cudaLaunchAttribute* cluster = nullptr) {
  CUkernel kernel = nullptr;
  cudaError_t loaded = context_and_kernel(func, &kernel);
  const char* name = nullptr;
  if (loaded == cudaSuccess) (void)cuKernelGetName(&name, kernel);
  std::string shown = name != nullptr ? std::string(name) : fmt::format("{}", func);
  trace::Scope scope(trace::Layer::Cudart, "{}(func={}, grid=({},{},{}), block=({},{},{}), sharedMem={}, stream={}{})",
                     api, shown, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z, sharedMem,
                     static_cast<void*>(stream), cooperative ? ", cooperative" : "");
  if (loaded != cudaSuccess) return done(scope, loaded);
  auto f = reinterpret_cast<CUfunction>(kernel);
  const auto shared = static_cast<unsigned>(sharedMem);
  if (cluster != nullptr) {  // a cluster shape: only cuLaunchKernelEx carries one
    CUlaunchAttribute attrs[2] = {};
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[0].value.clusterDim.x = cluster->val.clusterDim.x;
    attrs[0].value.clusterDim.y = cluster->val.clusterDim.y;
    attrs[0].value.clusterDim.z = cluster->val.clusterDim.z;
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[1].value.cooperative = cooperative ? 1 : 0;
    CUlaunchConfig c{};
    c.gridDimX = gridDim.x, c.gridDimY = gridDim.y, c.gridDimZ = gridDim.z;
    c.blockDimX = blockDim.x, c.blockDimY = blockDim.y, c.blockDimZ = blockDim.z;
    c.sharedMemBytes = shared;
    c.hStream = stream;
    c.attrs = attrs;
    c.numAttrs = 2;
    return done(scope, to_cuda_error(cuLaunchKernelEx(&c, f, args, nullptr)));
  }
  CUresult r = cooperative ? cuLaunchCooperativeKernel(f, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y,
                                                       blockDim.z, shared, stream, args)
                           : cuLaunchKernel(f, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y, blockDim.z,
                                            shared, stream, args, nullptr);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                        cudaStream_t stream) {
  return launch_kernel_as("cudaLaunchCooperativeKernel", func, gridDim, blockDim, args, sharedMem, stream, true);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  bool cooperative = false;
  const cudaLaunchAttribute* cluster = nullptr;
  if (config != nullptr && (config->numAttrs == 0 || config->attrs != nullptr)) {
    for (unsigned i = 0; i < config->numAttrs; ++i) {
      const cudaLaunchAttribute& a = config->attrs[i];
      if (a.id == cudaLaunchAttributeIgnore) continue;
      if (a.id == cudaLaunchAttributeCooperative) {
        cooperative = a.val.cooperative != 0;
        continue;
      }
      if (a.id == cudaLaunchAttributeClusterDimension) {  // checked by the driver with the launch
        cluster = &a;
        continue;
      }
      trace::Scope scope(trace::Layer::Cudart, "cudaLaunchKernelExC(func={}, attrs[{}].id={})", func, i,
                         static_cast<int>(a.id));
      // Known attributes minicuda does not model; unknown ids are invalid.
      const bool known = static_cast<int>(a.id) > 0 && static_cast<int>(a.id) <= 16 && static_cast<int>(a.id) != 15;
      trace::note(trace::Layer::Cudart, "cudaLaunchKernelExC: launch attribute {} is {}", static_cast<int>(a.id),
                  known ? "not supported by minicuda" : "not a launch attribute");
      return done(scope, known ? cudaErrorNotSupported : cudaErrorInvalidValue);
    }
  } else {
    trace::Scope scope(trace::Layer::Cudart, "cudaLaunchKernelExC(config={}, func={})", static_cast<const void*>(config),
                       func);
    return done(scope, cudaErrorInvalidValue);
  }
  return launch_kernel_as("cudaLaunchKernelExC", func, config->gridDim, config->blockDim, args,
                          config->dynamicSmemBytes, config->stream, cooperative, cluster);
}
