// The programs test_memcheck runs in a child process, under MINICUDA_MEMCHECK=1 or not, to read
// what memcheck mode prints on stderr (a report at a fault, a leak report at cudaDeviceReset and
// at exit). `memcheck_scenarios NAME`; each scenario prints its CUDA results on stdout.
// The functions that allocate have names of their own, which the reports must show as the
// allocations' host call sites.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

// An off-by-one bug: i <= n, so the thread with i == n writes one int past the end.
__global__ void store_ints(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = i;
}

// The same bug in a loop that reads: k <= n reads one int past the end.
__global__ void sum_ints(const int* a, int n, int* out) {
  int sum = 0;
  for (int k = 0; k <= n; ++k) sum += a[k];
  *out = sum;
}

__global__ void store_at(int* a, long long index, int value) { a[index] = value; }

__global__ void read_at(const int* a, int* out) { *out = *a; }

__global__ void fill(int* a, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = value;
}

namespace {
constexpr int kInts = 250;  // 1000 bytes

void check(const char* what, cudaError_t e) { std::printf("%s: %s\n", what, cudaGetErrorName(e)); }
}  // namespace

__attribute__((noinline)) int* make_overrun_buffer() {
  int* a = nullptr;
  check("cudaMalloc", cudaMalloc(&a, kInts * sizeof(int)));
  return a;
}

__attribute__((noinline)) int* make_input_buffer() {
  int* a = nullptr;
  check("cudaMalloc", cudaMalloc(&a, kInts * sizeof(int)));
  check("cudaMemset", cudaMemset(a, 0, kInts * sizeof(int)));
  return a;
}

__attribute__((noinline)) void* leak_through_runtime() {
  void* p = nullptr;
  check("cudaMalloc", cudaMalloc(&p, 100));
  return p;
}

__attribute__((noinline)) CUdeviceptr leak_through_driver() {
  CUdeviceptr p = 0;
  std::printf("cuMemAlloc: %d\n", static_cast<int>(cuMemAlloc(&p, 2000)));
  return p;
}

__attribute__((noinline)) void allocate_and_free() {
  void* p = nullptr;
  check("cudaMalloc", cudaMalloc(&p, 300));
  check("cudaFree", cudaFree(p));
}

__attribute__((noinline)) void leak_before_reset() {
  void* p = nullptr;
  check("cudaMalloc", cudaMalloc(&p, 64));
}

// 250 ints, a grid of 2 x 128 threads: thread (122,0,0) of block (1,0,0) has i == 250.
int overrun_write() {
  int* a = make_overrun_buffer();
  store_ints<<<2, 128>>>(a, kInts);
  check("launch", cudaGetLastError());
  check("cudaDeviceSynchronize", cudaDeviceSynchronize());
  check("cudaDeviceReset", cudaDeviceReset());
  return 0;
}

int overrun_read() {
  int* in = make_input_buffer();
  int* out = nullptr;
  check("cudaMalloc", cudaMalloc(&out, sizeof(int)));
  sum_ints<<<1, 1>>>(in, kInts, out);
  check("cudaDeviceSynchronize", cudaDeviceSynchronize());
  check("cudaDeviceReset", cudaDeviceReset());
  return 0;
}

// A 2 MiB buffer starts at its chunk's start: a[-1] is in the guard of the buffer before it.
int underrun_write() {
  int* before = make_overrun_buffer();
  int* big = nullptr;
  check("cudaMalloc", cudaMalloc(&big, 2 << 20));
  store_at<<<1, 1>>>(big, -1, 1);
  check("cudaDeviceSynchronize", cudaDeviceSynchronize());
  check("cudaDeviceReset", cudaDeviceReset());
  (void)before;
  return 0;
}

// Far from every allocation: no "nearest allocation" line.
int null_write() {
  check("cudaFree", cudaFree(nullptr));
  store_at<<<1, 1>>>(nullptr, 0, 1);
  check("cudaDeviceSynchronize", cudaDeviceSynchronize());
  return 0;
}

// Three allocations, one freed: the two others are leaked at exit.
int leaks() {
  allocate_and_free();
  (void)leak_through_runtime();
  (void)leak_through_driver();
  return 0;
}

// cudaDeviceReset frees what is left: reported then, and not again at exit.
int reset_leak() {
  leak_before_reset();
  check("cudaDeviceReset", cudaDeviceReset());
  std::fprintf(stderr, "after reset\n");
  return 0;
}

