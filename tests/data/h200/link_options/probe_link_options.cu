// cuLinkAddData/AddFile with options of their own ("applied to this input only"): what the H200's
// driver answers for log buffers given per input, a bad option, a NULL option array, a value
// ptxas refuses; whose buffer a bad input's log goes to; and a file input linked and run.
// Build: nvcc -O2 -arch=sm_90 -o p probe_link_options.cu -lcuda && ./p
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

static const char* kGood = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry fill(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  add.u32 %r2, %r1, 100;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

static std::string bad() {
  std::string s = kGood;
  s.replace(s.find("ld.param.u64"), 12, "ld.parm.u64");
  return s;
}

static const char* name_of(CUresult r) {
  const char* n = nullptr;
  cuGetErrorName(r, &n);
  return n ? n : "?";
}
static std::string quoted(const char* s) {
  std::string out = "\"";
  for (; *s; ++s) out += *s == '\n' ? std::string("\\n") : *s == '"' ? std::string("\\\"") : std::string(1, *s);
  return out + "\"";
}
static void print(const std::string& key, CUresult r) { std::printf("%s = %d %s\n", key.c_str(), static_cast<int>(r), name_of(r)); }

int main() {
  cuInit(0);
  CUdevice d; cuDeviceGet(&d, 0);
  CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, d); cuCtxSetCurrent(ctx);
  const std::string b = bad();
  static char create_err[4096], input_err[4096];
  // 1: log buffers at create and per input; a bad input.
  {
    CUjit_option co[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* cv[2] = {create_err, reinterpret_cast<void*>(uintptr_t{sizeof create_err})};
    CUlinkState ls;
    print("per_input_log.create", cuLinkCreate(2, co, cv, &ls));
    CUjit_option io[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* iv[2] = {input_err, reinterpret_cast<void*>(uintptr_t{sizeof input_err})};
    print("per_input_log.add_bad", cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)b.c_str(), b.size() + 1, "bad.ptx", 2, io, iv));
    std::printf("per_input_log.create_buffer = %s\n", quoted(create_err).c_str());
    std::printf("per_input_log.create_size_back = %zu\n", static_cast<size_t>(reinterpret_cast<uintptr_t>(cv[1])));
    std::printf("per_input_log.input_buffer = %s\n", quoted(input_err).c_str());
    std::printf("per_input_log.input_size_back = %zu\n", static_cast<size_t>(reinterpret_cast<uintptr_t>(iv[1])));
    cuLinkDestroy(ls);
  }
  // 2: options that are bad in themselves, on a good input.
  struct Case { const char* key; unsigned n; CUjit_option opt; uintptr_t value; bool null_arrays; };
  const Case cases[] = {
      {"opt_level_2", 1, CU_JIT_OPTIMIZATION_LEVEL, 2, false},
      {"option_9999", 1, static_cast<CUjit_option>(9999), 0, false},
      {"null_arrays", 1, CU_JIT_OPTIMIZATION_LEVEL, 0, true},
      {"max_registers_0", 1, CU_JIT_MAX_REGISTERS, 0, false},
      {"target_sm_100", 1, CU_JIT_TARGET, CU_TARGET_COMPUTE_100, false},
      {"zero_options_null_arrays", 0, CU_JIT_OPTIMIZATION_LEVEL, 0, true},
  };
  for (const Case& c : cases) {
    CUlinkState ls;
    cuLinkCreate(0, nullptr, nullptr, &ls);
    CUjit_option o[1] = {c.opt};
    void* v[1] = {reinterpret_cast<void*>(c.value)};
    CUresult r = cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)kGood, std::strlen(kGood) + 1, "good.ptx", c.n,
                               c.null_arrays ? nullptr : o, c.null_arrays ? nullptr : v);
    print(std::string("add.") + c.key, r);
    void* cubin = nullptr; size_t size = 0;
    print(std::string("add.") + c.key + ".complete", cuLinkComplete(ls, &cubin, &size));
    cuLinkDestroy(ls);
  }
  // 3: a file input, linked, loaded and run.
  {
    std::ofstream("good_input.ptx") << kGood;
    CUlinkState ls;
    cuLinkCreate(0, nullptr, nullptr, &ls);
    print("file.add", cuLinkAddFile(ls, CU_JIT_INPUT_PTX, "good_input.ptx", 0, nullptr, nullptr));
    void* cubin = nullptr; size_t size = 0;
    print("file.complete", cuLinkComplete(ls, &cubin, &size));
    CUmodule m = nullptr;
    print("file.load", cuModuleLoadData(&m, cubin));
    CUfunction f = nullptr;
    print("file.get_function", cuModuleGetFunction(&f, m, "fill"));
    CUdeviceptr out; cuMemAlloc(&out, 128);
    void* args[] = {&out};
    print("file.launch", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
    print("file.sync", cuCtxSynchronize());
    unsigned h[32]; cuMemcpyDtoH(h, out, 128);
    std::printf("file.out[31] = %u\n", h[31]);
    cuLinkDestroy(ls);
  }
  return 0;
}
