// Module probe (Driver API) for CUDA 13: how the real driver answers module loads from PTX,
// cubin and fatbin images, good and bad, the JIT's log buffers, module lookups and launch
// parameters. Recorded on an H200 into probe_module.txt by run_probe_module.sh; the JIT cache
// runs (CUDA_CACHE_PATH, CUDA_CACHE_DISABLE, CUDA_FORCE_PTX_JIT) into cache_*.txt.
//
// Usage: probe_module IMGDIR [cache1|cache2|cache3|forcejit]
// Each line: key = value; error codes print as "<int> <name>". Calls that might crash the
// driver run in a child process (`iso`), printing "<key>.child = crashed signal=N" if they do.
#include <cuda.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
#define DRV(key, expr) do { CUresult r_ = (expr); printf("%s = %d %s\n", key, (int)r_, cu_name(r_)); fflush(stdout); } while (0)

static std::string img_dir;
static std::string read_file(const char* name) {
  std::string path = img_dir + "/" + name;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) { printf("missing %s\n", path.c_str()); exit(2); }
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  fclose(f);
  return s;
}

// Prints a log buffer as one line (newlines as \n), and the size the driver wrote back.
static void print_log(const char* key, const char* log, size_t size_back) {
  std::string s;
  for (const char* p = log; *p; ++p) s += *p == '\n' ? std::string("\\n") : std::string(1, *p);
  printf("%s.log = \"%s\"\n%s.log_size_back = %zu\n", key, s.c_str(), key, size_back);
}

// cuModuleLoadDataEx with error and info log buffers (verbose); prints result, logs, *module.
static CUmodule load_ex(const char* key, const void* image, unsigned buf_size = 4096, bool verbose = true) {
  static char err[8192], info[8192];
  memset(err, 0, sizeof err);
  memset(info, 0, sizeof info);
  CUjit_option opt[5] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  void* val[5] = {err, (void*)(uintptr_t)buf_size, info, (void*)(uintptr_t)buf_size, (void*)(uintptr_t)(verbose ? 1 : 0)};
  CUmodule m = (CUmodule)(uintptr_t)0x5a5a;
  std::string k(key);
  DRV(k.c_str(), cuModuleLoadDataEx(&m, image, 5, opt, val));
  printf("%s.module_is_sentinel = %d\n%s.module_is_null = %d\n", key, m == (CUmodule)(uintptr_t)0x5a5a, key, m == nullptr);
  print_log((k + ".error").c_str(), err, (size_t)(uintptr_t)val[1]);
  print_log((k + ".info").c_str(), info, (size_t)(uintptr_t)val[3]);
  return m == (CUmodule)(uintptr_t)0x5a5a ? nullptr : m;
}

// Runs `probe_module IMGDIR iso KEY` (a fresh process with its own cuInit and context: a
// forked child cannot use the parent's driver state) and reports a crash.
static std::string self_path;
static void iso(const char* key) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self_path.c_str(), self_path.c_str(), img_dir.c_str(), "iso", key, (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) printf("%s.child = crashed signal=%d\n", key, WTERMSIG(status));
}

static std::string g_ptx;
static std::string replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

