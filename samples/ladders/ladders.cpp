// ladders: the optimisation ladders of GPU courses (transpose, reduction, matrix multiply, plus
// vector_add and an FMA-bound kernel), timed with events in minicuda's simulated time. The
// kernels are nvcc's PTX of tests/data/h200/timing/probe_ladders.cu - the program that timed the
// same kernels on an H200 - so both run identical code; the SIMT executor counts what each does
// and the work-aware cost model times it (docs/timing.md).
//
// Usage: ladders [--more] [--ladder LADDER] [ladders.ptx [probe_ladders.txt]]
//   Prints one line per rung: "rung LADDER NAME size=N ms=SIM", then the H200's time for the same
//   rung and size from its recording (by default the one in tests/data/h200/timing) and the ratio
//   simulated / H200. --more adds larger sizes;
//   --ladder runs one ladder only (transpose, reduce, matmul, vector_add, fma), as the profiling
//   lab does (docs/labs/profile-the-ladders.md).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cuda.h>

#include "../driver_api/drv_check.h"

#ifndef MINICUDA_LADDERS_PTX
#define MINICUDA_LADDERS_PTX "ladders.ptx"
#endif
#ifndef MINICUDA_LADDERS_RECORDING
#define MINICUDA_LADDERS_RECORDING "probe_ladders.txt"
#endif

namespace {

struct Rung {
  const char* ladder;
  const char* name;  // as the probe prints it
  const char* kernel;
  long size;
  int gx, gy, bx, by;
  std::vector<int> pointers;  // which of the buffers a, b, c each pointer parameter gets
  std::vector<int> ints;      // the int parameters after them
};

// The rungs at the simulator's sizes: by default the smallest of the probe's, which a debug
// build runs in about a minute; `more` adds the next sizes the probe timed.
std::vector<Rung> rungs(bool more) {
  std::vector<Rung> out;
  for (int t : more ? std::vector<int>{1024, 2048} : std::vector<int>{1024}) {
    out.push_back({"transpose", "copy", "transpose_copy", t, t / 32, t / 32, 32, 8, {0, 2}, {t}});
    out.push_back({"transpose", "naive", "transpose_naive", t, t / 32, t / 32, 32, 8, {0, 2}, {t}});
    out.push_back({"transpose", "shared", "transpose_shared", t, t / 32, t / 32, 32, 8, {0, 2}, {t}});
    out.push_back({"transpose", "padded", "transpose_padded", t, t / 32, t / 32, 32, 8, {0, 2}, {t}});
  }
  for (int r : more ? std::vector<int>{1 << 20, 1 << 22} : std::vector<int>{1 << 20}) {
    out.push_back({"reduce", "divergent", "reduce_divergent", r, r / 256, 1, 256, 1, {0, 2}, {r}});
    out.push_back({"reduce", "strided_index", "reduce_strided_index", r, r / 256, 1, 256, 1, {0, 2}, {r}});
    out.push_back({"reduce", "sequential", "reduce_sequential", r, r / 256, 1, 256, 1, {0, 2}, {r}});
    out.push_back({"reduce", "add_on_load", "reduce_add_on_load", r, r / 512, 1, 256, 1, {0, 2}, {r}});
    out.push_back({"reduce", "unroll_last_warp", "reduce_unroll_last_warp", r, r / 512, 1, 256, 1, {0, 2}, {r}});
    out.push_back({"reduce", "complete_unroll", "reduce_complete_unroll", r, r / 512, 1, 256, 1, {0, 2}, {r}});
  }
  for (int m : more ? std::vector<int>{256, 512} : std::vector<int>{256}) {
    out.push_back({"matmul", "naive", "matmul_naive", m, m / 16, m / 16, 16, 16, {0, 1, 2}, {m}});
    out.push_back({"matmul", "tiled", "matmul_tiled", m, m / 16, m / 16, 16, 16, {0, 1, 2}, {m}});
  }
  for (int v : more ? std::vector<int>{1 << 12, 1 << 16, 1 << 20, 1 << 22} : std::vector<int>{1 << 20})
    out.push_back({"vector_add", "vector_add", "vector_add", v, (v + 255) / 256, 1, 256, 1, {0, 1, 2}, {v}});
  for (int f : more ? std::vector<int>{16, 256} : std::vector<int>{16})
    out.push_back({"fma", "fma_bound", "fma_bound", f, 132 * 8, 1, 256, 1, {2}, {f}});
  return out;
}

// The H200's median ms per "ladder name size" from the probe's recording.
std::map<std::string, double> h200_times(const char* path) {
  std::map<std::string, double> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    char ladder[64], name[64];
    long size = 0;
    double ms = 0;
    if (std::sscanf(line.c_str(), "rung %63s %63s size=%ld ms=%lf", ladder, name, &size, &ms) == 4)
      out[std::string(ladder) + " " + name + " " + std::to_string(size)] = ms;
  }
  return out;
}

