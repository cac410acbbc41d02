// The JIT at the libcuda layer: the options of a load, the image's code chosen (image.h), PTX
// compiled by minicuda::ptx (driver/ptx), and what it returns turned into a module's kernels and
// variables - the same images (fatbinary.h) a C++ module has, so launches, globals and attributes
// take one path. A PTX kernel's image has no host entry; its code is the JIT's SASS.
#include "jit.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>

#include "image.h"
#include "jit_cache.h"
#include "nv_sass.h"
#include "libcuda.h"
#include "minicuda/trace.h"

namespace minicuda::libcuda {
namespace {

std::string without_trailing_newlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// The CUresult the real driver returns for the JIT's status (probe_module.txt).
CUresult result_of(ptx::Status status) {
  switch (status) {
    case ptx::Status::Ok: return CUDA_SUCCESS;
    case ptx::Status::ParseError: return CUDA_ERROR_INVALID_PTX;
    case ptx::Status::UnsupportedVersion: return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    // ptx.target_sm_100 and ptx.target_bogus: a .target the device cannot take is ptxas' fatal
    // error, so CUDA_ERROR_INVALID_PTX, not NO_BINARY_FOR_GPU.
    case ptx::Status::UnsupportedTarget: return CUDA_ERROR_INVALID_PTX;
    case ptx::Status::InvalidImage: return CUDA_ERROR_INVALID_IMAGE;
    case ptx::Status::NotSupported: return CUDA_ERROR_NOT_SUPPORTED;
    case ptx::Status::OutOfResources: return CUDA_ERROR_INVALID_PTX;
  }
  return CUDA_ERROR_INVALID_PTX;
}

uintptr_t value_of(void* const* values, unsigned i) { return reinterpret_cast<uintptr_t>(values[i]); }

// A value of CUjit_target (cuda_modules.h).
bool known_target(uintptr_t t) {
  constexpr int kTargets[] = {30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
  const uintptr_t base = t & ~uintptr_t{0xFFFF};
  const auto sm = static_cast<int>(t & 0xFFFF);
  if (base == CU_COMPUTE_ACCELERATED_TARGET_BASE) return sm == 90 || sm == 100 || sm == 103 || sm == 110 || sm >= 120;
  if (base == CU_COMPUTE_FAMILY_TARGET_BASE) return sm == 100 || sm == 103 || sm == 110 || sm >= 120;
  return base == 0 && std::find(std::begin(kTargets), std::end(kTargets), sm) != std::end(kTargets);
}

}  // namespace

CUresult read_jit_options(unsigned n, const CUjit_option* options, void* const* values, int context_sm,
                          JitOptions* out) {
  out->compile.target_sm = context_sm;
  if (n == 0) return CUDA_SUCCESS;
  if (options == nullptr || values == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < n; ++i) {
    switch (options[i]) {
      case CU_JIT_ERROR_LOG_BUFFER: out->error_log = static_cast<char*>(values[i]); break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        out->error_size = value_of(values, i);
        out->error_size_index = static_cast<int>(i);
        break;
      case CU_JIT_INFO_LOG_BUFFER: out->info_log = static_cast<char*>(values[i]); break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        out->info_size = value_of(values, i);
        out->info_size_index = static_cast<int>(i);
        break;
      case CU_JIT_LOG_VERBOSE: out->verbose = value_of(values, i) != 0; break;
      case CU_JIT_WALL_TIME: out->wall_time_index = static_cast<int>(i); break;
      case CU_JIT_OPTIMIZATION_LEVEL: {
        // An unsigned int: ptxas takes 0..4 (and accepts a higher level as its highest, measured:
        // 5); one that is negative as a 32-bit int is its fatal error (jit_options/).
        const auto level = static_cast<uint32_t>(value_of(values, i));
        if (level > static_cast<uint32_t>(INT32_MAX)) {
          out->option_error_log = fmt::format("ptxas fatal   : 32-bit integer value ({}) out of range", level);
          break;  // the log buffers may come after it
        }
        out->compile.opt_level = static_cast<int>(std::min<uint32_t>(level, 4));
        break;
      }
      case CU_JIT_MAX_REGISTERS: {  // 0: CUDA_ERROR_INVALID_VALUE; the rest as ptx.h says
        const auto regs = static_cast<uint32_t>(value_of(values, i));
        if (regs == 0) return CUDA_ERROR_INVALID_VALUE;
        out->compile.max_registers = static_cast<int>(std::min<uint32_t>(regs, 256));
        break;
      }
      case CU_JIT_THREADS_PER_BLOCK:
        out->compile.threads_per_block = static_cast<int>(std::min<uintptr_t>(value_of(values, i), 1024));
        break;
      case CU_JIT_GENERATE_LINE_INFO: out->compile.generate_line_info = value_of(values, i) != 0; break;
      case CU_JIT_TARGET_FROM_CUCONTEXT: out->target_from_context = true; out->compile.target_sm = context_sm; break;
      case CU_JIT_TARGET: {  // a CUjit_target: CU_TARGET_COMPUTE_90 is 90
        const uintptr_t target = value_of(values, i);
        if (target == 0) return CUDA_ERROR_INVALID_IMAGE;  // measured (jit_options/ target_0)
        if (!known_target(target)) return CUDA_ERROR_INVALID_VALUE;
        const int sm = static_cast<int>(target & 0xFFFF);  // 90a and 100f name the capability in their low bits
        if (sm > context_sm) return CUDA_ERROR_INVALID_SOURCE;  // above the device (target_100: 300)
        out->target_from_context = false;
        out->compile.target_sm = sm;
        break;
      }
      default:
        if (options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
        break;  // a real option with no effect on the simulator
    }
  }
  return out->option_error_log.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_PTX;
}

void write_jit_logs(const JitOptions& o, void** values, const std::string& error_log, const std::string& info_log,
                    float wall_ms) {
  auto put = [values](char* buf, size_t cap, int index, const std::string& text) {
    if (index < 0) return;
    size_t written = 0;
    if (buf != nullptr && cap > 0) {
      const size_t n = std::min(text.size(), cap - 1);
      std::memcpy(buf, text.data(), n);
      buf[n] = '\0';
      // The H200 writes back the log's length, or the buffer's size when the log filled it
      // (probe_module.txt: 244 for a 244-character log, 16 for a 16-byte buffer).
      written = text.size() < cap ? text.size() : cap;
    }
    values[index] = reinterpret_cast<void*>(static_cast<uintptr_t>(written));
  };
  put(o.error_log, o.error_size, o.error_size_index, error_log);
  put(o.info_log, o.info_size, o.info_size_index, info_log);
  if (o.wall_time_index >= 0) {
    void* slot = nullptr;
    std::memcpy(&slot, &wall_ms, sizeof wall_ms);  // the float in the value's low bytes, as the real driver does
    values[o.wall_time_index] = slot;
  }
}

namespace {
// A kernel's program with its own symbol table, and what keeps the instructions alive.
struct BoundProgram {
  NvSassProgram program{};
  std::vector<NvU64> symbols;
  std::shared_ptr<const void> base;
};
}  // namespace

std::shared_ptr<const void> bind_program(const ptx::CompiledKernel& kernel, const std::vector<uint64_t>& addresses) {
  const auto* program = static_cast<const NvSassProgram*>(kernel.sass.get());
  if (program == nullptr || program->magic != NV_SASS_PROGRAM_MAGIC || program->symbol_count != addresses.size())
    return nullptr;
  auto bound = std::make_shared<BoundProgram>();
  bound->program = *program;
  bound->symbols.assign(addresses.begin(), addresses.end());
  bound->program.symbols = reinterpret_cast<NvU64>(bound->symbols.data());
  bound->base = kernel.sass;
  return std::shared_ptr<const void>(bound, &bound->program);
}

void add_kernels(CUlib_st& lib, const fatbin::ModuleImage* module) {
  lib.module = module;
  for (uint32_t i = 0; i < module->kernel_count; ++i) {
    auto k = std::make_unique<CUkern_st>();
    k->image = &module->kernels[i];
    k->library = &lib;
    if (lib.jit) k->ptx = lib.jit->code_of[i];
    if (k->ptx != nullptr) {
      // What a block may add dynamically by default: the 48 KiB a block has without opting in,
      // less its static __shared__ (measured: 4 KiB static -> 45056, probe_api_families.txt
      // rt.funcGetAttributes.k_smem).
      k->max_dynamic_shared -= static_cast<int>(std::min<uint64_t>(k->ptx->static_shared_bytes, 48 << 10));
    }
    lib.kernels.push_back(std::move(k));
  }
}

CUresult jit_compile(const std::string& ptx_text, const JitOptions& options, ptx::CompileResult* result, bool* hit) {
  if (hit != nullptr) *hit = false;
  if (options.compile.relocatable) {  // a link input: checked, no code made, so nothing to cache
    *result = ptx::compile(ptx_text, options.compile);
    trace::note(trace::Layer::Libcuda, "JIT: link input of {} bytes checked: {}", ptx_text.size(),
                ptx::status_name(result->status));
    return result_of(result->status);
  }
  const jit_cache::Settings cache = jit_cache::settings();
  const uint64_t key = jit_cache::key_of(ptx_text, options.compile);
  const std::string entry = jit_cache::entry_path(key);
  if (cache.disabled) {
    trace::note(trace::Layer::Libcuda, "JIT cache disabled: compiling {} bytes of PTX for sm_{}", ptx_text.size(),
                options.compile.target_sm);
  } else if (cache.force_jit) {
    trace::note(trace::Layer::Libcuda, "JIT cache bypassed (CUDA_FORCE_PTX_JIT=1): compiling {} bytes of PTX for sm_{}",
                ptx_text.size(), options.compile.target_sm);
  } else if (std::optional<ptx::CompileResult> cached = jit_cache::lookup(cache, key)) {
    trace::note(trace::Layer::Libcuda, "JIT cache hit: loading {}/{} ({} kernel(s) for sm_{})", cache.path, entry,
                cached->kernels.size(), options.compile.target_sm);
    *result = std::move(*cached);
    if (hit != nullptr) *hit = true;
    return CUDA_SUCCESS;
  } else {
    trace::note(trace::Layer::Libcuda, "JIT cache miss: compiling {} bytes of PTX for sm_{} (entry {}/{})",
                ptx_text.size(), options.compile.target_sm, cache.path, entry);
  }
  *result = ptx::compile(ptx_text, options.compile);
  CUresult r = result_of(result->status);
  if (r != CUDA_SUCCESS) {
    trace::note(trace::Layer::Libcuda, "JIT: {} ({})", ptx::status_name(result->status),
                without_trailing_newlines(result->error_log));
    return r;
  }
  if (!cache.disabled) jit_cache::store(cache, key, *result);
  return CUDA_SUCCESS;
}

CUresult load_image(const void* data, const JitOptions& options, CUlib_st& lib, std::string* error_log,
                    std::string* info_log) {
  image::Code code = image::select(data, options.compile.target_sm);
  // minicuda's own fatbinary (every .cu program's) loads as it always has: no note of its kind.
  if (code.host == nullptr) trace::note(trace::Layer::Libcuda, "module: image is {}", code.why);
  if (code.error != CUDA_SUCCESS) {
    if (code.error == CUDA_ERROR_INVALID_IMAGE) *error_log = image::kUnrecognizedImageLog;
    return code.error;
  }
  if (code.host != nullptr && code.ptx.empty()) {
    add_kernels(lib, code.host);
    return CUDA_SUCCESS;
  }
  auto jit = std::make_shared<JitModule>();
  bool hit = false;
  CUresult r = jit_compile(code.ptx, options, &jit->result, &hit);
  // Text without a .version is not an image, unless a fatbinary's PTX entry holds it: the H200
  // answers CUDA_ERROR_INVALID_PTX then (fatbin_lz4/probe_fatbin_lz4.txt, ".corrupt").
  if (r == CUDA_ERROR_INVALID_IMAGE && code.from_entry) r = CUDA_ERROR_INVALID_PTX;
  if (r == CUDA_ERROR_INVALID_IMAGE) {
    *error_log = image::kUnrecognizedImageLog;
    return r;
  }
  *error_log = without_trailing_newlines(jit->result.error_log);
  // A hit writes no info log, as on the H200 (cache_run2.txt): nothing was compiled.
  if (options.verbose && !hit) *info_log = without_trailing_newlines(jit->result.info_log);
  if (r != CUDA_SUCCESS) return r;
  JitModule& m = *jit;
  m.target_sm = options.compile.target_sm;
  const bool force_ptx = jit_cache::settings().force_jit;
  auto in_ptx = [&m](const char* name) {
    return std::any_of(m.result.kernels.begin(), m.result.kernels.end(),
                       [name](const ptx::CompiledKernel& k) { return k.name == name; });
  };
  auto in_host = [&code](const std::string& name) {
    for (uint32_t i = 0; code.host != nullptr && i < code.host->kernel_count; ++i)
      if (name == code.host->kernels[i].name) return true;
    return false;
  };
  for (uint32_t i = 0; code.host != nullptr && i < code.host->kernel_count; ++i) {
    if (force_ptx && in_ptx(code.host->kernels[i].name)) continue;
    m.kernels.push_back(code.host->kernels[i]);
    m.code_of.push_back(nullptr);
  }
  for (const ptx::CompiledKernel& k : m.result.kernels) {
    if (!force_ptx && in_host(k.name)) continue;
    fatbin::KernelImage img{};
    img.name = k.name.c_str();
    img.param_count = static_cast<uint32_t>(k.param_offsets.size());
    img.param_bytes = k.param_bytes;
    img.param_offsets = k.param_offsets.data();
    img.param_sizes = k.param_sizes.data();
    img.num_regs = k.num_regs;
    for (int i = 0; i < 3; ++i) img.cluster_dims[i] = k.req_cluster[i];  // .reqnctapercluster
    m.kernels.push_back(img);
    m.code_of.push_back(&k);
  }
  m.slots.assign(m.result.globals.size(), nullptr);
  for (size_t i = 0; i < m.result.globals.size(); ++i) {
    ptx::CompiledGlobal& g = m.result.globals[i];
    if (g.initializer.size() < g.size) g.initializer.resize(g.size, 0);  // zero-filled storage
    m.variables.push_back(fatbin::VariableImage{g.name.c_str(), g.size, g.constant ? 1u : 0u,
                                                g.initializer.data(), &m.slots[i]});
  }
  // The C++ entry's variables after the PTX ones (whose indices are the JIT result's).
  for (uint32_t i = 0; code.host != nullptr && i < code.host->variable_count; ++i)
    m.variables.push_back(code.host->variables[i]);
  // A module whose code calls malloc/free (the JIT's HEAP instructions) gives the context its heap.
  uint32_t flags = code.host != nullptr ? code.host->flags : 0;
  for (const ptx::CompiledKernel& k : m.result.kernels) {
    const auto* p = static_cast<const NvSassProgram*>(k.sass.get());
    for (NvU32 i = 0; p != nullptr && i < p->instruction_count; ++i)
      if (nv_sass_instructions(*p)[i].opcode == NV_SASS_OP_HEAP) flags |= fatbin::kModuleUsesDeviceHeap;
  }
  m.module = fatbin::ModuleImage{fatbin::kModuleMagic, 1, code.host != nullptr ? code.host->source : "PTX module",
                                 static_cast<uint32_t>(m.kernels.size()),
                                 m.kernels.data(), static_cast<uint32_t>(m.variables.size()), m.variables.data(), flags};
  lib.jit = std::move(jit);
  add_kernels(lib, &lib.jit->module);
  const size_t cxx = static_cast<size_t>(std::count(m.code_of.begin(), m.code_of.end(), nullptr));
  if (code.host != nullptr)
    trace::note(trace::Layer::Libcuda, "module: {} C++ kernel(s) and {} PTX kernel(s){}, {} variable(s)", cxx,
                m.kernels.size() - cxx, force_ptx ? " (CUDA_FORCE_PTX_JIT=1: the PTX where both have one)" : "",
                m.variables.size());
  else
    trace::note(trace::Layer::Libcuda, "module: {} PTX kernel(s), {} variable(s)", m.kernels.size(), m.variables.size());
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda
