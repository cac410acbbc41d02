// The subcommands of the minicuda command (docs/cli.md). Each returns the process's exit status.
#pragma once

#include <string>
#include <vector>

namespace minicuda::cli {

struct RunOptions {
  std::string trace = "1";        // MINICUDA_TRACE: 1/all, or a comma list of layers
  std::string format = "text";    // MINICUDA_TRACE_FORMAT: text, json or chrome
  std::string out;                // MINICUDA_TRACE_FILE; empty: the trace goes to stderr
  std::vector<std::string> command;  // the program and its arguments
};

// Sets the trace variables and replaces this process with the program (execvp): the exit
// status is then the program's. Returns only on failure (127: not found, 126: not executable,
// 2: a bad option value).
int run(const RunOptions& options);

// deviceQuery's figures for every GPU the runtime sees (cudaGetDeviceCount and
// cudaGetDeviceProperties, so MINICUDA_DEVICE(S) and CUDA_VISIBLE_DEVICES apply).
int devices();

// Records `call` in a fresh simulated process and prints its chain, annotated where it first
// enters each layer. An unknown call lists the known ones and returns 2.
int explain(const std::string& call);
// The names explain knows, in the order the help lists them.
std::vector<std::string> explain_calls();

// Runs the program with libcuda's and the GPU's Chrome trace in a temporary file, then prints
// device memory, channels and the engines' busy time from it. Returns the program's status.
int smi(const std::vector<std::string>& command);

// Runs the program with the GPU's Chrome trace in a temporary file, then prints one table of
// counters per kernel the SIMT executor ran (ncu --print-summary's shape). Returns the
// program's status (127: not found, 126: not executable, 2: no program given).
int profile(const std::vector<std::string>& command);

struct SmiLiveOptions {
  bool query = false;     // -q: the detailed form instead of the table
  int loop_seconds = 0;   // --loop N: print again every N seconds until interrupted; 0: once
};

// The simulated GPUs of every running minicuda program, from the status files their nvidia.ko
// publishes (minicuda/gpu_status.h): the nvidia-smi table, or the -q form. Stale files (a pid
// that is gone) are skipped, unreadable ones named on stderr. Returns 0.
int smi_live(const SmiLiveOptions& options);

struct SassOptions {
  std::string file;             // a .ptx file
  std::string kernel;           // one .entry to print; empty: every one
  std::string arch = "sm_90";   // the architecture to compile for (CU_JIT_TARGET)
};

// Compiles a .ptx file with libcuda's JIT and prints each kernel's SASS beside its PTX lines
// (minicuda's `cuobjdump -sass`). A file that does not compile prints the JIT's ptxas-style
// error log and returns 1, as does a --kernel the file lacks; a bad --arch returns 2.
int sass(const SassOptions& options);

// The closest of `candidates` to `word` (edit distance at most 2, or a prefix), or "".
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace minicuda::cli

// explain_kernel.cu: launches a small kernel (n threads add 1 to d[i]) with <<<>>>.
int minicuda_cli_launch_add_one(int* d, int n);
