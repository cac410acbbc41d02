// LZ4-compressed fatbinaries (nvcc -compress-mode=speed): does the H200's driver load each image
// and run its vadd (module/kernels.cu) correctly? Also a copy with its LZ4 block corrupted, and
// one with the entry's uncompressed size too small.
// Each case runs in a child process: a driver that crashes on an image is reported, not fatal.
// Build: nvcc -O2 -arch=sm_90 -o probe_fatbin_lz4 probe_fatbin_lz4.cu -lcuda   Usage: probe_fatbin_lz4 IMG...
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static const char* name_of(CUresult r) {
  const char* n = nullptr;
  cuGetErrorName(r, &n);
  return n ? n : "?";
}

static void run_case(const std::string& key, const std::string& image);

// Runs one case in a child, which initialises the driver itself; reports a crash by its signal.
static void load_and_run(const std::string& key, const std::string& image) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    run_case(key, image);
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) std::printf("%s = crashed (signal %d)\n", key.c_str(), WTERMSIG(status));
}

static void run_case(const std::string& key, const std::string& image) {
  cuInit(0);
  CUdevice d; cuDeviceGet(&d, 0);
  CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, d); cuCtxSetCurrent(ctx);
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadData(&m, image.data());
  std::printf("%s.load = %d %s\n", key.c_str(), r, name_of(r));
  if (r != CUDA_SUCCESS) return;
  CUfunction f;
  r = cuModuleGetFunction(&f, m, "vadd");
  std::printf("%s.get_function = %d %s\n", key.c_str(), r, name_of(r));
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 2 * i;
  CUdeviceptr da, db, dc;
  cuMemAlloc(&da, 4 * n); cuMemAlloc(&db, 4 * n); cuMemAlloc(&dc, 4 * n);
  cuMemcpyHtoD(da, a.data(), 4 * n); cuMemcpyHtoD(db, b.data(), 4 * n);
  int count = n;
  void* args[] = {&da, &db, &dc, &count};
  r = cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, args, nullptr);
  CUresult s = cuCtxSynchronize();
  cuMemcpyDtoH(c.data(), dc, 4 * n);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
  std::printf("%s.run = %d %d wrong %d c[999] %g\n", key.c_str(), r, s, wrong, c[999]);
  cuMemFree(da); cuMemFree(db); cuMemFree(dc);
  cuModuleUnload(m);
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream s; s << in.rdbuf();
    std::string image = s.str();
    load_and_run(argv[i], image);
    // The first entry's header is at 16 (after the container header); its payload after that.
    uint32_t entry_header; std::memcpy(&entry_header, image.data() + 16 + 4, 4);
    std::string bad = image;
    bad[16 + entry_header + 9] ^= 0x5a;
    load_and_run(std::string(argv[i]) + ".corrupt", bad);
    bad = image;
    uint64_t size; std::memcpy(&size, image.data() + 16 + 56, 8);
    size /= 2; std::memcpy(bad.data() + 16 + 56, &size, 8);
    load_and_run(std::string(argv[i]) + ".half_size", bad);
  }
  return 0;
}
