// Modules: cuModuleLoad* and the lookups in a module. A module is a library (module.cpp) made
// eagerly in the current context: its image is read and its PTX compiled at the load (jit.cpp),
// so a bad image fails the load itself, with the JIT's logs in the caller's buffers. It holds C++
// kernels (minicuda's fatbinary) or PTX kernels; a launch runs whichever its function has.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

#include "jit.h"
#include "libcuda.h"
#include "minicuda/trace.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {

// The loaded module `hmod` names, or null.
CUlib_st* find_module(CUmodule hmod) {
  if (hmod == nullptr) return nullptr;
  auto* lib = reinterpret_cast<CUlib_st*>(hmod);  // a module is a library (libcuda.h)
  return driver().libraries.count(lib) ? lib : nullptr;
}

// The compute capability of ctx's device, major*10+minor.
int device_sm(CUdevice dev) {
  const DeviceInfo* info = device_info(dev);
  return info ? info->major * 10 + info->minor : 90;
}

// cuModuleLoadData and cuModuleLoadDataEx: the checks, the load, the logs.
CUresult load_module(trace::Scope& scope, CUmodule* module, const void* image, unsigned n, CUjit_option* options,
                     void** values) {
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (module == nullptr || image == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  JitOptions jit;
  if (CUresult r = read_jit_options(n, options, values, device_sm(ctx->device), &jit); r != CUDA_SUCCESS) {
    if (!jit.option_error_log.empty()) write_jit_logs(jit, values, jit.option_error_log, "", 0);
    return done(scope, r);
  }
  auto start = std::chrono::steady_clock::now();
  auto mod = std::make_unique<CUlib_st>();
  mod->is_module = true;
  std::string error_log, info_log;
  CUresult r = load_image(image, jit, *mod, &error_log, &info_log);
  float ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (n != 0) write_jit_logs(jit, values, error_log, info_log, ms);
  if (r != CUDA_SUCCESS) return done(scope, r);
  *module = reinterpret_cast<CUmodule>(mod.get());
  driver().libraries.insert(mod.release());
  return done(scope, CUDA_SUCCESS);
}

}  // namespace

namespace minicuda::libcuda {

// Reads a whole file for cuModuleLoad and cuLibraryLoadFromFile: CUDA_ERROR_FILE_NOT_FOUND when it
// does not exist; CUDA_ERROR_OUT_OF_MEMORY when it cannot be read (a directory), as the H200
// answers (probe_module.txt load.directory). The text gets a NUL after it.
CUresult read_image_file(const char* path, std::string* out) {
  struct stat st{};
  if (::stat(path, &st) != 0) return errno == ENOENT || errno == ENOTDIR ? CUDA_ERROR_FILE_NOT_FOUND : CUDA_ERROR_INVALID_VALUE;
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return CUDA_ERROR_FILE_NOT_FOUND;
  out->clear();
  char buf[65536];
  size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, got);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return CUDA_ERROR_OUT_OF_MEMORY;
  out->push_back('\0');
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda

// Contract: see cuda.h.
CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleLoadData(image={})", image);
  std::lock_guard lock(driver_mutex());
  return load_module(scope, module, image, 0, nullptr, nullptr);
}

// Contract: see cuda.h.
CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options,
                            void** optionValues) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleLoadDataEx(image={}, numOptions={})", image, numOptions);
  std::lock_guard lock(driver_mutex());
  return load_module(scope, module, image, numOptions, options, optionValues);
}

// Contract: see cuda.h.
CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleLoadFatBinary(image={})", fatCubin);
  std::lock_guard lock(driver_mutex());
  return load_module(scope, module, fatCubin, 0, nullptr, nullptr);
}

// Contract: see cuda.h. The file's bytes are read before the module loads; the module keeps what
// it needs of them.
CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleLoad(fname={})", fname ? fname : "(null)");
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (module == nullptr || fname == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  std::string bytes;
  if (CUresult r = read_image_file(fname, &bytes); r != CUDA_SUCCESS) return done(scope, r);
  return load_module(scope, module, bytes.data(), 0, nullptr, nullptr);
}

