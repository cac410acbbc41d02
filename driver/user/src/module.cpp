// Libraries and kernels: cuLibraryLoadData and friends. A library is a fatbinary whose minicuda
// entry lists the translation unit's kernels (fatbinary.h); loading it only parses it (no
// system call, as the measured lazy loader of CUDA 13 shows in chain_full.txt). A kernel's code
// record reaches the GPU at its first use in a context: libcuda writes it into the context's
// code segment, which the GPU reads through its page tables when a QMD points at it.
#include <cstring>

#include "channel.h"
#include "image.h"
#include "jit.h"
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
  if (f.ptx != nullptr) {
    // A PTX kernel: its SASS with the module variables' addresses in this context bound into the
    // program's symbol table; the SM's SIMT executor runs it.
    const CUlib_st& lib = *f.library;
    const auto& globals = lib.jit->result.globals;
    std::vector<uint64_t> addresses;
    for (const std::string& name : f.ptx->symbols) {
      uint64_t va = 0;
      for (size_t i = 0; i < globals.size(); ++i)
        if (globals[i].name == name) va = lib.globals.at(&ctx).address[i];
      addresses.push_back(va);
    }
    loaded.sass = bind_program(*f.ptx, addresses);
    if (loaded.sass == nullptr) {
      trace::note(trace::Layer::Libcuda, "module: {} has no SASS the SMs can run", f.image->name);
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    code.sass = reinterpret_cast<NvU64>(loaded.sass.get());
  }
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
CUlib_st* find_library(CUlibrary library) {
  return library != nullptr && driver().libraries.count(library) ? library : nullptr;
}

// cuLibraryLoadData and cuLibraryLoadFromFile, once the image is in memory.
CUresult load_library(trace::Scope& scope, CUlibrary* library, const void* code, CUjit_option* options, void** values,
                      unsigned n) {
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (library == nullptr || code == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const DeviceInfo* dev = device_info(0);
  JitOptions jit;
  if (CUresult r = read_jit_options(n, options, values, dev ? dev->major * 10 + dev->minor : 90, &jit);
      r != CUDA_SUCCESS)
    return done(scope, r);
  auto lib = std::make_unique<CUlib_st>();
  std::string error_log, info_log;
  CUresult r = load_image(code, jit, *lib, &error_log, &info_log);
  if (n != 0) write_jit_logs(jit, values, error_log, info_log, 0.0f);
  if (r != CUDA_SUCCESS) {
    if (driver().loading_mode == CU_MODULE_EAGER_LOADING) return done(scope, r);
    trace::note(trace::Layer::Libcuda, "module: not an image minicuda can run ({}); lazy loading reports it at "
                "the first cuLibraryGetKernel", result_name(r));
    lib = std::make_unique<CUlib_st>();
    lib->image_error = r;
  } else {
    trace::note(trace::Layer::Libcuda, "module: library of {} with {} kernel(s)", lib->module->source,
                lib->module->kernel_count);
  }
  *library = lib.get();
  driver().libraries.insert(lib.release());
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

// Contract: reads the image at code into a library (*library): minicuda's fatbinary (C++ kernels),
// or PTX - as text, in a real fatbinary, or in minicuda's linked ELF - compiled by the JIT
// (jit.cpp) with jitOptions; the library options are accepted and ignored. NULL arguments:
// CUDA_ERROR_INVALID_VALUE. An image that does not load: under lazy loading (the default) the
// library still loads, as CUDA 13 does on an H200 (probe_bad_input.txt: a zero-filled image loads,
// cuLibraryGetKernel then answers CUDA_ERROR_INVALID_IMAGE; probe_module.txt library.bad_ptx:
// bad PTX loads too), and its error is what cuLibraryGetKernel returns; with
// CUDA_MODULE_LOADING=EAGER the load itself fails with it.
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions, void** jitOptionsValues,
                           unsigned int numJitOptions, CUlibraryOption*, void**, unsigned int) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryLoadData(code={})", code);
  std::lock_guard lock(driver_mutex());
  return load_library(scope, library, code, jitOptions, jitOptionsValues, numJitOptions);
}

// Contract: as cuLibraryLoadData, from a file. NULL arguments: CUDA_ERROR_INVALID_VALUE; a missing
// file: CUDA_ERROR_FILE_NOT_FOUND; a directory: CUDA_ERROR_OUT_OF_MEMORY (cuModuleLoad's answers).
CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option* jitOptions,
                               void** jitOptionsValues, unsigned int numJitOptions, CUlibraryOption*, void**,
                               unsigned int) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryLoadFromFile(fileName={})", fileName ? fileName : "(null)");
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (library == nullptr || fileName == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  std::string bytes;
  if (CUresult r = read_image_file(fileName, &bytes); r != CUDA_SUCCESS) return done(scope, r);
  if (image::select(bytes.data(), 90).host != nullptr) {
    trace::note(trace::Layer::Libcuda, "module: minicuda's fatbinary holds host pointers: it cannot come from a file");
    return done(scope, CUDA_ERROR_INVALID_IMAGE);
  }
  return load_library(scope, library, bytes.data(), jitOptions, jitOptionsValues, numJitOptions);
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
