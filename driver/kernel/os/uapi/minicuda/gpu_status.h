// minicuda/gpu_status.h: where a running program's nvidia.ko publishes the state of its simulated
// GPUs, and the version of what it writes - the contract between the publisher
// (driver/kernel/nvidia_ko/src/nv_smi.cpp) and its reader, `minicuda smi` (docs/cli.md). It plays
// the part of NVML for minicuda: every program simulates its own GPUs inside its own host
// process, so another process (the CLI) can only see them through a file.
//
// One file per host process, DIRECTORY/<pid>.json, a JSON object of format kGpuStatusVersion
// (docs/cli.md lists its fields). The program rewrites it at most every interval (written
// to <pid>.json.tmp, then renamed over the old one, so a reader never sees half a file) and
// removes it at exit. A file whose pid is not running, or runs a process started at another
// time than the file's start_time, is stale (the program was killed): readers ignore it.
//
// Environment (read once, when the program's first RM client is made):
//   MINICUDA_SMI=0                 publish nothing (default: publish)
//   MINICUDA_SMI_INTERVAL_MS=N     rewrite at most every N ms (default 500; 10 at least)
//   MINICUDA_SMI_DIR=DIR           the folder (default: $XDG_RUNTIME_DIR/minicuda, else
//                                  /tmp/minicuda-<uid>)
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace minicuda {

inline constexpr int kGpuStatusVersion = 1;
inline constexpr int kGpuStatusDefaultIntervalMs = 500;
inline constexpr int kGpuStatusMinimumIntervalMs = 10;

// The folder of the status files, as the environment names it (see above).
inline std::string gpu_status_directory() {
  if (const char* dir = std::getenv("MINICUDA_SMI_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run != nullptr && *run != '\0')
    return std::string(run) + "/minicuda";
  return "/tmp/minicuda-" + std::to_string(static_cast<unsigned long>(getuid()));
}

}  // namespace minicuda
