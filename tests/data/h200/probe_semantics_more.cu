// More of probe_semantics.cu, recorded on the same H200 (CUDA 13): a freed small allocation that
// was alone in its 2 MiB chunk, 64-bit division by zero with large dividends, and narrow unsigned
// quotients kept as int. Build: nvcc -arch=sm_90 -o probe_semantics_more probe_semantics_more.cu
// Each line: key = value. Each freed-memory question runs in a child process of its own.
#include <cuda_runtime.h>
#include <climits>
#include <cstdio>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#define SHOW(key, expr)                                                      \
  do {                                                                       \
    cudaError_t e_ = (expr);                                                 \
    printf("%s = %d %s\n", key, (int)e_, cudaGetErrorName(e_));              \
  } while (0)

__global__ void write_word(unsigned* p, unsigned v) { *p = v; }

// The only allocation of the context: freeing it empties its chunk.
static int freed_alone() {
  unsigned* p = nullptr;
  SHOW("freed.256_alone.malloc", cudaMalloc(&p, 256));
  size_t before = 0, after = 0, total = 0;
  cudaMemGetInfo(&before, &total);
  SHOW("freed.256_alone.free", cudaFree(p));
  cudaMemGetInfo(&after, &total);
  printf("freed.256_alone.free_delta = %lld\n", (long long)after - (long long)before);
  write_word<<<1, 1>>>(p, 1u);
  SHOW("freed.256_alone.launch", cudaGetLastError());
  SHOW("freed.256_alone.sync", cudaDeviceSynchronize());
  fflush(stdout);
  return 0;
}

struct In {
  unsigned long long u64[4];  // 2^40, ULLONG_MAX, 2^32, 2^32 - 1
  long long s64[4];           // 2^40, -2^40, LLONG_MAX, -(2^32)
  unsigned char uc;           // 7
  unsigned short us;          // 7
  unsigned char zero_uc;
  unsigned short zero_us;
  unsigned long long zero_u64;
  long long zero_s64;
};
struct Out {
  unsigned long long u64_div[4], u64_rem[4];
  long long s64_div[4], s64_rem[4];
  int uc_div_as_int, uc_rem_as_int, us_div_as_int, us_rem_as_int;
};

__global__ void divide(const In* in, Out* out) {
  for (int i = 0; i < 4; ++i) {
    out->u64_div[i] = in->u64[i] / in->zero_u64;
    out->u64_rem[i] = in->u64[i] % in->zero_u64;
    out->s64_div[i] = in->s64[i] / in->zero_s64;
    out->s64_rem[i] = in->s64[i] % in->zero_s64;
  }
  out->uc_div_as_int = in->uc / in->zero_uc;
  out->uc_rem_as_int = in->uc % in->zero_uc;
  out->us_div_as_int = in->us / in->zero_us;
  out->us_rem_as_int = in->us % in->zero_us;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "alone") == 0) return freed_alone();
  In h{{1ull << 40, ULLONG_MAX, 1ull << 32, (1ull << 32) - 1},
       {1ll << 40, -(1ll << 40), LLONG_MAX, -(1ll << 32)}, 7, 7, 0, 0, 0, 0};
  In* din = nullptr;
  Out* dout = nullptr;
  cudaMalloc(&din, sizeof(In));
  cudaMalloc(&dout, sizeof(Out));
  cudaMemcpy(din, &h, sizeof h, cudaMemcpyHostToDevice);
  divide<<<1, 1>>>(din, dout);
  SHOW("div64.sync", cudaDeviceSynchronize());
  Out o{};
  cudaMemcpy(&o, dout, sizeof o, cudaMemcpyDeviceToHost);
  const char* un[4] = {"2^40", "ULLONG_MAX", "2^32", "2^32-1"};
  const char* sn[4] = {"2^40", "-2^40", "LLONG_MAX", "-2^32"};
  for (int i = 0; i < 4; ++i) {
    printf("div.u64.%s_div_0 = 0x%016llx\n", un[i], o.u64_div[i]);
    printf("div.u64.%s_rem_0 = 0x%016llx\n", un[i], o.u64_rem[i]);
    printf("div.s64.%s_div_0 = 0x%016llx\n", sn[i], (unsigned long long)o.s64_div[i]);
    printf("div.s64.%s_rem_0 = 0x%016llx\n", sn[i], (unsigned long long)o.s64_rem[i]);
  }
  printf("div.uchar_as_int.7_div_0 = %d\n", o.uc_div_as_int);
  printf("div.uchar_as_int.7_rem_0 = %d\n", o.uc_rem_as_int);
  printf("div.ushort_as_int.7_div_0 = %d\n", o.us_div_as_int);
  printf("div.ushort_as_int.7_rem_0 = %d\n", o.us_rem_as_int);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", "probe_semantics_more", "alone", (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) printf("freed.256_alone.child = crashed status=%d\n", status);
  return 0;
}
