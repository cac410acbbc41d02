// Private to libcuda: loading an image into a library or module (jit.cpp), through minicuda's PTX
// JIT (driver/ptx, minicuda::ptx::compile) when the image's code is PTX, and the JIT options of
// cuModuleLoadDataEx, cuLibraryLoadData and the linker.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cuda.h"
#include "fatbinary.h"
#include "minicuda/ptx/ptx.h"

struct CUlib_st;

namespace minicuda::libcuda {

// What the JIT options of a call asked for.
struct JitOptions {
  char* error_log = nullptr;   // CU_JIT_ERROR_LOG_BUFFER
  size_t error_size = 0;       // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
  int error_size_index = -1;   // where its value is (the bytes written go back there)
  char* info_log = nullptr;    // CU_JIT_INFO_LOG_BUFFER
  size_t info_size = 0;
  int info_size_index = -1;
  int wall_time_index = -1;    // CU_JIT_WALL_TIME: the milliseconds the load took go back there (a float)
  bool verbose = false;        // CU_JIT_LOG_VERBOSE: the info log gets the JIT's resource lines
  bool target_from_context = true;  // CU_JIT_TARGET_FROM_CUCONTEXT (the default) or CU_JIT_TARGET
  ptx::CompileOptions compile;      // target, optimisation level, max registers, line info
  // A value ptxas refuses as a fatal error (read_jit_options returned CUDA_ERROR_INVALID_PTX):
  // its error log, which the load writes back as a failed compilation's.
  std::string option_error_log;
};

// Reads numOptions options. A NULL array with numOptions > 0, or an option outside CUjit_option:
// CUDA_ERROR_INVALID_VALUE. `context_sm` is the compute capability a target from the context means.
// As the H200 answers (jit_options/probe_jit_options.txt): CU_JIT_MAX_REGISTERS 0 and a CU_JIT_TARGET
// outside CUjit_target: CUDA_ERROR_INVALID_VALUE; CU_JIT_TARGET 0: CUDA_ERROR_INVALID_IMAGE; a target
// above the device: CUDA_ERROR_INVALID_SOURCE; an optimisation level negative as an int:
// CUDA_ERROR_INVALID_PTX with option_error_log.
CUresult read_jit_options(unsigned numOptions, const CUjit_option* options, void* const* values, int context_sm,
                          JitOptions* out);
// Writes the logs into the caller's buffers (truncated to fit, NUL-terminated) and, into the size
// options' values, the log's length (the buffer's size when it was truncated); and the wall time. As the H200 does, the logs are written on success and on failure alike.
void write_jit_logs(const JitOptions& options, void** values, const std::string& error_log, const std::string& info_log,
                    float wall_ms);

// A library's kernels and variables made from PTX: the JIT's result and the images that the rest
// of libcuda reads (CUlib_st::module points at `module`).
struct JitModule {
  ptx::CompileResult result;
  std::vector<fatbin::KernelImage> kernels;
  std::vector<const ptx::CompiledKernel*> code_of;  // per kernel: its PTX, or nullptr for a C++ kernel
  std::vector<fatbin::VariableImage> variables;
  std::vector<void*> slots;  // each variable's device address in the context it is loaded in
  fatbin::ModuleImage module{};
  int target_sm = 90;  // the SM it was compiled for (CU_FUNC_ATTRIBUTE_BINARY_VERSION)
};

// Loads `image` (see image.h: PTX, a fatbinary, minicuda's ELF) into lib for a device of compute
// capability options.compile.target_sm. CUDA_SUCCESS; CUDA_ERROR_INVALID_IMAGE (with the driver's
// log line in *error_log), CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_INVALID_PTX (218),
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222), CUDA_ERROR_NOT_SUPPORTED (PTX the JIT cannot lower
// yet). *error_log and *info_log get the JIT's logs (ptxas' words) either way.
// A fatbinary with minicuda's entry beside PTX makes one module of both. A kernel both have runs
// from the C++ entry, minicuda's code for this machine as SASS is the real driver's, unless
// CUDA_FORCE_PTX_JIT=1 asks for the PTX; a kernel one of them has runs from that one. Its variables
// are both entries' (a name in both: cuModuleGetGlobal finds the PTX one).
CUresult load_image(const void* image, const JitOptions& options, CUlib_st& lib, std::string* error_log,
                    std::string* info_log);
// Compiles PTX text: the JIT, through the JIT cache (jit_cache.h): a hit loads the entry (*hit
// set), a miss compiles and stores it; a link input (compile.relocatable) is only checked, never
// cached. The CUresult of the JIT's status.
CUresult jit_compile(const std::string& ptx, const JitOptions& options, ptx::CompileResult* result,
                     bool* hit = nullptr);
// A copy of kernel's program (an NvSassProgram, nv_sass.h, from the JIT or the cache) whose symbol
// table holds `addresses` (the device addresses of kernel.symbols, in order), sharing its
// instructions: the program a code record points at. Null when the kernel has no program or the
// count differs.
std::shared_ptr<const void> bind_program(const ptx::CompiledKernel& kernel, const std::vector<uint64_t>& addresses);
// Fills lib's kernels from the module image (a C++ module or one JitModule made).
void add_kernels(CUlib_st& lib, const fatbin::ModuleImage* module);

}  // namespace minicuda::libcuda
