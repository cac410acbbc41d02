// Libraries and kernels: cuLibraryLoadData and friends. A library is a fatbinary whose minicuda
// entry lists the translation unit's kernels (fatbinary.h); loading it only parses it (no
// system call, as the measured lazy loader of CUDA 13 shows in chain_full.txt). A kernel's code
// record reaches the GPU at its first use in a context: libcuda writes it into the context's
// code segment, which the GPU reads through its page tables when a QMD points at it.
#include <cstring>

#include "channel.h"
#include "libcuda.h"
#include "minicuda/trace.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace minicuda::libcuda {

CUfunc_st* find_function(const void* handle) {
  if (handle == nullptr) return nullptr;
  for (CUlib_st* lib : driver().libraries) {
    for (const auto& k : lib->kernels)
      if (static_cast<const void*>(k.get()) == handle) return k.get();
  }
  return nullptr;
}

CUresult function_code(CUctx_st& ctx, CUfunc_st& f, uint64_t* code_va) {
  CUfunc_st::Loaded& loaded = f.loaded[&ctx];
  if (loaded.epoch == ctx.epoch && loaded.code_va != 0) {
    *code_va = loaded.code_va;
    return CUDA_SUCCESS;
  }
  // The kernel may read variables - of its module, or of another one when it is a template
  // instantiated there: every loaded library's globals are placed in this context first.
  for (CUlib_st* lib : driver().libraries)
    if (CUresult r = load_globals(ctx, *lib); r != CUDA_SUCCESS) return r;
  NvMinicudaKernelCode code{};
  code.magic = NV_MINICUDA_KERNEL_CODE_MAGIC;
  code.param_bytes = f.image->param_bytes;
  code.entry = reinterpret_cast<NvU64>(f.image->entry);
  code.block_entry = reinterpret_cast<NvU64>(f.image->block_entry);
  code.region_entry = reinterpret_cast<NvU64>(f.image->region_entry);
  code.name = reinterpret_cast<NvU64>(f.image->name);
  loaded.code_va = ctx.channel->add_code(code);
  if (loaded.code_va == 0) return CUDA_ERROR_OUT_OF_MEMORY;
  loaded.epoch = ctx.epoch;
  trace::note(trace::Layer::Libcuda, "module: code record of {} at {:#x} (first use in this context)", f.image->name,
              loaded.code_va);
  *code_va = loaded.code_va;
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda

namespace {
// The ModuleImage of a fatbinary, or the error cuLibraryLoadData returns.
CUresult parse_fatbin(const void* code, const fatbin::ModuleImage** out) {
  const auto* header = static_cast<const fatbin::FatbinHeader*>(code);
  if (header->magic != fatbin::kFatbinMagic || header->header_size != sizeof(fatbin::FatbinHeader))
    return CUDA_ERROR_INVALID_IMAGE;
  const auto* at = reinterpret_cast<const uint8_t*>(header) + header->header_size;
  const auto* end = at + header->fat_size;
  bool gpu_code = false;
  while (at + sizeof(fatbin::FatbinEntry) <= end) {
    const auto* entry = reinterpret_cast<const fatbin::FatbinEntry*>(at);
    const uint8_t* payload = at + entry->header_size;
    if (entry->kind == fatbin::kFatbinKindHostCode && entry->payload_size >= sizeof(fatbin::ModuleImage)) {
      const auto* module = reinterpret_cast<const fatbin::ModuleImage*>(payload);
      if (module->magic != fatbin::kModuleMagic || module->version != 1) return CUDA_ERROR_INVALID_IMAGE;
      *out = module;
      return CUDA_SUCCESS;
    }
    gpu_code |= entry->kind == fatbin::kFatbinKindPtx || entry->kind == fatbin::kFatbinKindElf;
    uint32_t size = entry->padded_payload_size > entry->payload_size ? entry->padded_payload_size : entry->payload_size;
    if (entry->header_size == 0) break;
    at = payload + size;
  }
  return gpu_code ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_ERROR_INVALID_IMAGE;
}

CUlib_st* find_library(CUlibrary library) {
  return library != nullptr && driver().libraries.count(library) ? library : nullptr;
}
}  // namespace

// Contract: parses the fatbinary at code into a library (*library); the JIT and library options
// are accepted and ignored. NULL arguments: CUDA_ERROR_INVALID_VALUE. An image that does not
// parse: under lazy loading (the default) the library still loads, as CUDA 13 does on an H200
// (probe_bad_input.txt: a zero-filled image loads, cuLibraryGetKernel then answers
// CUDA_ERROR_INVALID_IMAGE, and it unloads); with CUDA_MODULE_LOADING=EAGER the load itself
// fails with the parse's error.
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**, unsigned int, CUlibraryOption*,
                           void**, unsigned int) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryLoadData(code={})", code);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (library == nullptr || code == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const fatbin::ModuleImage* module = nullptr;
  auto lib = std::make_unique<CUlib_st>();
  if (CUresult r = parse_fatbin(code, &module); r != CUDA_SUCCESS) {
    if (driver().loading_mode == CU_MODULE_EAGER_LOADING) return done(scope, r);
    trace::note(trace::Layer::Libcuda, "module: not an image minicuda can run ({}); lazy loading reports it at "
                "the first cuLibraryGetKernel", result_name(r));
    lib->image_error = r;
    *library = lib.get();
    driver().libraries.insert(lib.release());
    return done(scope, CUDA_SUCCESS);
  }
  lib->module = module;
  for (uint32_t i = 0; i < module->kernel_count; ++i) {
    auto k = std::make_unique<CUkern_st>();
    k->image = &module->kernels[i];
    k->library = lib.get();
    lib->kernels.push_back(std::move(k));
  }
  trace::note(trace::Layer::Libcuda, "module: library of {} with {} kernel(s)", module->source, module->kernel_count);
  *library = lib.get();
  driver().libraries.insert(lib.release());
  return done(scope, CUDA_SUCCESS);
}

