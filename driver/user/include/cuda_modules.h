/* cuda_modules.h -- part of minicuda's cuda.h (included by it, inside its extern "C" block): the
 * JIT's options, modules (cuModuleLoad*, cuModuleGetFunction, cuModuleGetGlobal_v2) and the linker
 * (cuLink*). Include cuda.h, not this file. docs/layers/libcuda_modules.md describes them. */
#ifndef MINICUDA_CUDA_MODULES_H
#define MINICUDA_CUDA_MODULES_H

#ifndef __cuda_cuda_h__
#error "include cuda.h"
#endif

/* The JIT's options (cuModuleLoadDataEx, cuLinkCreate, cuLinkAddData): the real numbering. The
 * ones minicuda's JIT reads are listed by cuModuleLoadDataEx below; the rest are accepted and
 * have no effect on the simulator; a value outside the enumeration: CUDA_ERROR_INVALID_VALUE. */
typedef enum CUjit_option_enum MINICUDA_ENUM_INT {
  CU_JIT_MAX_REGISTERS = 0, CU_JIT_THREADS_PER_BLOCK = 1, CU_JIT_WALL_TIME = 2, CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7, CU_JIT_TARGET_FROM_CUCONTEXT = 8, CU_JIT_TARGET = 9, CU_JIT_FALLBACK_STRATEGY = 10,
  CU_JIT_GENERATE_DEBUG_INFO = 11, CU_JIT_LOG_VERBOSE = 12, CU_JIT_GENERATE_LINE_INFO = 13, CU_JIT_CACHE_MODE = 14,
  CU_JIT_NEW_SM3X_OPT = 15, CU_JIT_FAST_COMPILE = 16, CU_JIT_GLOBAL_SYMBOL_NAMES = 17,
  CU_JIT_GLOBAL_SYMBOL_ADDRESSES = 18, CU_JIT_GLOBAL_SYMBOL_COUNT = 19, CU_JIT_LTO = 20, CU_JIT_FTZ = 21,
  CU_JIT_PREC_DIV = 22, CU_JIT_PREC_SQRT = 23, CU_JIT_FMA = 24, CU_JIT_REFERENCED_KERNEL_NAMES = 25,
  CU_JIT_REFERENCED_KERNEL_COUNT = 26, CU_JIT_REFERENCED_VARIABLE_NAMES = 27, CU_JIT_REFERENCED_VARIABLE_COUNT = 28,
  CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES = 29, CU_JIT_POSITION_INDEPENDENT_CODE = 30, CU_JIT_MIN_CTA_PER_SM = 31,
  CU_JIT_MAX_THREADS_PER_BLOCK = 32, CU_JIT_OVERRIDE_DIRECTIVE_VALUES = 33, CU_JIT_SPLIT_COMPILE = 34,
  CU_JIT_NUM_OPTIONS
} CUjit_option;
/* CU_JIT_TARGET's value: a compute capability (the real numbering). The device's own (90 on the
 * H200) and lower are compiled for; a higher one is CUDA_ERROR_INVALID_SOURCE, a value outside
 * the enumeration CUDA_ERROR_INVALID_VALUE, 0 CUDA_ERROR_INVALID_IMAGE (jit_options/). */
#define CU_COMPUTE_ACCELERATED_TARGET_BASE 0x10000
#define CU_COMPUTE_FAMILY_TARGET_BASE 0x20000
typedef enum CUjit_target_enum MINICUDA_ENUM_INT {
  CU_TARGET_COMPUTE_30 = 30, CU_TARGET_COMPUTE_32 = 32, CU_TARGET_COMPUTE_35 = 35, CU_TARGET_COMPUTE_37 = 37,
  CU_TARGET_COMPUTE_50 = 50, CU_TARGET_COMPUTE_52 = 52, CU_TARGET_COMPUTE_53 = 53, CU_TARGET_COMPUTE_60 = 60,
  CU_TARGET_COMPUTE_61 = 61, CU_TARGET_COMPUTE_62 = 62, CU_TARGET_COMPUTE_70 = 70, CU_TARGET_COMPUTE_72 = 72,
  CU_TARGET_COMPUTE_75 = 75, CU_TARGET_COMPUTE_80 = 80, CU_TARGET_COMPUTE_86 = 86, CU_TARGET_COMPUTE_87 = 87,
  CU_TARGET_COMPUTE_89 = 89, CU_TARGET_COMPUTE_90 = 90, CU_TARGET_COMPUTE_100 = 100, CU_TARGET_COMPUTE_110 = 110,
  CU_TARGET_COMPUTE_103 = 103, CU_TARGET_COMPUTE_120 = 120, CU_TARGET_COMPUTE_121 = 121,
  CU_TARGET_COMPUTE_90A = CU_COMPUTE_ACCELERATED_TARGET_BASE + CU_TARGET_COMPUTE_90,
  CU_TARGET_COMPUTE_100A = CU_COMPUTE_ACCELERATED_TARGET_BASE + CU_TARGET_COMPUTE_100,
  CU_TARGET_COMPUTE_110A = CU_COMPUTE_ACCELERATED_TARGET_BASE + CU_TARGET_COMPUTE_110,
  CU_TARGET_COMPUTE_103A = CU_COMPUTE_ACCELERATED_TARGET_BASE + CU_TARGET_COMPUTE_103,
  CU_TARGET_COMPUTE_120A = CU_COMPUTE_ACCELERATED_TARGET_BASE + CU_TARGET_COMPUTE_120,
  CU_TARGET_COMPUTE_121A = CU_COMPUTE_ACCELERATED_TARGET_BASE + CU_TARGET_COMPUTE_121,
  CU_TARGET_COMPUTE_100F = CU_COMPUTE_FAMILY_TARGET_BASE + CU_TARGET_COMPUTE_100,
  CU_TARGET_COMPUTE_110F = CU_COMPUTE_FAMILY_TARGET_BASE + CU_TARGET_COMPUTE_110,
  CU_TARGET_COMPUTE_103F = CU_COMPUTE_FAMILY_TARGET_BASE + CU_TARGET_COMPUTE_103,
  CU_TARGET_COMPUTE_120F = CU_COMPUTE_FAMILY_TARGET_BASE + CU_TARGET_COMPUTE_120,
  CU_TARGET_COMPUTE_121F = CU_COMPUTE_FAMILY_TARGET_BASE + CU_TARGET_COMPUTE_121
} CUjit_target;
/* What a cuLinkAddData / cuLinkAddFile input is. */
typedef enum CUjitInputType_enum MINICUDA_ENUM_INT {
  CU_JIT_INPUT_CUBIN = 0, CU_JIT_INPUT_PTX = 1, CU_JIT_INPUT_FATBINARY = 2, CU_JIT_INPUT_OBJECT = 3,
  CU_JIT_INPUT_LIBRARY = 4, CU_JIT_INPUT_NVVM = 5, CU_JIT_NUM_INPUT_TYPES = 6
} CUjitInputType;
typedef struct CUlinkState_st* CUlinkState; /* a link in progress (cuLinkCreate) */

