// minicuda explain CALL: one CUDA call recorded in a fresh simulated process (the kernel modules
// loaded, the process new, the runtime not yet initialised), its trace tree printed with one
// line of explanation where the chain first enters each layer.
//
// Each scenario does its set-up unrecorded, then records the call (and, for asynchronous work,
// the synchronisation that lets the GPU's part show). Lines of other host threads ("t2#...")
// are the simulated GPU's own thread fetching and executing the work.
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "minicuda/kernel.h"
#include "minicuda/trace.h"

namespace minicuda::cli {
namespace {

namespace trace = minicuda::trace;

// Starts the recording when the set-up is done.
struct Recording {
  std::optional<trace::Recorder> recorder;
  void start() { recorder.emplace(); }
};

struct Scenario {
  const char* name;
  const char* recorded;                        // what the recording holds, in words
  std::map<std::string, std::string> layers;   // per trace layer name: the explanation
  std::function<cudaError_t(Recording&)> body;  // set-up, start(), the call
};

// What each layer is, when a scenario has nothing more specific to say.
const std::map<std::string, std::string> kLayerRoles = {
    {"cudart", "libcudart, the runtime: checks the arguments, initialises lazily, calls libcuda"},
    {"libcuda", "libcuda, the user-mode driver: memory pools, channels and pushbuffers, module loading"},
    {"libc", "the C library: malloc's heap, the system call wrappers"},
    {"kernel", "the Linux kernel: the system call boundary (open, ioctl, mmap), dispatched to a driver"},
    {"nvidia", "nvidia.ko, the kernel driver: its resource manager (RM) objects and the GPU's memory"},
    {"uvm", "nvidia-uvm.ko: the unified address space and its GPU mappings"},
    {"gpu", "the simulated GPU: MMU, doorbell, PBDMA, copy and compute engines"},
    {"app", "the program itself"},
};

std::vector<Scenario> scenarios() {
  std::vector<Scenario> list;
  list.push_back({"cudaMalloc",
                  "the process's first cudaMalloc(&d, 262144)",
                  {{"cudart", "checks devPtr and, being the first call, initialises lazily: cuInit, the device "
                              "queries, the primary context"},
                   {"libcuda", "cuInit opens the device files; cuMemAlloc_v2 takes a slot of a 2 MiB pool chunk, "
                               "growing the pool by one chunk when none is free"},
                   {"kernel", "every open, ioctl and mmap is a system call: the kernel hands the ioctl to "
                              "nvidia.ko or nvidia-uvm.ko"},
                   {"nvidia", "nvidia.ko's resource manager creates the RM objects (client, device, subdevice, "
                              "memory) and allocates the VRAM"},
                   {"uvm", "nvidia-uvm registers the GPU and its address space, then maps each new range (the "
                           "channel's, the staging buffer, the pool chunk) for the GPU"},
                   {"gpu", "the GPU's MMU writes page-table entries for each mapping; the context's channel is "
                           "created and its first work fetched (t2# lines: the GPU's own thread)"}},
                  [](Recording& r) {
                    void* d = nullptr;
                    r.start();
                    return cudaMalloc(&d, 262144);
                  }});
  list.push_back({"cudaFree",
                  "cudaFree of two 256 KiB blocks of one pool chunk (set-up: the two cudaMalloc calls)",
                  {{"cudart", "checks the pointer (an unknown one is cudaErrorInvalidValue)"},
                   {"libcuda", "the first cudaFree gives slots back to the pool with no system call; the second "
                               "empties the chunk, which goes back to the kernel"},
                   {"kernel", "the ioctls that unmap and free the chunk"},
                   {"nvidia", "nvidia.ko frees the memory's RM object and its VRAM"},
                   {"uvm", "nvidia-uvm removes the chunk's range from the unified address space"},
                   {"gpu", "the GPU's MMU: the chunk's page-table entries are cleared"}},
                  [](Recording& r) {
                    void *a = nullptr, *b = nullptr;
                    if (cudaError_t err = cudaMalloc(&a, 262144); err != cudaSuccess) return err;
                    if (cudaError_t err = cudaMalloc(&b, 262144); err != cudaSuccess) return err;
                    r.start();
                    if (cudaError_t err = cudaFree(b); err != cudaSuccess) return err;
                    return cudaFree(a);
                  }});
  list.push_back({"cudaMemcpy",
                  "cudaMemcpy of 64 KiB host-to-device from pageable memory (set-up: cudaMalloc)",
                  {{"cudart", "checks the kind and the pointers, then calls cuMemcpyHtoD_v2"},
                   {"libcuda", "pageable memory cannot be read by the copy engine: libcuda copies it into a "
                               "pinned staging buffer, writes copy methods into the channel's pushbuffer and "
                               "rings the doorbell; cudaMemcpy waits for the copy"},
                   {"gpu", "the doorbell wakes the PBDMA, which fetches the methods; the copy engine moves the "
                           "bytes (no system call at all)"}},
                  [](Recording& r) {
                    void* d = nullptr;
                    if (cudaError_t err = cudaMalloc(&d, 65536); err != cudaSuccess) return err;
                    std::vector<int> host(16384, 7);
                    r.start();
                    return cudaMemcpy(d, host.data(), 65536, cudaMemcpyHostToDevice);
                  }});
  list.push_back({"cudaHostAlloc",
                  "cudaHostAlloc(&h, 65536, cudaHostAllocDefault) (set-up: cudaMalloc, for the context)",
                  {{"cudart", "checks the flags, then calls cuMemHostAlloc"},
                   {"libcuda", "maps host pages and asks the driver to pin them and map them for the GPU"},
                   {"libc", "the pages come from mmap, the system call wrapper of the C library"},
                   {"kernel", "mmap and the ioctls that pin the pages: they stay in RAM, at fixed physical "
                              "addresses"},
                   {"nvidia", "nvidia.ko describes the pinned pages as system memory the GPU may read "
                              "(an RM memory object)"},
                   {"uvm", "nvidia-uvm maps the pinned range into the GPU's view of the unified address "
                           "space"},
                   {"gpu", "the GPU's MMU: page-table entries pointing at host memory"}},
                  [](Recording& r) {
                    void* d = nullptr;
                    if (cudaError_t err = cudaMalloc(&d, 256); err != cudaSuccess) return err;
                    void* h = nullptr;
                    r.start();
                    return cudaHostAlloc(&h, 65536, cudaHostAllocDefault);
                  }});
  list.push_back({"cudaMemcpyAsync",
                  "cudaMemcpyAsync of 64 KiB host-to-device from pinned memory on a stream, then "
                  "cudaStreamSynchronize (set-up: cudaMalloc, cudaHostAlloc, cudaStreamCreate)",
                  {{"cudart", "checks the kind and the stream, then calls cuMemcpyHtoDAsync_v2 and returns "
                              "without waiting"},
                   {"libcuda", "pinned memory goes straight to the copy engine: copy methods into the stream's "
                               "channel, a GPFIFO entry, the doorbell; the synchronize waits on the channel's "
                               "semaphore"},
                   {"gpu", "the PBDMA fetches the methods and the copy engine moves the bytes while the host "
                           "thread goes on"}},
                  [](Recording& r) {
                    void* d = nullptr;
                    void* pinned = nullptr;
                    cudaStream_t s = nullptr;
                    if (cudaError_t err = cudaMalloc(&d, 65536); err != cudaSuccess) return err;
                    if (cudaError_t err = cudaHostAlloc(&pinned, 65536, cudaHostAllocDefault); err != cudaSuccess) {
                      return err;
                    }
                    if (cudaError_t err = cudaStreamCreate(&s); err != cudaSuccess) return err;
                    if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) return err;
                    r.start();
                    if (cudaError_t err = cudaMemcpyAsync(d, pinned, 65536, cudaMemcpyHostToDevice, s);
                        err != cudaSuccess) {
                      return err;
                    }
                    return cudaStreamSynchronize(s);
                  }});
  list.push_back({"launch",
                  "the first launch add_one<<<256, 256>>>(d, 65536) of explain_kernel.cu, then "
                  "cudaDeviceSynchronize (set-up: cudaMalloc, cudaMemset)",
                  {{"libcuda", "on the first launch the runtime loads the .cu's module (cuLibraryLoadData, "
                               "cuLibraryGetKernel); cuLaunchKernel then writes the kernel's code record, a QMD "
                               "(the launch descriptor) with the parameters, compute methods, and rings the "
                               "doorbell: no system call"},
                   {"cudart", "cudaLaunchKernel, which <<<>>> calls: checks the configuration, then calls "
                              "cuLaunchKernel"},
                   {"gpu", "the PBDMA hands the QMD to the compute engine, which spreads the blocks over the "
                           "SMs; the synchronize waits for the semaphore released at the end"}},
                  [](Recording& r) {
                    int* d = nullptr;
                    const int n = 65536;
                    if (cudaError_t err = cudaMalloc(&d, n * sizeof(int)); err != cudaSuccess) return err;
                    if (cudaError_t err = cudaMemset(d, 0, n * sizeof(int)); err != cudaSuccess) return err;
                    if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) return err;
                    r.start();
                    if (int err = minicuda_cli_launch_add_one(d, n); err != 0) return static_cast<cudaError_t>(err);
                    return cudaDeviceSynchronize();
                  }});
  return list;
}