static void cache_mode(const char* mode) {
  DRV("init", cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  DRV("ctx", cuCtxCreate(&ctx, nullptr, 0, dev));
  auto t0 = std::chrono::steady_clock::now();
  CUmodule m = load_ex("cache.ptx", g_ptx.c_str());
  auto t1 = std::chrono::steady_clock::now();
  printf("cache.ptx.load_us = %lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count());
  if (m) cuModuleUnload(m);
  std::string fat = read_file("vadd.fatbin");
  m = load_ex("cache.fatbin", fat.data());
  if (m) cuModuleUnload(m);
  std::string ptxonly = read_file("vadd_ptxonly.fatbin");
  t0 = std::chrono::steady_clock::now();
  m = load_ex("cache.ptxonly_fatbin", ptxonly.data());
  t1 = std::chrono::steady_clock::now();
  printf("cache.ptxonly_fatbin.load_us = %lld\n", (long long)std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count());
  if (m) cuModuleUnload(m);
  printf("mode = %s done\n", mode);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  img_dir = argv[1];
  g_ptx = read_file("vadd.ptx");
  self_path = argv[0];
  if (argc > 3 && strcmp(argv[2], "iso") == 0) {
    cuInit(0);
    CUdevice d;
    CUcontext c;
    cuDeviceGet(&d, 0);
    cuCtxCreate(&c, nullptr, 0, d);
    std::string key = argv[3];
    if (key == "image.null") {
      CUmodule m;
      DRV("image.null", cuModuleLoadData(&m, nullptr));
    } else if (key == "cubin.truncated_64") {
      std::string cub = read_file("vadd_sm90.cubin").substr(0, 64);
      load_ex("cubin.truncated_64", cub.data());
    }
    return 0;
  }
  if (argc > 2) { cache_mode(argv[2]); return 0; }

  // Before cuInit.
  CUmodule m0 = nullptr;
  DRV("before_init.load_data", cuModuleLoadData(&m0, g_ptx.c_str()));
  DRV("init", cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  cuDeviceGet(&dev, 0);
  // Without a context.
  DRV("no_ctx.load_data", cuModuleLoadData(&m0, g_ptx.c_str()));
  DRV("ctx", cuCtxCreate(&ctx, nullptr, 0, dev));

  // Good PTX.
  CUmodule good = load_ex("ptx.good", g_ptx.c_str());
  CUfunction f = (CUfunction)(uintptr_t)0x5a5a;
  DRV("get_function.vadd", cuModuleGetFunction(&f, good, "vadd"));
  f = (CUfunction)(uintptr_t)0x5a5a;
  DRV("get_function.missing", cuModuleGetFunction(&f, good, "nope"));
  printf("get_function.missing.hfunc_is_sentinel = %d\nget_function.missing.hfunc_is_null = %d\n",
         f == (CUfunction)(uintptr_t)0x5a5a, f == nullptr);
  DRV("get_function.mangled_name_of_extern_c", cuModuleGetFunction(&f, good, "_Z4vaddPKfS0_Pfi"));
  DRV("get_function.null_name", cuModuleGetFunction(&f, good, nullptr));
  DRV("get_function.null_hfunc", cuModuleGetFunction(nullptr, good, "vadd"));
  DRV("get_function.null_module", cuModuleGetFunction(&f, nullptr, "vadd"));
  CUdeviceptr gp = 0;
  size_t gbytes = 0;
  DRV("get_global.g_counter", cuModuleGetGlobal(&gp, &gbytes, good, "g_counter"));
  printf("get_global.g_counter.bytes = %zu\n", gbytes);
  int gv = 0;
  if (gp) { cuMemcpyDtoH(&gv, gp, 4); printf("get_global.g_counter.value = %d\n", gv); }
  DRV("get_global.c_scale", cuModuleGetGlobal(&gp, &gbytes, good, "c_scale"));
  printf("get_global.c_scale.bytes = %zu\n", gbytes);
  DRV("get_global.missing", cuModuleGetGlobal(&gp, &gbytes, good, "nope"));
  DRV("get_global.null_outs", cuModuleGetGlobal(nullptr, nullptr, good, "g_counter"));
  DRV("get_global.null_name", cuModuleGetGlobal(&gp, &gbytes, good, nullptr));
  int attr = -1;
  DRV("func_attr.num_regs", cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  printf("func_attr.num_regs.value = %d\n", attr);
  DRV("func_attr.ptx_version", cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  printf("func_attr.ptx_version.value = %d\n", attr);
  DRV("func_attr.binary_version", cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f));
  printf("func_attr.binary_version.value = %d\n", attr);
  DRV("func_attr.max_threads", cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  printf("func_attr.max_threads.value = %d\n", attr);
  const char* fname = nullptr;
  DRV("func_get_name", cuFuncGetName(&fname, f));
  printf("func_get_name.value = %s\n", fname ? fname : "(null)");

  // Launch parameters (vadd: a, b, c, n).
  DRV("get_function.vadd2", cuModuleGetFunction(&f, good, "vadd"));
  CUdeviceptr da, db, dc;
  cuMemAlloc(&da, 1024 * 4); cuMemAlloc(&db, 1024 * 4); cuMemAlloc(&dc, 1024 * 4);
  std::vector<float> ha(1024), hb(1024), hc(1024);
  for (int i = 0; i < 1024; ++i) { ha[i] = i; hb[i] = 2 * i; }
  cuMemcpyHtoD(da, ha.data(), 4096); cuMemcpyHtoD(db, hb.data(), 4096);
  int n = 1024;
  void* args[] = {&da, &db, &dc, &n};
  DRV("launch.good", cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  DRV("launch.good.sync", cuCtxSynchronize());
  cuMemcpyDtoH(hc.data(), dc, 4096);
  printf("launch.good.c[1000] = %g\n", hc[1000]);
  DRV("launch.block_2048", cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, nullptr, args, nullptr));
  DRV("launch.grid_0", cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  DRV("launch.block_z_65", cuLaunchKernel(f, 1, 1, 1, 1, 1, 65, 0, nullptr, args, nullptr));
  DRV("launch.shared_1MiB", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 1 << 20, nullptr, args, nullptr));
  DRV("launch.null_function", cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  DRV("launch.both_params_and_extra", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, (void**)args));
  DRV("launch.after_errors.sync", cuCtxSynchronize());
  CUfunction fs;
  DRV("get_function.big_shared", cuModuleGetFunction(&fs, good, "big_shared"));
  void* sargs[] = {&dc};
  DRV("launch.big_shared_48KiB", cuLaunchKernel(fs, 1, 1, 1, 32, 1, 1, 48 << 10, nullptr, sargs, nullptr));
  DRV("launch.big_shared_64KiB_no_attr", cuLaunchKernel(fs, 1, 1, 1, 32, 1, 1, 64 << 10, nullptr, sargs, nullptr));
  DRV("func_set_max_dyn_shared_100KiB", cuFuncSetAttribute(fs, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 << 10));
  DRV("launch.big_shared_64KiB_attr", cuLaunchKernel(fs, 1, 1, 1, 32, 1, 1, 64 << 10, nullptr, sargs, nullptr));
  DRV("launch.big_shared.sync", cuCtxSynchronize());
  DRV("unload.good", cuModuleUnload(good));
  DRV("unload.good_again", cuModuleUnload(good));
  DRV("get_function.after_unload", cuModuleGetFunction(&f, good, "vadd"));

  // Bad PTX text.
  std::string bad_syntax = replace(g_ptx, "ld.param.u64", "ld.parm.u64");
  load_ex("ptx.bad_opcode", bad_syntax.c_str());
  std::string bad_token = replace(g_ptx, ".address_size 64", ".address_size 64\n@@@ garbage here");
  load_ex("ptx.garbage_line", bad_token.c_str());
  std::string bad_reg = replace(g_ptx, "mov.u32", "mov.u32 %r999, %r1;\n\tmov.u32");
  load_ex("ptx.undeclared_register", bad_reg.c_str());
  std::string bad_type = replace(g_ptx, "mov.u32", "mov.f64 %r1, %r2;\n\tmov.u32");
  load_ex("ptx.type_mismatch", bad_type.c_str());
  std::string bad_label = replace(g_ptx, "ret;", "bra $L__nowhere;\n\tret;");
  load_ex("ptx.undefined_label", bad_label.c_str());
  std::string v99 = replace(g_ptx, ".version 9.0", ".version 99.0");
  load_ex("ptx.version_99", v99.c_str());
  std::string v92 = replace(g_ptx, ".version 9.0", ".version 9.2");
  load_ex("ptx.version_9_2", v92.c_str());
  std::string v10 = replace(g_ptx, ".version 9.0", ".version 1.0");
  load_ex("ptx.version_1_0", v10.c_str());
  std::string t100 = replace(g_ptx, ".target sm_90", ".target sm_100");
  load_ex("ptx.target_sm_100", t100.c_str());
  std::string t90a = replace(g_ptx, ".target sm_90", ".target sm_90a");
  load_ex("ptx.target_sm_90a", t90a.c_str());
  std::string t80 = replace(g_ptx, ".target sm_90", ".target sm_80");
  CUmodule m80 = load_ex("ptx.target_sm_80", t80.c_str());
  if (m80) cuModuleUnload(m80);
  std::string t_bogus = replace(g_ptx, ".target sm_90", ".target sm_bogus");
  load_ex("ptx.target_bogus", t_bogus.c_str());
  std::string noversion = replace(g_ptx, ".version 9.0", "");
  load_ex("ptx.no_version", noversion.c_str());
  load_ex("ptx.small_log_buffer", bad_syntax.c_str(), 16);
  load_ex("ptx.not_verbose_good", g_ptx.c_str(), 4096, false);
  std::string truncated = g_ptx.substr(0, g_ptx.size() / 2);
  load_ex("ptx.truncated", truncated.c_str());
  std::string no_entries = ".version 9.0\n.target sm_90\n.address_size 64\n";
  CUmodule me = load_ex("ptx.no_entries", no_entries.c_str());
  if (me) { DRV("ptx.no_entries.get_function", cuModuleGetFunction(&f, me, "vadd")); cuModuleUnload(me); }
  std::string dup = g_ptx + g_ptx.substr(g_ptx.find(".visible .entry vadd"));
  load_ex("ptx.duplicate_entry", dup.c_str());
  load_ex("image.empty_string", "");
  static const unsigned char garbage[64] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8};
  load_ex("image.garbage", garbage);
  static const unsigned char zeros[256] = {};
  load_ex("image.zeros", zeros);
  iso("image.null");
  DRV("load_data.null_module", cuModuleLoadData(nullptr, g_ptx.c_str()));

  // Files.
  std::string p = img_dir + "/vadd.ptx";
  CUmodule mf;
  DRV("load.ptx_file", cuModuleLoad(&mf, p.c_str()));
  if (mf) cuModuleUnload(mf);
  DRV("load.missing_file", cuModuleLoad(&mf, "/nonexistent/x.ptx"));
  DRV("load.directory", cuModuleLoad(&mf, "/tmp"));
  DRV("load.null_path", cuModuleLoad(&mf, nullptr));
  p = img_dir + "/vadd_sm90.cubin";
  DRV("load.cubin_sm90_file", cuModuleLoad(&mf, p.c_str()));
  p = img_dir + "/vadd.fatbin";
  DRV("load.fatbin_file", cuModuleLoad(&mf, p.c_str()));

  // Binary images.
  std::string cubin90 = read_file("vadd_sm90.cubin"), cubin80 = read_file("vadd_sm80.cubin");
  CUmodule mc = load_ex("cubin.sm90", cubin90.data());
  if (mc) {
    DRV("cubin.sm90.get_function", cuModuleGetFunction(&f, mc, "vadd"));
    DRV("cubin.sm90.func_attr.num_regs", cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    printf("cubin.sm90.num_regs = %d\n", attr);
    cuModuleUnload(mc);
  }
  load_ex("cubin.sm80", cubin80.data());
  iso("cubin.truncated_64");
  std::string fat = read_file("vadd.fatbin"), fatptx = read_file("vadd_ptxonly.fatbin"), fat80 = read_file("vadd_sm80only.fatbin");
  CUmodule mfb;
  DRV("fatbin.load_fat_binary", cuModuleLoadFatBinary(&mfb, fat.data()));
  if (mfb == nullptr) printf("fatbin.load_fat_binary.module_null = 1\n");
  load_ex("fatbin.sm90_and_ptx", fat.data());
  load_ex("fatbin.ptx_only", fatptx.data());
  load_ex("fatbin.sm80_only", fat80.data());
  DRV("fatbin.load_fat_binary.ptx_as_fatbin", cuModuleLoadFatBinary(&mfb, g_ptx.c_str()));
  DRV("fatbin.load_fat_binary.garbage", cuModuleLoadFatBinary(&mfb, garbage));

  // Libraries.
  CUlibrary lib;
  DRV("library.ptx", cuLibraryLoadData(&lib, g_ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kern;
  DRV("library.ptx.get_kernel", cuLibraryGetKernel(&kern, lib, "vadd"));
  DRV("library.ptx.get_kernel.missing", cuLibraryGetKernel(&kern, lib, "nope"));
  DRV("library.bad_ptx", cuLibraryLoadData(&lib, bad_syntax.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  p = img_dir + "/vadd.ptx";
  DRV("library.from_file", cuLibraryLoadFromFile(&lib, p.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  DRV("library.from_missing_file", cuLibraryLoadFromFile(&lib, "/nonexistent/x.ptx", nullptr, nullptr, 0, nullptr, nullptr, 0));

  // The linker.
  CUlinkState ls;
  DRV("link.create", cuLinkCreate(0, nullptr, nullptr, &ls));
  DRV("link.add_ptx", cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)g_ptx.c_str(), g_ptx.size() + 1, "vadd.ptx", 0, nullptr, nullptr));
  DRV("link.add_bad_ptx", cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)bad_syntax.c_str(), bad_syntax.size() + 1, "bad.ptx", 0, nullptr, nullptr));
  void* cubin = nullptr;
  size_t cubin_size = 0;
  DRV("link.complete_after_bad", cuLinkComplete(ls, &cubin, &cubin_size));
  DRV("link.destroy", cuLinkDestroy(ls));
  DRV("link.create2", cuLinkCreate(0, nullptr, nullptr, &ls));
  DRV("link.add_ptx2", cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)g_ptx.c_str(), g_ptx.size() + 1, "vadd.ptx", 0, nullptr, nullptr));
  DRV("link.add_file_cubin", cuLinkAddFile(ls, CU_JIT_INPUT_CUBIN, (img_dir + "/vadd_sm90.cubin").c_str(), 0, nullptr, nullptr));
  DRV("link.complete_duplicate_symbols", cuLinkComplete(ls, &cubin, &cubin_size));
  cuLinkDestroy(ls);
  DRV("link.create3", cuLinkCreate(0, nullptr, nullptr, &ls));
  DRV("link.add_ptx3", cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void*)g_ptx.c_str(), g_ptx.size() + 1, "vadd.ptx", 0, nullptr, nullptr));
  DRV("link.complete", cuLinkComplete(ls, &cubin, &cubin_size));
  printf("link.complete.cubin_size_nonzero = %d\nlink.complete.elf_magic = %d\n", cubin_size > 0,
         cubin && memcmp(cubin, "\x7f" "ELF", 4) == 0);
  CUmodule ml;
  DRV("link.load_result", cuModuleLoadData(&ml, cubin));
  DRV("link.load_result.get_function", cuModuleGetFunction(&f, ml, "vadd"));
  DRV("link.destroy3", cuLinkDestroy(ls));
  DRV("link.add_file_missing", cuLinkCreate(0, nullptr, nullptr, &ls));
  DRV("link.add_file_missing", cuLinkAddFile(ls, CU_JIT_INPUT_PTX, "/nonexistent.ptx", 0, nullptr, nullptr));
  DRV("link.complete_empty", cuLinkComplete(ls, &cubin, &cubin_size));
  cuLinkDestroy(ls);
  DRV("loading_mode", cuModuleGetLoadingMode((CUmoduleLoadingMode*)&attr));
  printf("loading_mode.value = %d\n", attr);
  printf("done\n");
  return 0;
}