// Contract: forgets the library and its kernels (their handles become invalid). Unknown
// library: CUDA_ERROR_INVALID_HANDLE.
CUresult cuLibraryUnload(CUlibrary library) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryUnload(library={})", static_cast<void*>(library));
  std::lock_guard lock(driver_mutex());
  CUlib_st* lib = find_library(library);
  if (lib == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  driver().libraries.erase(lib);
  delete lib;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pKernel = the kernel called name in library. NULL arguments:
// CUDA_ERROR_INVALID_VALUE (a NULL library too, as the H200 answers); unknown library:
// CUDA_ERROR_INVALID_HANDLE; a library whose image did not parse: that error; no such kernel:
// CUDA_ERROR_NOT_FOUND.
CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryGetKernel(name={})", name ? name : "(null)");
  std::lock_guard lock(driver_mutex());
  if (pKernel == nullptr || name == nullptr || library == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUlib_st* lib = find_library(library);
  if (lib == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (lib->image_error != CUDA_SUCCESS) return done(scope, lib->image_error);
  for (const auto& k : lib->kernels) {
    if (std::strcmp(k->image->name, name) == 0) {
      *pKernel = k.get();
      return done(scope, CUDA_SUCCESS);
    }
  }
  return done(scope, CUDA_ERROR_NOT_FOUND);
}

// Contract: *name = the kernel's name (as written in its source). NULL name:
// CUDA_ERROR_INVALID_VALUE; unknown kernel: CUDA_ERROR_INVALID_HANDLE.
CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
  trace::Scope scope(trace::Layer::Libcuda, "cuKernelGetName(kernel={})", static_cast<void*>(hfunc));
  std::lock_guard lock(driver_mutex());
  if (name == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(hfunc);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  *name = f->image->name;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pFunc = the kernel's function in the current context, its code record written into
// the context's code segment if this is its first use there. CUDA_ERROR_INVALID_VALUE (NULL),
// CUDA_ERROR_INVALID_HANDLE (unknown kernel), CUDA_ERROR_INVALID_CONTEXT, or the sticky error;
// a full code segment (more than Channel::kCodeSlots kernels): CUDA_ERROR_OUT_OF_MEMORY.
CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
  trace::Scope scope(trace::Layer::Libcuda, "cuKernelGetFunction(kernel={})", static_cast<void*>(kernel));
  std::lock_guard lock(driver_mutex());
  if (pFunc == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(kernel);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  uint64_t code_va = 0;
  if (CUresult r = function_code(*ctx, *f, &code_va); r != CUDA_SUCCESS) return done(scope, r);
  *pFunc = f;
  return done(scope, CUDA_SUCCESS);
}
