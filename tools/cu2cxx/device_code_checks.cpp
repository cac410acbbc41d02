// cu2cxx's handling of CUDA dynamic parallelism (CDP2): device code that launches work, and the
// device runtime's API in device code. Contracts: rewrites.h (find_dynamic_parallelism,
// rewrite_device_runtime).
//
// nvcc compiles a launch inside a kernel with relocatable device code (-rdc=true) and the device
// runtime (cudadevrt), which queues the child grid on the GPU itself; a call of cudaGetLastError,
// cudaStreamCreateWithFlags, ... in device code resolves to the device runtime's function of that
// name. The translator does the same by rewriting inside device-only bodies: a launch goes to the
// device stub (::minicuda::devrt::device_stub, cuda_device_runtime_api.h), which writes a launch
// record for the GPU's device runtime, and the device runtime's functions that minicuda has are
// called by their ::minicuda::devrt names. What CDP2 does not allow (cudaDeviceSynchronize) or
// minicuda's device runtime does not have is an error naming it, before g++ sees it.
#include <algorithm>
#include <iterator>

#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// The device runtime's functions minicuda has (cuda_device_runtime_api.h, namespace minicuda::devrt).
constexpr std::string_view kDeviceRuntimeFunctions[] = {"cudaGetLastError", "cudaPeekAtLastError",
                                                        "cudaStreamCreateWithFlags", "cudaStreamDestroy",
                                                        "cudaMalloc", "cudaFree", "malloc", "free"};

// The calls of those that use the device heap (docs/device-heap.md).
constexpr std::string_view kDeviceHeapFunctions[] = {"cudaMalloc", "cudaFree", "malloc", "free"};

// The device runtime's functions (cuda_device_runtime_api.h) it does not have.
constexpr std::string_view kDeviceRuntimeMissing[] = {
    "cudaLaunchKernel",  "cudaLaunchKernel_ptsz", "cudaLaunchKernelEx",      "cudaLaunchDevice",
    "cudaGetParameterBuffer", "cudaGetParameterBufferV2", "cudaGraphLaunch", "cudaEventRecord",
    "cudaEventRecordWithFlags", "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaStreamWaitEvent",
    "cudaMemcpyAsync",   "cudaMemsetAsync",       "cudaMemcpy2DAsync",       "cudaMemcpy3DAsync",
    "cudaDeviceGetAttribute",  "cudaDeviceGetLimit",
    "cudaFuncGetAttributes", "cudaGetDevice",     "cudaGetDeviceCount",      "cudaRuntimeGetVersion"};

template <std::size_t N>
bool is_one_of(const Token& t, const std::string_view (&names)[N]) {
  return t.is_identifier() && std::find(std::begin(names), std::end(names), t.text) != std::end(names);
}

// True when token j is a call of a free function: `name(`, not `x.name(`, `p->name(` or `ns::name(`
// (`::name(` is the global one, which counts).
bool is_free_call(const Tokens& tokens, std::size_t j, std::size_t close) {
  if (j + 1 >= close || !tokens[j + 1].is_punct("(")) return false;
  const Token& before = tokens[j - 1];
  if (before.is_punct(".") || (before.is_punct(">") && tokens[j - 2].is_punct("-"))) return false;
  if (before.is_punct("::")) return !tokens[j - 2].is_identifier() && !tokens[j - 2].is_punct(">");
  return true;
}

// The name of the function whose body opens at `brace`: the identifier before its parameter list.
std::string function_name_before(const Tokens& tokens, std::size_t brace) {
  for (std::size_t k = brace; k-- > 0;) {
    if (tokens[k].is_punct(")")) {
      const auto open = matching_open(tokens, k);
      if (open && *open > 0 && tokens[*open - 1].is_identifier()) return std::string(tokens[*open - 1].text);
      return "?";
    }
  }
  return "?";
}

// Calls body(open, close) for the body of every __global__ or __device__ (not __host__) function
// at namespace scope, open and close being the indices of its braces.
template <class Body>
void for_each_device_only_body(const Tokens& tokens, Body body) {
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (!tokens[k].is_punct("{") || in_function[k] || !opens_function_body(tokens, k)) continue;
    const auto close = matching_close(tokens, k);
    if (!close) continue;
    if (declared_device_only(tokens, k)) body(k, *close);
    k = *close;
  }
}

}  // namespace

