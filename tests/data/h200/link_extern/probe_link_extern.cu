// cuLink of separately compiled PTX: one input calls a function it only declares (.extern .func),
// another defines it. What the H200's driver answers: each add, the completion, the module's load
// and the kernel's values; the same with the definition first; the declaring input alone, linked
// and loaded whole. Build: nvcc -O2 -arch=sm_90 -o p probe_link_extern.cu -lcuda && ./p
#include <cuda.h>

#include <cstdio>
#include <string>

static const char* kCaller = R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 ret) add_ten(.param .b32 x);
.visible .entry call_it(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), add_ten, (param0);
  ld.param.b32 %r2, [retval0];
  }
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

static const char* kCallee = R"(.version 8.0
.target sm_90
.address_size 64
.visible .func (.param .b32 ret) add_ten(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, 10;
  st.param.b32 [ret], %r2;
  ret;
}
)";

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
static void print(const std::string& key, CUresult r) { std::printf("%s = %d %s\n", key.c_str(), static_cast<int>(r), name_of(r)); }

// Links the inputs in order; loads and runs call_it when the link completes.
static void link(const std::string& key, const char* const* inputs, int count) {
  char error[4096] = {}, info[4096] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error, reinterpret_cast<void*>(sizeof error), info, reinterpret_cast<void*>(sizeof info)};
  CUlinkState ls = nullptr;
  print(key + ".create", cuLinkCreate(4, opts, values, &ls));
  for (int i = 0; i < count; ++i) {
    const std::string name = inputs[i] == kCaller ? "caller.ptx" : "callee.ptx";
    print(key + ".add_" + std::to_string(i), cuLinkAddData(ls, CU_JIT_INPUT_PTX, const_cast<char*>(inputs[i]),
                                                            std::string(inputs[i]).size() + 1, name.c_str(), 0,
                                                            nullptr, nullptr));
  }
  void* cubin = nullptr;
  size_t size = 0;
  CUresult r = cuLinkComplete(ls, &cubin, &size);
  print(key + ".complete", r);
  std::printf("%s.error.log = %s\n", key.c_str(), quoted(error).c_str());
  if (r == CUDA_SUCCESS) {
    CUmodule m = nullptr;
    CUresult lr = cuModuleLoadData(&m, cubin);
    print(key + ".load", lr);
    if (lr == CUDA_SUCCESS) {
      CUfunction f = nullptr;
      print(key + ".get_function", cuModuleGetFunction(&f, m, "call_it"));
      CUdeviceptr out = 0;
      cuMemAlloc(&out, 32 * sizeof(int));
      void* args[] = {&out};
      print(key + ".launch", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
      print(key + ".sync", cuCtxSynchronize());
      int h[32] = {};
      cuMemcpyDtoH(h, out, sizeof h);
      bool ok = true;
      for (int i = 0; i < 32; ++i) ok = ok && h[i] == i + 10;
      std::printf("%s.values_right = %d\n", key.c_str(), ok ? 1 : 0);
      cuMemFree(out);
      cuModuleUnload(m);
    }
  }
  cuLinkDestroy(ls);
}

int main() {
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  const char* caller_first[] = {kCaller, kCallee};
  const char* callee_first[] = {kCallee, kCaller};
  const char* caller_alone[] = {kCaller};
  link("caller_then_callee", caller_first, 2);
  link("callee_then_caller", callee_first, 2);
  link("caller_alone", caller_alone, 1);
  // The declaring module loaded whole, without a link.
  char error[4096] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error, reinterpret_cast<void*>(sizeof error)};
  CUmodule m = nullptr;
  print("load_caller_alone", cuModuleLoadDataEx(&m, kCaller, 2, opts, values));
  std::printf("load_caller_alone.error.log = %s\n", quoted(error).c_str());
  return 0;
}
