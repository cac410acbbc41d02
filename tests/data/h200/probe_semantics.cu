// Semantics probe for CUDA 13 on an H200: what a kernel sees when it touches freed device memory,
// and what integer division by zero (and the one overflowing division) gives.
// Build: nvcc -arch=sm_90 -o probe_semantics probe_semantics.cu -lcuda
// Each line: key = value. Error codes print as "<int> <name>". Each question about freed memory
// runs in a child process of its own (probe_semantics freed <case>), so that a sticky error in
// one case cannot change the answer of the next.
#include <cuda.h>
#include <cuda_runtime.h>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(key, expr)                                                      \
  do {                                                                       \
    cudaError_t e_ = (expr);                                                 \
    printf("%s = %d %s\n", key, (int)e_, cudaGetErrorName(e_));              \
  } while (0)

__global__ void write_word(unsigned* p, unsigned v) { *p = v; }
__global__ void read_word(const unsigned* p, unsigned* out) { *out = *p; }

// ---- freed memory -------------------------------------------------------------------------
// case: "<size>_<when>", size in bytes; when: write (a kernel writes to the freed allocation),
// read (a kernel reads it into a live buffer), write_after_sync (free, synchronize, then write),
// write_after_realloc (free, then cudaMalloc of the same size, then write through the old pointer).
static int freed_child(const char* which) {
  size_t size = strtoull(which, nullptr, 10);
  const char* when = strchr(which, '_') + 1;
  std::string key = std::string("freed.") + which;
  unsigned* keep = nullptr;  // a live small allocation, so the small-allocation chunk stays
  unsigned* out = nullptr;
  cudaMalloc(&keep, 256);
  cudaMalloc(&out, 256);
  unsigned* p = nullptr;
  cudaError_t e = cudaMalloc(&p, size);
  if (e != cudaSuccess) {
    printf("%s.malloc = %d %s\n", key.c_str(), (int)e, cudaGetErrorName(e));
    return 0;
  }
  cudaMemset(p, 0x5a, size);
  cudaDeviceSynchronize();
  size_t free_before = 0, total = 0;
  cudaMemGetInfo(&free_before, &total);
  SHOW((key + ".free").c_str(), cudaFree(p));
  size_t free_after = 0;
  cudaMemGetInfo(&free_after, &total);
  printf("%s.free_delta = %lld\n", key.c_str(), (long long)free_after - (long long)free_before);
  if (strcmp(when, "write_after_sync") == 0) cudaDeviceSynchronize();
  if (strcmp(when, "write_after_realloc") == 0) {
    unsigned* q = nullptr;
    SHOW((key + ".realloc").c_str(), cudaMalloc(&q, size));
    printf("%s.realloc_same_ptr = %d\n", key.c_str(), q == p ? 1 : 0);
  }
  if (strcmp(when, "read") == 0) {
    read_word<<<1, 1>>>(p, out);
  } else {
    write_word<<<1, 1>>>(p, 0x12345678u);
  }
  SHOW((key + ".launch").c_str(), cudaGetLastError());
  SHOW((key + ".sync").c_str(), cudaDeviceSynchronize());
  SHOW((key + ".after").c_str(), cudaGetLastError());
  if (strcmp(when, "read") == 0) {
    unsigned v = 0;
    cudaError_t c = cudaMemcpy(&v, out, sizeof v, cudaMemcpyDeviceToHost);
    printf("%s.value = %d 0x%08x\n", key.c_str(), (int)c, v);
  }
  fflush(stdout);
  return 0;
}

static void run_child(const char* which) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", "probe_semantics", "freed", which, (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    printf("freed.%s.child = crashed status=%d\n", which, status);
}

// ---- integer division ---------------------------------------------------------------------
// Operands come from device memory, so that nothing is folded at compile time.
struct DivIn {
  int s32[4];        // 7, -7, 0, INT_MIN
  unsigned u32[2];   // 7, 0
  long long s64[3];  // 7, -7, LLONG_MIN
  unsigned long long u64[2];
  int zero32, minus1_32;
  long long zero64, minus1_64;
};
struct DivOut {
  int s32_div[4], s32_rem[4];
  unsigned u32_div[2], u32_rem[2];
  int s32_min_div_m1, s32_min_rem_m1;
  long long s64_div[3], s64_rem[3];
  unsigned long long u64_div[2], u64_rem[2];
  long long s64_min_div_m1, s64_min_rem_m1;
};