/* Loads a module from an image in memory: PTX text (compiled by minicuda's JIT, through the JIT
 * cache), a real fatbinary (its PTX for the device's compute capability; NVIDIA's SASS cannot run
 * on the simulator, so an image with SASS alone: CUDA_ERROR_NO_BINARY_FOR_GPU), minicuda's own
 * fatbinary, or the ELF cuLinkComplete makes. Bad PTX: CUDA_ERROR_INVALID_PTX (218); a newer
 * .version: CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222); anything else: CUDA_ERROR_INVALID_IMAGE (200).
 * On failure *module is left as it was. */
CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image);
/* As cuModuleLoadData, with JIT options: CU_JIT_ERROR_LOG_BUFFER / CU_JIT_INFO_LOG_BUFFER and their
 * _SIZE_BYTES (the bytes written, NUL included, are written back into the size's value),
 * CU_JIT_LOG_VERBOSE, CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_TARGET, CU_JIT_TARGET_FROM_CUCONTEXT,
 * CU_JIT_MAX_REGISTERS, CU_JIT_GENERATE_LINE_INFO, CU_JIT_WALL_TIME (milliseconds written back). */
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options,
                                    void** optionValues);
/* As cuModuleLoadData, from a file. Missing: CUDA_ERROR_FILE_NOT_FOUND; unreadable (a directory):
 * CUDA_ERROR_OUT_OF_MEMORY, as the H200 answers. */
CUresult CUDAAPI cuModuleLoad(CUmodule* module, const char* fname);
/* As cuModuleLoadData. */
CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin);
/* Unloads a module (its functions' handles become invalid). Unknown: CUDA_ERROR_INVALID_HANDLE. */
CUresult CUDAAPI cuModuleUnload(CUmodule hmod);
/* *hfunc = the module's function called name. Not found: CUDA_ERROR_NOT_FOUND, *hfunc = NULL. */
CUresult CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name);
CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int* count, CUmodule mod);
CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction* functions, unsigned int numFunctions, CUmodule mod);
/* A module-scope variable's device address and size in the current context (either may be NULL,
 * not both). Not found: CUDA_ERROR_NOT_FOUND. */
CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name);
/* The linker: PTX inputs joined into one ELF of minicuda's (the PTX it links, which
 * cuModuleLoadData accepts back). NVIDIA cubins cannot run on the simulator:
 * CUDA_ERROR_NO_BINARY_FOR_GPU. */
CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option* options, void** optionValues,
                                 CUlinkState* stateOut);
CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,
                                  unsigned int numOptions, CUjit_option* options, void** optionValues);
CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions,
                                  CUjit_option* options, void** optionValues);
CUresult CUDAAPI cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut);
CUresult CUDAAPI cuLinkDestroy(CUlinkState state);

/* As cuLibraryLoadData, from a file. Missing: CUDA_ERROR_FILE_NOT_FOUND. */
CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option* jitOptions,
                                       void** jitOptionsValues, unsigned int numJitOptions,
                                       CUlibraryOption* libraryOptions, void** libraryOptionValues,
                                       unsigned int numLibraryOptions);
/* The module of the library in the current context. */
CUresult CUDAAPI cuLibraryGetModule(CUmodule* pMod, CUlibrary library);
/* *name = the function's name. NULL name or function: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuFuncGetName(const char** name, CUfunction hfunc);

#endif /* MINICUDA_CUDA_MODULES_H */
