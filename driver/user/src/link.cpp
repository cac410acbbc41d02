// The linker: cuLinkCreate / AddData / AddFile / Complete / Destroy. The real driver links
// relocatable SASS into a cubin. minicuda's JIT takes whole PTX modules, so its linker joins the
// PTX inputs into one module - each input compiled when it is added, so a bad one is refused at
// once, as on the H200 (probe_module.txt link.add_bad_ptx) - and cuLinkComplete compiles the
// joined text and returns it inside an ELF of minicuda's (image.h make_elf), which
// cuModuleLoadData accepts back. NVIDIA cubins are SASS the simulator cannot run:
// CUDA_ERROR_NO_BINARY_FOR_GPU, as the H200 answers for the sm_90 cubin of a whole program.
#include <string>
#include <utility>
#include <vector>

#include "image.h"
#include "jit.h"
#include "libcuda.h"
#include "minicuda/trace.h"

using namespace minicuda;
using namespace minicuda::libcuda;

struct CUlinkState_st {
  JitOptions options;
  void** values = nullptr;  // the option values of cuLinkCreate (the logs are written back there)
  unsigned num_options = 0;
  std::string ptx;          // the joined PTX so far
  std::vector<std::pair<std::string, std::string>> inputs;  // each PTX input's name and text
  bool has_header = false;  // the joined text has its .version / .target / .address_size
  CUresult failed = CUDA_SUCCESS;  // an input refused as SASS: cuLinkComplete fails with it too
  std::string elf;          // cuLinkComplete's output, owned until cuLinkDestroy
};

