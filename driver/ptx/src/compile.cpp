// compile(): the JIT's entry point. Runs the front end (lexer, parser, verifier) and then the
// lowering, and turns their diagnostics into the ptxas-style logs the driver hands back.
#include "minicuda/ptx/ptx.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ast.h"
#include "isa_versions.h"
#include "layout.h"
#include "lower.h"
#include "parser.h"
#include "verify.h"

namespace minicuda::ptx {

namespace {
constexpr uint32_t kMaxRegistersPerThread = 255;  // an SM's limit per thread
constexpr uint32_t kMinRegisterLimit = 24;        // ptxas raises a lower CU_JIT_MAX_REGISTERS to it (sm_90)
constexpr uint32_t kRegistersPerSm = 65536;

// The register limit of CompileOptions (ptx.h) for kernel k. A kernel that needs more is charged
// the limit, and 4 bytes of local memory per register over it, rounded up to 16 (ptxas spills
// them: 288 bytes for a kernel of 110 registers limited to 40, jit_options/); the executor keeps
// every register. The info log says so, with ptxas' own lines for the option.
void charge_registers(const CompileOptions& options, CompiledKernel& k, std::string& info_log) {
  uint32_t limit = kMaxRegistersPerThread;
  const std::string profile = "sm_" + std::to_string(options.target_sm) + (options.target_sm == 90 ? "a" : "");
  if (options.max_registers != 0) {
    const auto asked = static_cast<uint32_t>(options.max_registers);
    limit = std::clamp(asked, kMinRegisterLimit, kMaxRegistersPerThread);
    if (asked < kMinRegisterLimit)
      info_log += "ptxas warning : For profile " + profile + " adjusting per thread register count of " +
                  std::to_string(asked) + " to lower bound of " + std::to_string(kMinRegisterLimit) + "\n";
    info_log += "ptxas info    : Overriding maximum register limit 256 for '" + k.name + "' with  " +
                std::to_string(limit) + " of maxrregcount option\n";
  } else {
    uint32_t threads = 1024;
    if (options.threads_per_block > 0) {
      threads = static_cast<uint32_t>(options.threads_per_block);
    } else if (k.max_ntid != 0) {
      threads = k.max_ntid;
    } else if (k.req_ntid[0] != 0) {
      threads = k.req_ntid[0] * std::max(1u, k.req_ntid[1]) * std::max(1u, k.req_ntid[2]);
    }
    limit = std::min(kMaxRegistersPerThread, kRegistersPerSm / std::max(threads, 1u) / 8 * 8);
    limit = std::max(limit, kMinRegisterLimit);
  }
  if (k.num_regs <= limit) return;
  const uint32_t spilled = k.num_regs - limit;
  info_log += "ptxas info    : Entry function '" + k.name + "' needs " + std::to_string(k.num_regs) +
              " registers; charged " + std::to_string(limit) + ", the other " + std::to_string(spilled) +
              " spill to local memory\n";
  k.num_regs = limit;
  k.local_bytes += (spilled * 4 + 15) / 16 * 16;
}
}  // namespace

const char* status_name(Status status) {
  switch (status) {
    case Status::Ok: return "Ok";
    case Status::ParseError: return "ParseError";
    case Status::UnsupportedVersion: return "UnsupportedVersion";
    case Status::UnsupportedTarget: return "UnsupportedTarget";
    case Status::InvalidImage: return "InvalidImage";
    case Status::NotSupported: return "NotSupported";
    case Status::OutOfResources: return "OutOfResources";
  }
  return "Unknown";
}

uint64_t hash_ptx(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

// The name ptxas gives PTX the driver hands it (its messages say "ptxas application ptx input,
// line N; ...").
constexpr const char* kInputName = "application ptx input";

void write_log(const std::vector<Diagnostic>& diags, std::string& log) {
  for (const auto& d : diags) {
    const char* sev = d.severity == Diagnostic::Severity::Fatal ? "fatal   : " : "error   : ";
    if (d.line > 0)
      log += std::string("ptxas ") + kInputName + ", line " + std::to_string(d.line) + "; " + sev + d.message + "\n";
    else
      log += std::string("ptxas ") + sev + d.message + "\n";
  }
  // ptxas ends with "aborted" after errors tied to lines; a fatal without a line (an unresolved
  // function) and an unsupported .version are its last word.
  bool lined = false, last_word = false;
  for (const auto& d : diags) lined |= d.line > 0, last_word |= d.last_word;
  if (lined && !last_word) log += "ptxas fatal   : Ptx assembly aborted due to errors\n";
}

constexpr int kNotATarget = -1, kUnsupportedTarget = -2;

// "sm_90", "sm_90a", "compute_90" -> 90. kNotATarget for a name that is neither sm_ nor compute_;
// kUnsupportedTarget for one ptxas 13.0 does not know (sm_91, sm_130, sm_90f: measured with
// ptxas -arch=sm_90 on each).
int target_number(const std::string& t) {
  size_t us = t.find('_');
  if (us == std::string::npos) return kNotATarget;
  std::string kind = t.substr(0, us);
  if (kind != "sm" && kind != "compute") return kNotATarget;
  const char* digits = t.c_str() + us + 1;
  char* end = nullptr;
  long v = std::strtol(digits, &end, 10);
  static constexpr int kKnown[] = {10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72,
                                   75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
  if (end == digits || std::find(std::begin(kKnown), std::end(kKnown), v) == std::end(kKnown)) return kUnsupportedTarget;
  const std::string suffix = end;
  const bool ok = suffix.empty() || (suffix == "a" && v >= 90) || (suffix == "f" && v >= 100);
  return ok ? static_cast<int>(v) : kUnsupportedTarget;
}

// The most parameter bytes a kernel may take on sm_70 and later (32764, ptxas's 0x7ffc).
constexpr uint32_t kMaxParamBytes = 0x7ffc;

// The bytes `f`'s parameters occupy, laid out by the param ABI, saturating instead of wrapping.
uint64_t param_space(const Function& f) {
  uint64_t offset = 0;
  for (const auto& p : f.params) {
    uint64_t size = decl_size(p), align = decl_align(p);
    if (size > (uint64_t{1} << 40)) return UINT64_MAX;
    offset = (offset + align - 1) / align * align + size;
  }
  return offset;
}

}  // namespace

CompileResult compile(std::string_view ptx_text, const CompileOptions& options) {
  CompileResult result;
  result.ptx_hash = hash_ptx(ptx_text);
  Module m;
  std::vector<Diagnostic> diags;
  ParseOutcome outcome = parse(ptx_text, kInputName, m, diags);
  result.ptx_version_major = m.version_major;
  result.ptx_version_minor = m.version_minor;
  if (outcome == ParseOutcome::Ok) {
    result.target_sm = target_number(m.target);
    if (result.target_sm < 0) {
      // ptxas' two answers (probe_module.txt ptx.target_bogus; tests/data/ptx/diag/unknown_target).
      diags.push_back({Diagnostic::Severity::Fatal, m.target_line,
                       result.target_sm == kUnsupportedTarget
                           ? "Unsupported .target '" + m.target + "'"
                           : std::string("Target architecture not defined at start of file '") + kInputName + "'"});
      write_log(diags, result.error_log);
      result.status = Status::ParseError;
      return result;
    }
    if (result.target_sm > options.target_sm) {
      // ptxas's words when .target is above the architecture it compiles for; it adds no
      // "aborted" line after this one.
      result.error_log = "ptxas fatal   : SM version specified by .target is higher than default SM version assumed\n";
      result.status = Status::UnsupportedTarget;
      return result;
    }
    check_features(m, diags);
    verify(m, diags, !options.relocatable);
  }
  if (!diags.empty()) {
    write_log(diags, result.error_log);
    result.status = outcome == ParseOutcome::UnsupportedVersion ? Status::UnsupportedVersion
                    : outcome == ParseOutcome::MissingVersion   ? Status::InvalidImage
                                                                : Status::ParseError;
    return result;
  }
  // The loader allocates every module variable: one beyond 4 GiB (or whose size overflows) is refused.
  for (const auto& g : m.globals) {
    if (g.linkage == "extern" || decl_size(g) <= (uint64_t{1} << 32)) continue;
    result.error_log = "ptxas error   : the variable '" + g.name + "' is larger than minicuda's JIT places (4 GiB)\n";
    result.status = Status::OutOfResources;
    return result;
  }
  if (options.relocatable) {  // checked; the link lowers the joined module
    result.status = Status::Ok;
    return result;
  }
  auto lines = std::make_shared<std::vector<std::string>>();
  for (size_t at = 0; at <= ptx_text.size();) {
    size_t nl = ptx_text.find('\n', at);
    if (nl == std::string_view::npos) nl = ptx_text.size();
    lines->emplace_back(ptx_text.substr(at, nl - at));
    at = nl + 1;
  }
  std::vector<CompiledKernel> kernels;
  for (const auto& f : m.functions) {
    if (!f.is_entry || !f.has_body) continue;
    CompiledKernel k;
    k.name = f.name;
    layout_kernel(f, k);
    if (param_space(f) > kMaxParamBytes) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "Entry function '%s' uses too much parameter space (0x%llx bytes, 0x%x max).",
                    f.name.c_str(), static_cast<unsigned long long>(param_space(f)), kMaxParamBytes);
      diags.push_back({Diagnostic::Severity::Error, f.end_line, msg});
      write_log(diags, result.error_log);
      result.status = Status::ParseError;
      return result;
    }
    if (!lower_kernel(m, f, options, lines, k, diags)) {
      write_log(diags, result.error_log);
      result.status = Status::NotSupported;
      return result;
    }
    charge_registers(options, k, result.info_log);
    result.info_log += "ptxas info    : Compiling entry function '" + k.name + "' for 'sm_" +
                       std::to_string(options.target_sm) + "'\n";
    result.info_log += "ptxas info    : Used " + std::to_string(k.num_regs) + " registers, " +
                       std::to_string(k.param_bytes) + " bytes of parameters, " +
                       std::to_string(k.static_shared_bytes) + " bytes smem, " +
                       std::to_string(k.local_bytes) + " bytes lmem\n";
    kernels.push_back(std::move(k));
  }
  result.kernels = std::move(kernels);
  result.globals = layout_globals(m);
  result.status = Status::Ok;
  return result;
}

}  // namespace minicuda::ptx