// The verdict against the H200: how many rungs are within 1.5x of its time, and whether each
// ladder's rungs come in the H200's order (the copy, a reference and not a rung, left out).
template <class Timed>
void report(const std::vector<Timed>& timed) {
  int within = 0;
  for (const Timed& t : timed) within += t.sim_ms <= 1.5 * t.h200_ms && t.h200_ms <= 1.5 * t.sim_ms;
  std::map<std::string, std::vector<Timed>> ladders;
  for (const Timed& t : timed)
    if (t.name != "copy") ladders[t.group].push_back(t);
  std::string differ;
  for (auto& [group, rungs] : ladders) {
    std::vector<Timed> by_sim = rungs, by_h200 = rungs;
    std::stable_sort(by_sim.begin(), by_sim.end(), [](const Timed& a, const Timed& b) { return a.sim_ms < b.sim_ms; });
    std::stable_sort(by_h200.begin(), by_h200.end(), [](const Timed& a, const Timed& b) { return a.h200_ms < b.h200_ms; });
    for (size_t i = 0; i < rungs.size(); ++i)
      if (by_sim[i].name != by_h200[i].name) {
        differ += " " + group;
        break;
      }
  }
  std::printf("ladders: %d of %zu rungs within 1.5x of the H200; ", within, timed.size());
  if (differ.empty()) std::printf("every ladder in the H200's order\n");
  else std::printf("order differs from the H200's in:%s\n", differ.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bool more = false;
  std::string only;  // --ladder: the one ladder to run
  while (argc > 1 && std::strncmp(argv[1], "--", 2) == 0) {
    if (std::strcmp(argv[1], "--more") == 0) {
      more = true;
    } else if (std::strcmp(argv[1], "--ladder") == 0 && argc > 2) {
      only = argv[2];
      --argc, ++argv;
    } else {
      std::fprintf(stderr, "usage: ladders [--more] [--ladder LADDER] [ladders.ptx [probe_ladders.txt]]\n");
      return 2;
    }
    --argc, ++argv;
  }
  std::vector<Rung> chosen;
  for (const Rung& r : rungs(more))
    if (only.empty() || only == r.ladder) chosen.push_back(r);
  if (chosen.empty()) {
    std::fprintf(stderr, "ladders: no ladder '%s'; the ladders: transpose, reduce, matmul, vector_add, fma\n",
                 only.c_str());
    return 2;
  }
  const char* ptx_path = argc > 1 ? argv[1] : MINICUDA_LADDERS_PTX;
  const std::map<std::string, double> h200 = h200_times(argc > 2 ? argv[2] : MINICUDA_LADDERS_RECORDING);
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  CHECK(cuModuleLoad(&module, ptx_path));

  const size_t elems = more ? 1 << 22 : 1 << 20;
  std::vector<float> host(elems);
  for (size_t i = 0; i < elems; ++i) host[i] = static_cast<float>(i % 1000) * 0.001f;
  CUdeviceptr buffers[3];
  for (CUdeviceptr& b : buffers) {
    CHECK(cuMemAlloc(&b, elems * 4));
    CHECK(cuMemcpyHtoD(b, host.data(), elems * 4));
  }
  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));

  struct Timed {
    std::string group;  // "ladder size"
    std::string name;
    double sim_ms, h200_ms;
  };
  std::vector<Timed> timed;
  for (const Rung& r : chosen) {
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, module, r.kernel));
    std::vector<void*> args;
    CUdeviceptr ptrs[3];
    int ints[2];
    for (size_t i = 0; i < r.pointers.size(); ++i) ptrs[i] = buffers[r.pointers[i]], args.push_back(&ptrs[i]);
    for (size_t i = 0; i < r.ints.size(); ++i) ints[i] = r.ints[i], args.push_back(&ints[i]);
    // Simulated time does not vary from run to run, so one timed launch is the median.
    CHECK(cuEventRecord(start, nullptr));
    CHECK(cuLaunchKernel(f, unsigned(r.gx), unsigned(r.gy), 1, unsigned(r.bx), unsigned(r.by), 1, 0, nullptr, args.data(), nullptr));
    CHECK(cuEventRecord(stop, nullptr));
    CHECK(cuEventSynchronize(stop));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    std::printf("rung %s %s size=%ld ms=%.5f", r.ladder, r.name, r.size, ms);
    auto it = h200.find(std::string(r.ladder) + " " + r.name + " " + std::to_string(r.size));
    if (it != h200.end()) {
      std::printf(" h200_ms=%.5f ratio=%.2f", it->second, ms / it->second);
      timed.push_back({std::string(r.ladder) + " " + std::to_string(r.size), r.name, ms, it->second});
    }
    std::printf("\n");
  }
  if (!timed.empty()) report(timed);
  for (CUdeviceptr b : buffers) CHECK(cuMemFree(b));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(context));
  return 0;
}