namespace {

CUlinkState_st* find_link(CUlinkState state) {
  return state != nullptr && driver().links.count(state) ? state : nullptr;
}

// A module's text without its header directives, to append to the joined module.
std::string body_of(const std::string& ptx) {
  std::string out;
  size_t at = 0;
  while (at < ptx.size()) {
    size_t end = ptx.find('\n', at);
    if (end == std::string::npos) end = ptx.size();
    std::string line = ptx.substr(at, end - at);
    size_t first = line.find_first_not_of(" \t");
    bool header = first != std::string::npos &&
                  (line.compare(first, 8, ".version") == 0 || line.compare(first, 7, ".target") == 0 ||
                   line.compare(first, 13, ".address_size") == 0);
    if (!header) out += line + "\n";
    at = end + 1;
  }
  return out;
}

// Adds one input's bytes (NUL-terminated) of the given type to the link.
CUresult add_input(CUlinkState_st& link, CUjitInputType type, const char* data, const char* name) {
  if (type == CU_JIT_INPUT_CUBIN || type == CU_JIT_INPUT_FATBINARY || type == CU_JIT_INPUT_PTX) {
    image::Code code = image::select(data, link.options.compile.target_sm);
    if (type == CU_JIT_INPUT_CUBIN && code.error == CUDA_SUCCESS && code.ptx.empty()) code.error = CUDA_ERROR_INVALID_IMAGE;
    trace::note(trace::Layer::Libcuda, "link: {} is {}", name ? name : "(unnamed)", code.why);
    if (code.error != CUDA_SUCCESS) {
      if (code.error == CUDA_ERROR_NO_BINARY_FOR_GPU) link.failed = code.error;
      return code.error;
    }
    if (code.host != nullptr) return CUDA_ERROR_INVALID_IMAGE;  // minicuda's fatbinary holds host code, not PTX
    ptx::CompileResult result;
    JitOptions input = link.options;
    input.compile.relocatable = true;  // its .extern functions may be another input's
    if (CUresult r = jit_compile(code.ptx, input, &result); r != CUDA_SUCCESS) return r;
    link.ptx += link.has_header ? body_of(code.ptx) : code.ptx;
    link.inputs.emplace_back(name != nullptr ? name : "", code.ptx);
    link.has_header = true;
    return CUDA_SUCCESS;
  }
  trace::note(trace::Layer::Libcuda, "link: inputs of type {} (objects, libraries, NVVM IR) are not supported",
              static_cast<int>(type));
  return type >= 0 && type < CU_JIT_NUM_INPUT_TYPES ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
}

// The options of one input ("applied to this input only"), as the H200 answers them
// (link_options/probe_link_options.txt): any option cuModuleLoadDataEx would refuse, a target above
// the device among them, and the log buffers, which only cuLinkCreate takes, are
// CUDA_ERROR_INVALID_VALUE; so is a NULL array with numOptions > 0. The rest change nothing: each
// input is only checked, and cuLinkComplete compiles the joined PTX with the link's options.
CUresult check_input_options(const CUlinkState_st& link, unsigned n, CUjit_option* options, void** values) {
  if (n == 0) return CUDA_SUCCESS;
  if (options == nullptr || values == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < n; ++i) {
    const CUjit_option o = options[i];
    if (o == CU_JIT_ERROR_LOG_BUFFER || o == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES || o == CU_JIT_INFO_LOG_BUFFER ||
        o == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES) {
      trace::note(trace::Layer::Libcuda, "link: an input's options may not name a log buffer (option {})",
                  static_cast<int>(o));
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  JitOptions scratch;
  if (read_jit_options(n, options, values, link.options.compile.target_sm, &scratch) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

// A call that no input defines: the joined module's "Unresolved extern function 'f'" is, for a
// link, nvlink's "Undefined reference to 'f' in 'input'" (the first input that declares f) and
// CUDA_ERROR_INVALID_SOURCE, as on the H200 (link_extern/probe_link_extern.txt caller_alone).
void unresolved_as_linker(const CUlinkState_st& link, CUresult* r, std::string* error_log) {
  const std::string marker = "Unresolved extern function '";
  const size_t at = error_log->find(marker);
  if (*r == CUDA_SUCCESS || at == std::string::npos) return;
  const size_t start = at + marker.size(), end = error_log->find('\'', start);
  const std::string function = error_log->substr(start, end - start);
  std::string input;
  for (const auto& [name, text] : link.inputs) {
    const size_t decl = text.find(".extern .func");
    if (decl != std::string::npos && text.find(function, decl) != std::string::npos) {
      input = name;
      break;
    }
  }
  *error_log = "error   : Undefined reference to '" + function + "' in '" + input + "'";
  *r = CUDA_ERROR_INVALID_SOURCE;
}

}  // namespace

// Contract: *stateOut = a new link, with the JIT options that apply to every input. NULL
// stateOut: CUDA_ERROR_INVALID_VALUE; a bad option: read_jit_options' error. Needs a context.
CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLinkCreate_v2(numOptions={})", numOptions);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (stateOut == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  const DeviceInfo* dev = device_info(ctx->device);
  auto link = std::make_unique<CUlinkState_st>();
  if (CUresult r = read_jit_options(numOptions, options, optionValues, dev ? dev->major * 10 + dev->minor : 90,
                                    &link->options);
      r != CUDA_SUCCESS)
    return done(scope, r);
  link->values = optionValues;
  link->num_options = numOptions;
  *stateOut = link.get();
  driver().links.insert(link.release());
  return done(scope, CUDA_SUCCESS);
}

// Contract: adds an input of size bytes: PTX, a fatbinary (its PTX) or a cubin (minicuda's ELF;
// NVIDIA's: CUDA_ERROR_NO_BINARY_FOR_GPU). Bad PTX: the JIT's error (218, 222), the input left
// out of the link. Unknown link: CUDA_ERROR_INVALID_HANDLE; NULL data or size 0:
// CUDA_ERROR_INVALID_VALUE; objects, libraries, NVVM IR: CUDA_ERROR_NOT_SUPPORTED. The input's own
// options: check_input_options.
CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,
                          unsigned int numOptions, CUjit_option* options, void** optionValues) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLinkAddData_v2(type={}, size={}, name={})", static_cast<int>(type), size,
                     name ? name : "(null)");
  std::lock_guard lock(driver_mutex());
  CUlinkState_st* link = find_link(state);
  if (link == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (data == nullptr || size == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (CUresult r = check_input_options(*link, numOptions, options, optionValues); r != CUDA_SUCCESS)
    return done(scope, r);
  std::string bytes(static_cast<const char*>(data), size);
  bytes.push_back('\0');
  return done(scope, add_input(*link, type, bytes.data(), name));
}

// Contract: as cuLinkAddData_v2, with the file's bytes. A missing file: CUDA_ERROR_FILE_NOT_FOUND.
CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions,
                          CUjit_option* options, void** optionValues) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLinkAddFile_v2(type={}, path={})", static_cast<int>(type),
                     path ? path : "(null)");
  std::lock_guard lock(driver_mutex());
  CUlinkState_st* link = find_link(state);
  if (link == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (path == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (CUresult r = check_input_options(*link, numOptions, options, optionValues); r != CUDA_SUCCESS)
    return done(scope, r);
  std::string bytes;
  if (CUresult r = read_image_file(path, &bytes); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, add_input(*link, type, bytes.data(), path));
}

// Contract: *cubinOut / *sizeOut = the linked image (an ELF of minicuda's holding the joined PTX),
// valid until cuLinkDestroy. An input refused as SASS: that error again (CUDA_ERROR_NO_BINARY_FOR_GPU,
// as on the H200); the joined PTX failing to compile (duplicate symbols): the JIT's error. A link
// with no input completes (an ELF with no PTX), as on the H200 (link.complete_empty).
CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLinkComplete(state={})", static_cast<void*>(state));
  std::lock_guard lock(driver_mutex());
  CUlinkState_st* link = find_link(state);
  if (link == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (cubinOut == nullptr || sizeOut == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (link->failed != CUDA_SUCCESS) return done(scope, link->failed);
  std::string error_log, info_log;
  if (!link->ptx.empty()) {
    ptx::CompileResult result;
    CUresult r = jit_compile(link->ptx, link->options, &result);
    error_log = result.error_log;
    unresolved_as_linker(*link, &r, &error_log);
    if (link->options.verbose) info_log = result.info_log;
    if (link->num_options != 0) write_jit_logs(link->options, link->values, error_log, info_log, 0.0f);
    if (r != CUDA_SUCCESS) return done(scope, r);
  }
  link->elf = image::make_elf(link->ptx, link->options.compile.target_sm);
  trace::note(trace::Layer::Libcuda, "link: {} bytes of PTX in a {}-byte ELF", link->ptx.size(), link->elf.size());
  *cubinOut = link->elf.data();
  *sizeOut = link->elf.size();
  return done(scope, CUDA_SUCCESS);
}

// Contract: frees the link and its output. Unknown link: CUDA_ERROR_INVALID_HANDLE.
CUresult cuLinkDestroy(CUlinkState state) {
  trace::Scope scope(trace::Layer::Libcuda, "cuLinkDestroy(state={})", static_cast<void*>(state));
  std::lock_guard lock(driver_mutex());
  CUlinkState_st* link = find_link(state);
  if (link == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  driver().links.erase(link);
  delete link;
  return done(scope, CUDA_SUCCESS);
}
