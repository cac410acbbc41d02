// minicuda::ptx, libcuda's JIT compiler: PTX text in, a verified, lowered module out.
//
// The driver hands compile() the PTX of a module image (cuModuleLoadData, a fatbin's PTX entry,
// cuLinkAddData). compile() parses it as ptxas does (PTX ISA 9.x, what nvcc 13 emits), verifies
// it, writes ptxas-style diagnostics to error_log, and lowers every .entry to the simulator's
// SASS (hw/include/nv_sass.h): a decoded, register-allocated instruction stream per kernel.
// The caller (libcuda's module loader) maps Status to the CUresult the real driver returns for
// that kind of input; the codes named below are the usual ones, the loader's tests pin the rest.
#ifndef MINICUDA_PTX_PTX_H
#define MINICUDA_PTX_PTX_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::ptx {

// What went wrong, in the distinctions the real driver's JIT makes.
enum class Status : int {
  Ok = 0,
  // A syntax error, an unknown instruction, an undeclared symbol, a type mismatch: ptxas's
  // "error" and "fatal" lines. The driver returns CUDA_ERROR_INVALID_PTX (218).
  ParseError = 1,
  // A .version newer than this driver's PTX ISA (9.0): CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222).
  UnsupportedVersion = 2,
  // A .target above the device's compute capability (ptxas: "SM version specified by .target is
  // higher than default SM version assumed").
  UnsupportedTarget = 3,
  // Empty text, or text that does not start with .version (bytes that are not PTX at all):
  // CUDA_ERROR_INVALID_IMAGE (200).
  InvalidImage = 4,
  // Well-formed PTX that uses something the simulator's SASS cannot express yet (an instruction
  // or modifier parsed but not lowered): CUDA_ERROR_NOT_SUPPORTED (801). error_log names it.
  NotSupported = 5,
  // A kernel needs more shared memory than the target has, or a variable is too large for the
  // JIT: CUDA_ERROR_INVALID_PTX (218), as ptxas reports it as an error.
  OutOfResources = 6,
};

// The JIT options of cuModuleLoadDataEx / cuLinkCreate that change code (CU_JIT_TARGET,
// CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_MAX_REGISTERS, CU_JIT_GENERATE_LINE_INFO).
struct CompileOptions {
  int target_sm = 90;              // the device's compute capability, major*10+minor
  int opt_level = 4;               // 0: one register per PTX register; 1..4: registers whose
                                   // live ranges never meet share one (no other optimisation)
  // The registers a thread may be charged (as ptxas allocates within them, spilling the rest to
  // local memory): max_registers when given (CU_JIT_MAX_REGISTERS, raised to 24 and at most 255);
  // else what lets a block of threads_per_block threads (CU_JIT_THREADS_PER_BLOCK), of the
  // kernel's .maxntid or .reqntid, or of 1024 threads fit the SM's 65536 registers: 64 for 1024
  // (tests/data/h200/jit_options/probe_jit_options.txt).
  int max_registers = 0;           // 0: not given
  int threads_per_block = 0;       // 0: not given
  bool generate_line_info = true;  // keep .loc lines per instruction
  // A link input (cuLinkAddData): parsed and verified only, and a call of a function it only
  // declares (.extern .func) is left for another input to resolve; cuLinkComplete compiles the
  // joined module as a whole program.
  bool relocatable = false;
};

// One lowered .entry.
struct CompiledKernel {
  std::string name;                      // the entry's (mangled) name, as cuModuleGetFunction takes it
  // The kernel's code in the simulator's SASS: a `const NvSassProgram*` (hw/include/nv_sass.h)
  // that stays valid while this pointer (or a copy) lives. Its symbol table holds zeros until
  // the loader binds the module variables' device addresses (bind_symbols).
  std::shared_ptr<const void> sass;
  // The module variables the code names, in the order of the program's symbol table
  // (NV_SASS_OPND_SYMBOL index i is symbols[i]).
  std::vector<std::string> symbols;
  uint32_t param_bytes = 0;              // size of the parameter block (cbank 0 user params)
  std::vector<uint32_t> param_offsets;   // per parameter, in declaration order, CUDA param ABI
  std::vector<uint32_t> param_sizes;
  std::vector<uint32_t> param_aligns;
  uint32_t static_shared_bytes = 0;      // .shared declared in the entry or used from module scope
  uint32_t local_bytes = 0;              // .local per thread
  uint32_t num_regs = 0;                 // 32-bit registers per thread after allocation (a 64-bit
                                         // PTX register counts 2), as ptxas's "Used N registers"
  uint32_t max_call_depth = 0;           // nested .func calls (0: none)
  uint32_t max_ntid = 0;                 // .maxntid product (0: none)
  uint32_t req_ntid[3] = {0, 0, 0};      // .reqntid (0: none)
  uint32_t min_ctas_per_sm = 0;          // .minnctapersm (0: none)
  uint32_t req_cluster[3] = {0, 0, 0};   // .reqnctapercluster (0: none), a launch's required cluster shape
};

// One module-scope variable (.global or .const), for cuModuleGetGlobal.
struct CompiledGlobal {
  std::string name;
  uint64_t size = 0;
  uint32_t align = 1;
  bool constant = false;                 // .const (constant bank) rather than .global
  bool managed = false;                  // .attribute(.managed): the loader places it in managed memory
  std::vector<uint8_t> initializer;      // empty: zero-filled
};

struct CompileResult {
  Status status = Status::Ok;
  std::string error_log;                 // ptxas-style lines, "\n"-separated (CU_JIT_ERROR_LOG_BUFFER)
  std::string info_log;                  // per-kernel resource lines (CU_JIT_INFO_LOG_BUFFER)
  std::vector<CompiledKernel> kernels;   // .entry functions, in file order
  std::vector<CompiledGlobal> globals;   // .global and .const variables, in file order
  uint64_t ptx_hash = 0;                 // FNV-1a of the text, for the JIT cache key
  int ptx_version_major = 0, ptx_version_minor = 0;  // from .version
  int target_sm = 0;                     // from .target
};

// The newest PTX ISA version this front end knows (what the driver reports as "current").
inline constexpr int kPtxIsaMajor = 9;
inline constexpr int kPtxIsaMinor = 0;

// Parses, verifies and lowers `ptx_text`. Never throws on bad input; status and error_log say
// what was wrong, kernels/globals are empty unless status is Ok.
CompileResult compile(std::string_view ptx_text, const CompileOptions& options);

// A copy of `kernel.sass` whose symbol table holds `addresses` (one device address per entry of
// kernel.symbols, in order): what the module loader launches after placing the module's
// variables. Returns null when the counts differ or the kernel has no code.
std::shared_ptr<const void> bind_symbols(const CompiledKernel& kernel, const std::vector<uint64_t>& addresses);

// The kernel's SASS as text, one instruction a line with its index, beside the PTX line it came
// from and the .loc source line: minicuda's `cuobjdump -sass`. Empty when the kernel has no code.
std::string disassemble(const CompiledKernel& kernel);

// The name of a Status value ("Ok", "ParseError", ...).
const char* status_name(Status status);

// FNV-1a 64 of `bytes`: the hash compile() stores in ptx_hash.
uint64_t hash_ptx(std::string_view bytes);

}  // namespace minicuda::ptx

#endif  // MINICUDA_PTX_PTX_H
