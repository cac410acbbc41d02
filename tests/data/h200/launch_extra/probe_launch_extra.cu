// cuLaunchKernel's `extra` array on CUDA 13 / H200: which layouts of CU_LAUNCH_PARAM_BUFFER_POINTER,
// CU_LAUNCH_PARAM_BUFFER_SIZE and CU_LAUNCH_PARAM_END the driver accepts, what it answers for a
// size that differs from the kernel's parameter size, missing or NULL entries, unknown keys, and
// both kernelParams and extra; the same for a PTX kernel (JIT) and through cuLaunchKernelEx.
//
// Usage: probe_launch_extra DIR [iso KEY]   (DIR holds kernels.fatbin and kernels.ptx)
// Each line: key = value; results print as "<int> <NAME>". A launch that returns CUDA_SUCCESS is
// followed by .sync and .out = the four values the kernel wrote. Cases that might crash run in a
// fresh process (iso) and print "<key>.child = crashed signal=N" if they do.
#include <cuda.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char* cu_name(CUresult r) {
  const char* n = nullptr;
  return cuGetErrorName(r, &n) == CUDA_SUCCESS && n ? n : "UNKNOWN_CURESULT";
}
static void print_result(const std::string& key, CUresult r) {
  printf("%s = %d %s\n", key.c_str(), (int)r, cu_name(r));
  fflush(stdout);
}

static std::string dir, self_path;
static std::string read_file(const char* name) {
  std::string path = dir + "/" + name;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) { printf("missing %s\n", path.c_str()); exit(2); }
  std::string s;
  char b[65536];
  size_t n;
  while ((n = fread(b, 1, sizeof b, f)) > 0) s.append(b, n);
  fclose(f);
  return s;
}

static CUfunction fat_k, fat_aligned, fat_noparams, ptx_k, ptx_aligned, ptx_noparams;
static CUdeviceptr dout, g_flag;
alignas(16) static unsigned char buf[8192];
alignas(16) static unsigned char buf_other[8192];

static void setup() {
  cuInit(0);
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, nullptr, 0, dev);
  std::string fat = read_file("kernels.fatbin"), ptx = read_file("kernels.ptx");
  CUmodule mf, mp;
  print_result("setup.load_fatbin", cuModuleLoadData(&mf, fat.data()));
  print_result("setup.load_ptx", cuModuleLoadData(&mp, ptx.c_str()));
  cuModuleGetFunction(&fat_k, mf, "probe_k");
  cuModuleGetFunction(&fat_aligned, mf, "aligned_k");
  cuModuleGetFunction(&fat_noparams, mf, "noparams_k");
  cuModuleGetFunction(&ptx_k, mp, "probe_k");
  cuModuleGetFunction(&ptx_aligned, mp, "aligned_k");
  cuModuleGetFunction(&ptx_noparams, mp, "noparams_k");
  size_t bytes = 0;
  cuModuleGetGlobal(&g_flag, &bytes, mf, "g_flag");
  cuMemAlloc(&dout, 64);
}

// probe_k's parameters laid out as the kernel expects: out @0, c @8, d @16, s @24.
static void fill_probe_k(unsigned char* b, char c, double d, short s) {
  memset(b, 0xEE, 8192);
  memcpy(b + 0, &dout, 8);
  memcpy(b + 8, &c, 1);
  memcpy(b + 16, &d, 8);
  memcpy(b + 24, &s, 2);
}
// aligned_k: a @0, int4 v @16, out @32.
static void fill_aligned(unsigned char* b) {
  memset(b, 0xEE, 8192);
  int a = 11, v[4] = {1, 2, 3, 40};
  memcpy(b + 0, &a, 4);
  memcpy(b + 16, v, 16);
  memcpy(b + 32, &dout, 8);
}

static void after(const std::string& key, CUresult r) {
  print_result(key, r);
  print_result(key + ".sync", cuCtxSynchronize());
  if (r == CUDA_SUCCESS) {
    long long o[4] = {};
    cuMemcpyDtoH(o, dout, sizeof o);
    printf("%s.out = %lld %lld %lld %#llx\n", key.c_str(), o[0], o[1], o[2], o[3]);
  }
  fflush(stdout);
}

static CUresult launch(CUfunction f, void** params, void** extra) {
  cuMemsetD8(dout, 0, 64);
  return cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, extra);
}