// A kernel writes to, then reads, an allocation already freed, whose bytes were 0x5a. With
// `keep_neighbour`, a live allocation shares its chunk (as probe_semantics.cu's `keep` does).
// Without memcheck a small allocation's chunk stays mapped while it holds other allocations
// (the H200 answered cudaSuccess and read 0x5a5a5a5a: probe_semantics.txt freed.256_*), and an
// emptied chunk or a dedicated one (bytes >= 2 MiB) is unmapped at once (freed.2097152_*: 700).
__attribute__((noinline)) int* make_freed_buffer(size_t bytes) {
  int* a = nullptr;
  check("cudaMalloc", cudaMalloc(&a, bytes));
  check("cudaMemset", cudaMemset(a, 0x5a, bytes));
  check("cudaFree", cudaFree(a));
  return a;
}

int use_after_free(size_t bytes, bool keep_neighbour) {
  int* keep = nullptr;
  int* out = nullptr;
  check("cudaMallocHost", cudaMallocHost(&out, sizeof(int)));
  *out = 0;
  if (keep_neighbour) check("cudaMalloc", cudaMalloc(&keep, 256));
  int* freed = make_freed_buffer(bytes);
  store_at<<<1, 1>>>(freed, 1, 0x12345678);
  check("write: cudaDeviceSynchronize", cudaDeviceSynchronize());
  read_at<<<1, 1>>>(freed, out);
  check("read: cudaDeviceSynchronize", cudaDeviceSynchronize());
  std::printf("read: 0x%08x\n", static_cast<unsigned>(*out));
  check("cudaDeviceReset", cudaDeviceReset());
  return 0;
}

// A kernel reads 2 MiB below the first allocation of a fresh context and writes, then reads
// back, 64 MiB below it, as cuda-samples' simpleAttributes does (data[INT_MIN % n] is negative).
// Without memcheck the driver's own memory is there, as on the H200, which read 0 from 64 MiB
// below up without a fault (tests/data/h200/va/probe_va_layout.txt); memcheck reports it.
int below_first_allocation() {
  int* out = nullptr;
  check("cudaMallocHost", cudaMallocHost(&out, sizeof(int)));
  *out = -1;
  int* first = nullptr;
  check("cudaMalloc", cudaMalloc(&first, 15 << 20));
  read_at<<<1, 1>>>(first - (2 << 20) / sizeof(int), out);
  check("read: cudaDeviceSynchronize", cudaDeviceSynchronize());
  std::printf("read: %d\n", *out);
  store_at<<<1, 1>>>(first, -static_cast<long long>((64 << 20) / sizeof(int)), 42);
  check("write: cudaDeviceSynchronize", cudaDeviceSynchronize());
  *out = -1;
  read_at<<<1, 1>>>(first - (64 << 20) / sizeof(int), out);
  check("read back: cudaDeviceSynchronize", cudaDeviceSynchronize());
  std::printf("read back: %d\n", *out);
  check("cudaDeviceReset", cudaDeviceReset());
  return 0;
}

// Nothing wrong: only the error summary.
int clean() {
  int* a = nullptr;
  check("cudaMalloc", cudaMalloc(&a, kInts * sizeof(int)));
  fill<<<2, 128>>>(a, kInts, 7);
  int host[kInts] = {};
  check("cudaMemcpy", cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("host[0]=%d host[249]=%d\n", host[0], host[kInts - 1]);
  check("cudaFree", cudaFree(a));
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s overrun_write|overrun_read|underrun_write|null_write|leaks|reset_leak|clean|"
                 "use_after_free|use_after_free_last|use_after_free_dedicated\n",
                 argv[0]);
    return 2;
  }
  if (std::strcmp(argv[1], "overrun_write") == 0) return overrun_write();
  if (std::strcmp(argv[1], "overrun_read") == 0) return overrun_read();
  if (std::strcmp(argv[1], "underrun_write") == 0) return underrun_write();
  if (std::strcmp(argv[1], "null_write") == 0) return null_write();
  if (std::strcmp(argv[1], "leaks") == 0) return leaks();
  if (std::strcmp(argv[1], "reset_leak") == 0) return reset_leak();
  if (std::strcmp(argv[1], "clean") == 0) return clean();
  if (std::strcmp(argv[1], "below_first_allocation") == 0) return below_first_allocation();
  if (std::strcmp(argv[1], "use_after_free") == 0) return use_after_free(kInts * sizeof(int), true);
  if (std::strcmp(argv[1], "use_after_free_last") == 0) return use_after_free(kInts * sizeof(int), false);
  if (std::strcmp(argv[1], "use_after_free_dedicated") == 0) return use_after_free(4 << 20, true);
  std::fprintf(stderr, "unknown scenario %s\n", argv[1]);
  return 2;
}