// The layer column of a tree line ("#8   cudart   ..." or "t2#8 gpu ...").
std::string layer_of(const std::string& line) {
  std::istringstream words(line);
  std::string root, layer;
  words >> root >> layer;
  return layer;
}

}  // namespace

std::vector<std::string> explain_calls() {
  std::vector<std::string> names;
  for (const Scenario& s : scenarios()) names.push_back(s.name);
  return names;
}

int explain(const std::string& call) {
  std::vector<Scenario> list = scenarios();
  const Scenario* scenario = nullptr;
  for (const Scenario& s : list) {
    if (call == s.name || (call == "cudaLaunchKernel" && std::string(s.name) == "launch")) scenario = &s;
  }
  if (scenario == nullptr) {
    std::string known;
    for (const Scenario& s : list) known += std::string(known.empty() ? "" : ", ") + s.name;
    std::string guess = closest(call, explain_calls());
    std::fprintf(stderr, "minicuda explain: no scenario for '%s'", call.c_str());
    if (!guess.empty()) std::fprintf(stderr, "; did you mean '%s'?", guess.c_str());
    std::fprintf(stderr, " known calls: %s\n", known.c_str());
    return 2;
  }

  // A fresh process: the modules' probe messages stay out of the recording.
  minicuda::kernel::boot();
  std::unique_ptr<minicuda::kernel::Process> process = minicuda::kernel::spawn_process();
  minicuda::kernel::ProcessScope scope(*process);
  Recording recording;
  cudaError_t result = scenario->body(recording);
  std::string tree = recording.recorder ? recording.recorder->tree() : std::string();
  recording.recorder.reset();

  std::printf("minicuda explain %s: %s\n", scenario->name, scenario->recorded);
  std::printf("Each \">> layer:\" line explains the layer where the chain first enters it.\n\n");
  std::map<std::string, bool> seen;
  std::istringstream lines(tree);
  for (std::string line; std::getline(lines, line);) {
    std::string layer = layer_of(line);
    if (!layer.empty() && !seen[layer]) {
      seen[layer] = true;
      auto specific = scenario->layers.find(layer);
      auto role = kLayerRoles.find(layer);
      const std::string& text = specific != scenario->layers.end() ? specific->second
                                : role != kLayerRoles.end()       ? role->second
                                                                  : layer;
      std::printf(">> %s: %s\n", layer.c_str(), text.c_str());
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("\nresult: %s\n", cudaGetErrorName(result));
  return result == cudaSuccess ? 0 : 1;
}

}  // namespace minicuda::cli