#define P CU_LAUNCH_PARAM_BUFFER_POINTER
#define S CU_LAUNCH_PARAM_BUFFER_SIZE
#define E CU_LAUNCH_PARAM_END

// The cases on probe_k (fatbin or PTX): prefix names the image.
static void probe_k_cases(const std::string& pre, CUfunction f) {
  fill_probe_k(buf, 'x', 2.5, -7);
  fill_probe_k(buf_other, 'y', 9.5, 3);
  size_t z26 = 26, z32 = 32, z40 = 40, z4096 = 4096, z8 = 8, z25 = 25, z0 = 0, z27 = 27;
  char c = 'q';
  double d = 1.5;
  short s = 5;
  void* args[] = {&dout, &c, &d, &s};
  { void* x[] = {P, buf, S, &z26, E}; after(pre + "size26_exact", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z27, E}; after(pre + "size27", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z32, E}; after(pre + "size32_padded", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z40, E}; after(pre + "size40", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z4096, E}; after(pre + "size4096", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z25, E}; after(pre + "size25", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z8, E}; after(pre + "size8", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z0, E}; after(pre + "size0", launch(f, nullptr, x)); }
  { void* x[] = {S, &z26, P, buf, E}; after(pre + "size_first", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, nullptr}; after(pre + "null_terminated", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, E}; after(pre + "pointer_only", launch(f, nullptr, x)); }
  { void* x[] = {S, &z26, E}; after(pre + "size_only", launch(f, nullptr, x)); }
  { void* x[] = {E}; after(pre + "end_only", launch(f, nullptr, x)); }
  { void* x[] = {P, buf_other, P, buf, S, &z26, E}; after(pre + "pointer_twice_last_buf", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z8, S, &z26, E}; after(pre + "size_twice_8_then_26", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, S, &z8, E}; after(pre + "size_twice_26_then_8", launch(f, nullptr, x)); }
  { void* x[] = {(void*)3, buf, P, buf, S, &z26, E}; after(pre + "unknown_key_3_first", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, (void*)3, buf, E}; after(pre + "unknown_key_3_last", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, (void*)4, buf, E}; after(pre + "unknown_key_4_last", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, (void*)0xff, buf, E}; after(pre + "unknown_key_255_last", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, E, (void*)3, buf}; after(pre + "unknown_key_after_end", launch(f, nullptr, x)); }
  { void* x[] = {E}; after(pre + "both_params_and_end_only", launch(f, args, x)); }
  { void* x[] = {P, buf, S, &z26, E}; after(pre + "both_params_and_buffer", launch(f, args, x)); }
  after(pre + "params_baseline", launch(f, args, nullptr));
  after(pre + "neither", launch(f, nullptr, nullptr));
}

static void aligned_cases(const std::string& pre, CUfunction f) {
  fill_aligned(buf);
  size_t z40 = 40, z48 = 48, z36 = 36;
  { void* x[] = {P, buf, S, &z40, E}; after(pre + "size40_exact", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z48, E}; after(pre + "size48", launch(f, nullptr, x)); }
  { void* x[] = {P, buf, S, &z36, E}; after(pre + "size36", launch(f, nullptr, x)); }
}

static void noparams_cases(const std::string& pre, CUfunction f) {
  memset(buf, 0, 64);
  size_t z0 = 0, z8 = 8;
  auto flag = [&](const std::string& key) {
    long long v = 0;
    cuMemcpyDtoH(&v, g_flag, 8);
    printf("%s.flag = %#llx\n", key.c_str(), v);
  };
  auto run = [&](const std::string& key, void** extra) {
    cuMemsetD8(g_flag, 0, 8);
    CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra);
    print_result(key, r);
    print_result(key + ".sync", cuCtxSynchronize());
    if (f == fat_noparams) flag(key);
  };
  { void* x[] = {E}; run(pre + "end_only", x); }
  { void* x[] = {P, buf, S, &z0, E}; run(pre + "size0", x); }
  { void* x[] = {P, buf, S, &z8, E}; run(pre + "size8", x); }
  { void* x[] = {P, nullptr, S, &z0, E}; run(pre + "null_buffer_size0", x); }
  { void* x[] = {S, &z0, E}; run(pre + "size0_only", x); }
  { void* x[] = {P, buf, E}; run(pre + "pointer_only", x); }
  { void* x[] = {(void*)3, buf, E}; run(pre + "unknown_key_3", x); }
  run(pre + "neither", nullptr);
}

