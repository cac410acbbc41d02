// What cuModuleLoadDataEx does with the JIT options a caller may pass (CUDA 13, H200): the
// register limit (CU_JIT_MAX_REGISTERS), the optimisation level, the target, and the logs. For
// each: the result, the function's NUM_REGS and LOCAL_SIZE_BYTES, the logs, and whether the
// kernel still computes what it computes without options.
// Build and run: see run_probe_jit_options.sh.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string ptx;
static std::vector<float> reference;
constexpr int kN = 256;

static std::string quoted(const char* s) {
  std::string out = "\"";
  for (; *s; ++s) out += *s == '\n' ? std::string("\\n") : *s == '"' ? std::string("\\\"") : std::string(1, *s);
  return out + "\"";
}

static const char* name_of(CUresult r) {
  const char* n = nullptr;
  cuGetErrorName(r, &n);
  return n ? n : "?";
}

// Loads the PTX with opts (the logs added), prints what came back; runs the kernel when it loaded.
static void load(const char* key, std::vector<CUjit_option> opts, std::vector<void*> values, bool run = true) {
  char info[4096] = {}, error[4096] = {};
  opts.push_back(CU_JIT_INFO_LOG_BUFFER), values.push_back(info);
  opts.push_back(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES), values.push_back(reinterpret_cast<void*>(sizeof info));
  opts.push_back(CU_JIT_ERROR_LOG_BUFFER), values.push_back(error);
  opts.push_back(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES), values.push_back(reinterpret_cast<void*>(sizeof error));
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadDataEx(&m, ptx.c_str(), static_cast<unsigned>(opts.size()), opts.data(), values.data());
  std::printf("%s = %d %s\n", key, static_cast<int>(r), name_of(r));
  std::printf("%s.info.log = %s\n", key, quoted(info).c_str());
  std::printf("%s.error.log = %s\n", key, quoted(error).c_str());
  if (r != CUDA_SUCCESS) return;
  CUfunction f = nullptr;
  cuModuleGetFunction(&f, m, "heavy");
  int regs = -1, local = -1, threads = -1;
  cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
  std::printf("%s.num_regs = %d\n%s.local_size_bytes = %d\n%s.max_threads_per_block = %d\n", key, regs, key, local,
              key, threads);
  if (run) {
    CUdeviceptr in = 0, out = 0;
    cuMemAlloc(&in, kN * sizeof(float));
    cuMemAlloc(&out, kN * sizeof(float));
    std::vector<float> h(kN);
    for (int i = 0; i < kN; ++i) h[i] = 0.5f + 0.001f * i;
    cuMemcpyHtoD(in, h.data(), kN * sizeof(float));
    int n = kN;
    void* args[] = {&in, &out, &n};
    CUresult lr = cuLaunchKernel(f, 1, 1, 1, kN, 1, 1, 0, nullptr, args, nullptr);
    CUresult sr = cuCtxSynchronize();
    std::vector<float> o(kN);
    cuMemcpyDtoH(o.data(), out, kN * sizeof(float));
    if (reference.empty()) reference = o;
    std::printf("%s.launch = %d, sync = %d, same_as_default = %d\n", key, static_cast<int>(lr), static_cast<int>(sr),
                static_cast<int>(std::memcmp(o.data(), reference.data(), kN * sizeof(float)) == 0));
    cuMemFree(in), cuMemFree(out);
  }
  cuModuleUnload(m);
}

int main(int argc, char** argv) {
  std::ifstream file(argc > 1 ? argv[1] : "heavy.ptx");
  std::stringstream ss;
  ss << file.rdbuf();
  ptx = ss.str();
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  auto v = [](long x) { return reinterpret_cast<void*>(x); };
  load("default", {}, {});
  load("verbose", {CU_JIT_LOG_VERBOSE}, {v(1)});
  for (long regs : {255L, 128L, 64L, 40L, 32L, 24L, 16L, 8L, 1L, 0L, -1L, 256L, 1000L}) {
    std::string key = "max_registers_" + std::to_string(regs);
    load(key.c_str(), {CU_JIT_MAX_REGISTERS, CU_JIT_LOG_VERBOSE}, {v(regs), v(1)});
  }
  for (long level : {0L, 1L, 2L, 3L, 4L, 5L, -1L}) {
    std::string key = "optimization_level_" + std::to_string(level);
    load(key.c_str(), {CU_JIT_OPTIMIZATION_LEVEL}, {v(level)});
  }
  for (long target : {static_cast<long>(CU_TARGET_COMPUTE_90), static_cast<long>(CU_TARGET_COMPUTE_80),
                      static_cast<long>(CU_TARGET_COMPUTE_75), static_cast<long>(CU_TARGET_COMPUTE_100), 12345L, 0L}) {
    std::string key = "target_" + std::to_string(target);
    load(key.c_str(), {CU_JIT_TARGET}, {v(target)});
  }
  load("target_from_context", {CU_JIT_TARGET_FROM_CUCONTEXT}, {v(0)});
  load("threads_per_block_128", {CU_JIT_THREADS_PER_BLOCK}, {v(128)});
  load("unknown_option_9999", {static_cast<CUjit_option>(9999)}, {v(1)});
  return 0;
}
