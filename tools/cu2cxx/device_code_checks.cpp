// cu2cxx's check for CUDA dynamic parallelism: device code that launches work. Contract:
// rewrites.h (find_dynamic_parallelism).
//
// nvcc compiles a launch inside a kernel only with relocatable device code (-rdc=true) and the
// device runtime (cudadevrt), which queues the child grid on the GPU itself. minicuda has no
// device runtime: its kernels run on the simulated SMs' host threads, and a launch from there
// would re-enter the runtime from inside the GPU. So the translator refuses such code with an
// error that names the feature, before g++ sees it, rather than let it fail obscurely at run time
// (where a runtime call from kernel code returns cudaErrorNotSupported).
#include <algorithm>
#include <iterator>

#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// The device runtime's functions that launch or wait for child work (cuda_device_runtime_api.h).
constexpr std::string_view kDeviceRuntimeLaunches[] = {
    "cudaLaunchKernel",   "cudaLaunchKernel_ptsz", "cudaLaunchKernelEx", "cudaLaunchDevice",
    "cudaGetParameterBuffer", "cudaGetParameterBufferV2", "cudaDeviceSynchronize", "cudaGraphLaunch",
    "cudaStreamCreateWithFlags", "cudaStreamDestroy", "cudaEventRecord", "cudaStreamWaitEvent"};

bool is_device_runtime_launch(const Token& t) {
  return t.is_identifier() && std::find(std::begin(kDeviceRuntimeLaunches), std::end(kDeviceRuntimeLaunches),
                                        t.text) != std::end(kDeviceRuntimeLaunches);
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
      std::string what;
      if (j + 2 < close && tokens[j].is_punct("<") && tokens[j + 1].is_punct("<") && tokens[j + 2].is_punct("<") &&
          adjacent(tokens[j], tokens[j + 1]) && adjacent(tokens[j + 1], tokens[j + 2])) {
        what = "launches a kernel with <<<...>>>";
        j += 2;
      } else if (is_device_runtime_launch(tokens[j]) && j + 1 < close && tokens[j + 1].is_punct("(")) {
        what = "calls " + std::string(tokens[j].text) + "()";
      } else {
        continue;
      }
      found.push_back(Diagnostic{lines.line_of(tokens[j].begin),
                                 "device function '" + function + "' " + what +
                                     ": that is CUDA dynamic parallelism (a launch from device code, nvcc "
                                     "-rdc=true with the device runtime), which minicuda does not simulate; "
                                     "launch the work from host code"});
    }
  });
  return found;
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