static void ex_cases() {
  fill_probe_k(buf, 'x', 2.5, -7);
  size_t z26 = 26, z8 = 8;
  char c = 'q';
  double d = 1.5;
  short s = 5;
  void* args[] = {&dout, &c, &d, &s};
  CUlaunchConfig cfg{};
  cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = cfg.blockDimY = cfg.blockDimZ = 1;
  auto ex = [&](CUfunction f, void** p, void** x) {
    cuMemsetD8(dout, 0, 64);
    return cuLaunchKernelEx(&cfg, f, p, x);
  };
  { void* x[] = {P, buf, S, &z26, E}; after("ex.fat.size26_exact", ex(fat_k, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, E}; after("ex.ptx.size26_exact", ex(ptx_k, nullptr, x)); }
  { void* x[] = {P, buf, S, &z8, E}; after("ex.fat.size8", ex(fat_k, nullptr, x)); }
  { void* x[] = {P, buf, E}; after("ex.fat.pointer_only", ex(fat_k, nullptr, x)); }
  { void* x[] = {(void*)3, buf, P, buf, S, &z26, E}; after("ex.fat.unknown_key_3_first", ex(fat_k, nullptr, x)); }
  { void* x[] = {P, buf, S, &z26, E}; after("ex.fat.both_params_and_buffer", ex(fat_k, args, x)); }
  CUlaunchAttribute coop{};
  coop.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  coop.value.cooperative = 1;
  cfg.attrs = &coop;
  cfg.numAttrs = 1;
  { void* x[] = {P, buf, S, &z26, E}; after("ex.fat.cooperative_with_extra", ex(fat_k, nullptr, x)); }
  after("ex.fat.cooperative_with_params", ex(fat_k, args, nullptr));
}

// Cases that may crash the process: run by `iso` in a fresh one.
static void iso_case(const std::string& key) {
  setup();
  fill_probe_k(buf, 'x', 2.5, -7);
  size_t z26 = 26;
  CUfunction f = key.rfind("ptx.", 0) == 0 ? ptx_k : fat_k;
  std::string k = key.substr(4);
  if (k == "null_buffer_pointer") { void* x[] = {P, nullptr, S, &z26, E}; after(key, launch(f, nullptr, x)); }
  if (k == "null_size_pointer") { void* x[] = {P, buf, S, nullptr, E}; after(key, launch(f, nullptr, x)); }
  if (k == "unknown_key_big") { void* x[] = {(void*)0x1000, buf, P, buf, S, &z26, E}; after(key, launch(f, nullptr, x)); }
}

static void iso(const char* key) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self_path.c_str(), self_path.c_str(), dir.c_str(), "iso", key, (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) printf("%s.child = crashed signal=%d\n", key, WTERMSIG(status));
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  dir = argv[1];
  self_path = argv[0];
  if (argc > 3 && strcmp(argv[2], "iso") == 0) { iso_case(argv[3]); return 0; }
  printf("define.END = %d\ndefine.BUFFER_POINTER = %d\ndefine.BUFFER_SIZE = %d\n", (int)(uintptr_t)E,
         (int)(uintptr_t)P, (int)(uintptr_t)S);
  setup();
  for (CUfunction f : {fat_k, ptx_k, fat_aligned}) {
    for (size_t i = 0; i < 5; ++i) {
      size_t off = 0, size = 0;
      CUresult r = cuFuncGetParamInfo(f, i, &off, &size);
      printf("param_info.%s.%zu = %d %s offset=%zu size=%zu\n",
             f == fat_k ? "fat_k" : f == ptx_k ? "ptx_k" : "fat_aligned", i, (int)r, cu_name(r), off, size);
    }
  }
  probe_k_cases("fat.", fat_k);
  probe_k_cases("ptx.", ptx_k);
  aligned_cases("fat.aligned.", fat_aligned);
  aligned_cases("ptx.aligned.", ptx_aligned);
  noparams_cases("fat.noparams.", fat_noparams);
  noparams_cases("ptx.noparams.", ptx_noparams);
  ex_cases();
  for (const char* k : {"fat.null_buffer_pointer", "fat.null_size_pointer", "fat.unknown_key_big",
                        "ptx.null_buffer_pointer", "ptx.null_size_pointer"})
    iso(k);
  printf("done\n");
  return 0;
}