__global__ void divide(const DivIn* in, DivOut* out) {
  for (int i = 0; i < 4; ++i) {
    out->s32_div[i] = in->s32[i] / in->zero32;
    out->s32_rem[i] = in->s32[i] % in->zero32;
  }
  for (int i = 0; i < 2; ++i) {
    out->u32_div[i] = in->u32[i] / (unsigned)in->zero32;
    out->u32_rem[i] = in->u32[i] % (unsigned)in->zero32;
    out->u64_div[i] = in->u64[i] / (unsigned long long)in->zero64;
    out->u64_rem[i] = in->u64[i] % (unsigned long long)in->zero64;
  }
  out->s32_min_div_m1 = in->s32[3] / in->minus1_32;
  out->s32_min_rem_m1 = in->s32[3] % in->minus1_32;
  for (int i = 0; i < 3; ++i) {
    out->s64_div[i] = in->s64[i] / in->zero64;
    out->s64_rem[i] = in->s64[i] % in->zero64;
  }
  out->s64_min_div_m1 = in->s64[2] / in->minus1_64;
  out->s64_min_rem_m1 = in->s64[2] % in->minus1_64;
}

static void division() {
  DivIn h{{7, -7, 0, INT_MIN}, {7u, 0u}, {7, -7, LLONG_MIN}, {7ull, 0ull}, 0, -1, 0, -1};
  DivIn* din = nullptr;
  DivOut* dout = nullptr;
  cudaMalloc(&din, sizeof(DivIn));
  cudaMalloc(&dout, sizeof(DivOut));
  cudaMemcpy(din, &h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0xee, sizeof(DivOut));
  divide<<<1, 1>>>(din, dout);
  SHOW("div.launch", cudaGetLastError());
  SHOW("div.sync", cudaDeviceSynchronize());
  DivOut o{};
  SHOW("div.copy", cudaMemcpy(&o, dout, sizeof o, cudaMemcpyDeviceToHost));
  const char* s32_names[4] = {"7", "-7", "0", "INT_MIN"};
  for (int i = 0; i < 4; ++i) {
    printf("div.s32.%s_div_0 = 0x%08x\n", s32_names[i], (unsigned)o.s32_div[i]);
    printf("div.s32.%s_rem_0 = 0x%08x\n", s32_names[i], (unsigned)o.s32_rem[i]);
  }
  const char* u_names[2] = {"7", "0"};
  for (int i = 0; i < 2; ++i) {
    printf("div.u32.%s_div_0 = 0x%08x\n", u_names[i], o.u32_div[i]);
    printf("div.u32.%s_rem_0 = 0x%08x\n", u_names[i], o.u32_rem[i]);
    printf("div.u64.%s_div_0 = 0x%016llx\n", u_names[i], o.u64_div[i]);
    printf("div.u64.%s_rem_0 = 0x%016llx\n", u_names[i], o.u64_rem[i]);
  }
  printf("div.s32.INT_MIN_div_-1 = 0x%08x\n", (unsigned)o.s32_min_div_m1);
  printf("div.s32.INT_MIN_rem_-1 = 0x%08x\n", (unsigned)o.s32_min_rem_m1);
  const char* s64_names[3] = {"7", "-7", "LLONG_MIN"};
  for (int i = 0; i < 3; ++i) {
    printf("div.s64.%s_div_0 = 0x%016llx\n", s64_names[i], (unsigned long long)o.s64_div[i]);
    printf("div.s64.%s_rem_0 = 0x%016llx\n", s64_names[i], (unsigned long long)o.s64_rem[i]);
  }
  printf("div.s64.LLONG_MIN_div_-1 = 0x%016llx\n", (unsigned long long)o.s64_min_div_m1);
  printf("div.s64.LLONG_MIN_rem_-1 = 0x%016llx\n", (unsigned long long)o.s64_min_rem_m1);
  SHOW("div.after", cudaGetLastError());
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "freed") == 0) return freed_child(argv[2]);
  division();
  static const char* cases[] = {
      "256_write",          "256_read",          "256_write_after_sync", "256_write_after_realloc",
      "4096_write",         "2097152_write",     "2097152_read",         "2097152_write_after_sync",
      "2097152_write_after_realloc", "4194304_write", "67108864_write", "67108864_write_after_sync",
      "1073741824_write",
  };
  for (const char* c : cases) run_child(c);
  return 0;
}