std::vector<Diagnostic> find_dynamic_parallelism(const Tokens& tokens, const LineIndex& lines) {
  std::vector<Diagnostic> found;
  for_each_device_only_body(tokens, [&](std::size_t open, std::size_t close) {
    const std::string function = function_name_before(tokens, open);
    for (std::size_t j = open + 1; j < close; ++j) {
      if (!tokens[j].is_identifier() || !is_free_call(tokens, j, close)) continue;
      const std::string name(tokens[j].text);
      std::string message;
      if (name == "cudaDeviceSynchronize") {
        message = "device function '" + function +
                  "' calls cudaDeviceSynchronize(), which device code cannot call: CUDA 12 and later (dynamic "
                  "parallelism CDP2) have no device-side cudaDeviceSynchronize (nvcc: calling a __host__ function "
                  "from a __global__ function is not allowed); a parent grid completes only after its children, "
                  "so wait on the host, or launch the work that needs the children's results into "
                  "cudaStreamTailLaunch";
      } else if (is_one_of(tokens[j], kDeviceRuntimeMissing)) {
        message = "device function '" + function + "' calls " + name +
                  "(): minicuda's device runtime (CUDA dynamic parallelism) does not have " + name +
                  " in device code (it has <<<>>> launches, cudaStreamCreateWithFlags, cudaStreamDestroy, "
                  "cudaGetLastError, cudaPeekAtLastError, cudaMalloc and cudaFree); call it from host code";
      } else {
        continue;
      }
      found.push_back(Diagnostic{lines.line_of(tokens[j].begin), std::move(message)});
    }
  });
  return found;
}

void rewrite_device_runtime(const Tokens& tokens, std::vector<Edit>& edits) {
  std::vector<Edit> calls;
  for_each_device_only_body(tokens, [&](std::size_t open, std::size_t close) {
    const std::size_t begin = tokens[open].begin, end = tokens[close].end;
    auto in_body = [&](const Edit& e) { return e.begin >= begin && e.end <= end; };
    // The launches pass 1 rewrote for the host: in device code they go to the device stub.
    for (Edit& e : edits) {
      if (!in_body(e)) continue;
      auto swap = [&](std::string_view from, std::string_view to) {
        for (std::size_t at = e.replacement.find(from); at != std::string::npos; at = e.replacement.find(from, at + to.size()))
          e.replacement.replace(at, from.size(), to);
      };
      if (e.replacement.find("__cudaPushCallConfiguration(") == std::string::npos) continue;
      swap("__cudaPushCallConfiguration(", "::minicuda::devrt::push_call_configuration(");
      swap("::minicuda::kernel_stub<", "::minicuda::devrt::device_stub<");
      swap("::minicuda::launch_deduced(", "::minicuda::devrt::launch_deduced(");
    }
    for (std::size_t j = open + 1; j < close; ++j) {
      if (!is_one_of(tokens[j], kDeviceRuntimeFunctions) || !is_free_call(tokens, j, close)) continue;
      const std::size_t at = tokens[j - 1].is_punct("::") ? tokens[j - 1].begin : tokens[j].begin;
      const bool inside_edit = std::any_of(edits.begin(), edits.end(), [&](const Edit& e) {
        return at >= e.begin && at < e.end;
      });
      if (!inside_edit) calls.push_back(Edit{at, tokens[j].end, "::minicuda::devrt::" + std::string(tokens[j].text)});
    }
  });
  edits.insert(edits.end(), std::make_move_iterator(calls.begin()), std::make_move_iterator(calls.end()));
}

bool device_code_uses_heap(const Tokens& tokens) {
  bool uses = false;
  for_each_device_only_body(tokens, [&](std::size_t open, std::size_t close) {
    for (std::size_t j = open + 1; j < close && !uses; ++j)
      uses = is_one_of(tokens[j], kDeviceHeapFunctions) && is_free_call(tokens, j, close);
  });
  return uses;
}

std::vector<Edit> rewrite_device_clock(const Tokens& tokens) {
  std::vector<Edit> edits;
  for_each_device_only_body(tokens, [&](std::size_t open, std::size_t close) {
    for (std::size_t j = open + 1; j + 2 < close; ++j) {
      if (!tokens[j].is_identifier("clock") || !tokens[j + 1].is_punct("(") || !tokens[j + 2].is_punct(")")) continue;
      const Token& before = tokens[j - 1];
      if (before.is_punct("::") || before.is_punct(".") || (before.is_punct(">") && j >= 2 && tokens[j - 2].is_punct("-"))) {
        continue;  // std::clock(), ::clock(), obj.clock(), p->clock(): not the device built-in
      }
      edits.push_back(Edit{tokens[j].begin, tokens[j + 2].end,
                           "static_cast<clock_t>(static_cast<unsigned int>(::clock64()))"});
    }
  });
  return edits;
}

}  // namespace minicuda::cu2cxx