// Contract: see cuda.h.
CUresult cuModuleUnload(CUmodule hmod) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleUnload(module={})", static_cast<void*>(hmod));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUlib_st* lib = find_module(hmod);
  if (lib == nullptr || !lib->is_module) return done(scope, CUDA_ERROR_INVALID_HANDLE);  // a library's: cuLibraryUnload
  driver().libraries.erase(lib);
  delete lib;
  return done(scope, CUDA_SUCCESS);
}

// Contract: see cuda.h. NULL hfunc or name: CUDA_ERROR_INVALID_VALUE; NULL or unknown module:
// CUDA_ERROR_INVALID_HANDLE; no such function: CUDA_ERROR_NOT_FOUND with *hfunc = NULL, as on the
// H200. Names are matched exactly (an extern "C" kernel is not found by a mangled name).
CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleGetFunction(name={})", name ? name : "(null)");
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (hfunc == nullptr || name == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUlib_st* lib = find_module(hmod);
  if (lib == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  for (const auto& k : lib->kernels) {
    if (std::strcmp(k->image->name, name) == 0) {
      *hfunc = k.get();
      return done(scope, CUDA_SUCCESS);
    }
  }
  *hfunc = nullptr;
  return done(scope, CUDA_ERROR_NOT_FOUND);
}

// Contract: *count = the module's functions. NULL count: CUDA_ERROR_INVALID_VALUE; unknown module:
// CUDA_ERROR_INVALID_HANDLE.
CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule mod) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleGetFunctionCount(module={})", static_cast<void*>(mod));
  std::lock_guard lock(driver_mutex());
  if (count == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUlib_st* lib = find_module(mod);
  if (lib == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  *count = static_cast<unsigned>(lib->kernels.size());
  return done(scope, CUDA_SUCCESS);
}

// Contract: functions[0..numFunctions) = the module's functions in their image's order. NULL
// functions or numFunctions other than the count: CUDA_ERROR_INVALID_VALUE.
CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int numFunctions, CUmodule mod) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleEnumerateFunctions(numFunctions={})", numFunctions);
  std::lock_guard lock(driver_mutex());
  if (functions == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUlib_st* lib = find_module(mod);
  if (lib == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (numFunctions != lib->kernels.size()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (unsigned i = 0; i < numFunctions; ++i) functions[i] = lib->kernels[i].get();
  return done(scope, CUDA_SUCCESS);
}

// Contract: see cuda.h. Both outputs NULL, or a NULL name: CUDA_ERROR_INVALID_VALUE; unknown module:
// CUDA_ERROR_INVALID_HANDLE; otherwise as cuLibraryGetGlobal (the variables are placed in the
// current context at the first lookup or launch).
CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  {
    trace::Scope scope(trace::Layer::Libcuda, "cuModuleGetGlobal_v2(name={})", name ? name : "(null)");
    std::lock_guard lock(driver_mutex());
    if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
    if ((dptr == nullptr && bytes == nullptr) || name == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
    if (find_module(hmod) == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  }
  return cuLibraryGetGlobal(dptr, bytes, reinterpret_cast<CUlibrary>(hmod), name);
}

// Contract: *pMod = the library's module (in minicuda the same object; cuModuleUnload refuses it:
// the library owns it). NULL pMod or library: CUDA_ERROR_INVALID_VALUE; unknown: CUDA_ERROR_INVALID_HANDLE.
CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLibraryGetModule(library={})", static_cast<void*>(library));
  std::lock_guard lock(driver_mutex());
  if (pMod == nullptr || library == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (driver().libraries.count(library) == 0) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (library->image_error != CUDA_SUCCESS) return done(scope, library->image_error);
  *pMod = reinterpret_cast<CUmodule>(library);
  return done(scope, CUDA_SUCCESS);
}
