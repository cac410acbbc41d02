// Probe: the device malloc heap on the real H200 (CUDA 13).
// Usage: probe_heap CASE. Each case is a separate process (run.sh bounds each with timeout), so a
// case that faults or hangs cannot hide the others. Every kernel is bounded; output is unbuffered.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define SHOW(k, call)                                                                         \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    printf("%s = %d %s\n", (k), (int)e_, cudaGetErrorName(e_));                               \
  } while (0)

static unsigned long long* g_out;  // managed, 4096 slots
static const int kSlots = 4096;

__global__ void k_nothing() {}

// Allocates `chunk` bytes until NULL or `cap` allocations; records the count, then frees all.
__global__ void k_exhaust(unsigned long long* out, size_t chunk, int cap) {
  void* ptrs[1024];
  int n = 0;
  while (n < cap && n < 1024) {
    void* p = malloc(chunk);
    if (!p) break;
    ptrs[n++] = p;
  }
  out[0] = n;
  out[1] = n > 0 ? (unsigned long long)ptrs[0] : 0;
  out[2] = n > 0 ? (unsigned long long)ptrs[n - 1] : 0;
  for (int i = 0; i < n; ++i) free(ptrs[i]);
}

__global__ void k_sizes(unsigned long long* out, const unsigned long long* sizes, int n) {
  for (int i = 0; i < n; ++i) out[i] = (unsigned long long)malloc(sizes[i]);
}
__global__ void k_free_list(const unsigned long long* ptrs, int n) {
  for (int i = 0; i < n; ++i) free((void*)ptrs[i]);
}
__global__ void k_malloc1(unsigned long long* out, size_t bytes) { out[0] = (unsigned long long)malloc(bytes); }
__global__ void k_fill(unsigned long long p, int n) {
  for (int i = 0; i < n; ++i) ((int*)p)[i] = 1000 + i;
}
__global__ void k_check_free(unsigned long long* out, unsigned long long p, int n) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += ((int*)p)[i] != 1000 + i;
  out[0] = bad;
  free((void*)p);
}
__global__ void k_free_null() { free(nullptr); }
__global__ void k_free_ptr(unsigned long long p) { free((void*)p); }
__global__ void k_double_free(unsigned long long* out) {
  void* p = malloc(64);
  out[0] = (unsigned long long)p;
  free(p);
  free(p);
  out[1] = 1;
}
// Every thread mallocs `bytes`, writes its global index into the block, and records the pointer.
__global__ void k_many(unsigned long long* out, size_t bytes) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = (unsigned*)malloc(bytes);
  if (p) *p = t;
  out[t] = (unsigned long long)p;
}
__global__ void k_many_check_free(unsigned long long* out, const unsigned long long* ptrs) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = (unsigned*)ptrs[t];
  out[t] = p ? (*p == t) : 2;
  free(p);
}
__global__ void k_new(unsigned long long* out, size_t huge) {
  int* a = new int[4];
  out[0] = (unsigned long long)a;
  char* h = new char[huge];
  out[1] = (unsigned long long)h;
  delete[] a;
  delete[] h;
}
__global__ void k_dev_cudamalloc(unsigned long long* out, size_t huge) {
  void* p = (void*)0xdead;
  out[0] = cudaMalloc(&p, 64);
  out[1] = (unsigned long long)p;
  void* m = malloc(64);
  out[2] = (unsigned long long)m;
  void* q = (void*)0xdead;
  out[3] = cudaMalloc(&q, huge);
  out[4] = (unsigned long long)q;
  out[5] = cudaFree(p);
  out[6] = cudaFree(nullptr);
  free(m);
  void* r = (void*)0xdead;
  out[7] = cudaMalloc(&r, 0);
  out[8] = (unsigned long long)r;
}
__global__ void k_dev_cudafree_ptr(unsigned long long* out, unsigned long long p) {
  out[0] = cudaFree((void*)p);
}

static size_t heap_limit() {
  size_t v = 0;
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  return v;
}
static void sync(const char* what) { SHOW(what, cudaDeviceSynchronize()); }

static void case_limits() {
  printf("heap.default = %zu\n", heap_limit());
  const size_t sets[] = {size_t(1) << 20, (size_t(5) << 20) + 1, size_t(6) << 20, size_t(9) << 20,
                         (size_t(8) << 20) + 100, size_t(8) << 20};
  for (size_t s : sets) {
    char k[64];
    snprintf(k, sizeof k, "heap.set.%zu", s);
    SHOW(k, cudaDeviceSetLimit(cudaLimitMallocHeapSize, s));
    printf("heap.set.%zu.get = %zu\n", s, heap_limit());
  }
}

static void case_align() {
  const unsigned long long sizes[] = {1, 1, 7, 8, 15, 16, 17, 24, 32, 33, 100, 128, 129, 256, 1000, 4096, 65536, 1 << 20};
  const int n = sizeof sizes / sizeof sizes[0];
  unsigned long long* dsz;
  cudaMallocManaged(&dsz, sizeof sizes);
  memcpy(dsz, sizes, sizeof sizes);
  k_sizes<<<1, 1>>>(g_out, dsz, n);
  sync("align.sync");
  void* dm = nullptr;
  cudaMalloc(&dm, 256);
  printf("align.cudaMalloc_ptr = 0x%llx\n", (unsigned long long)dm);
  for (int i = 0; i < n; ++i) {
    unsigned long long p = g_out[i];
    long long d = i ? (long long)(p - g_out[i - 1]) : 0;
    printf("align.size_%llu = 0x%llx mod16=%llu mod128=%llu mod4096=%llu delta_prev=%lld\n", sizes[i], p, p % 16,
           p % 128, p % 4096, d);
  }
  unsigned long long* dp;
  cudaMallocManaged(&dp, sizeof sizes);
  memcpy(dp, g_out, sizeof sizes);
  k_free_list<<<1, 1>>>(dp, n);
  sync("align.free.sync");
  // After freeing everything: the same sequence again, do addresses repeat?
  k_sizes<<<1, 1>>>(g_out, dsz, 3);
  sync("align.again.sync");
  for (int i = 0; i < 3; ++i) printf("align.again_%d = 0x%llx same=%d\n", i, g_out[i], g_out[i] == dp[i]);
  // A warp of mallocs: lane order of the pointers.
  k_many<<<1, 32>>>(g_out, 16);
  sync("align.warp.sync");
  for (int i = 0; i < 32; ++i) printf("align.warp_lane%d = 0x%llx delta_lane0=%lld\n", i, g_out[i], (long long)(g_out[i] - g_out[0]));
}

static void case_exhaust() {
  printf("exhaust.limit = %zu\n", heap_limit());
  const size_t chunks[] = {size_t(1) << 20, size_t(1) << 19, size_t(65536), size_t(8192), size_t(8) << 20,
                           (size_t(8) << 20) - 16, (size_t(7) << 20), size_t(16) << 20, 0};
  for (size_t c : chunks) {
    memset(g_out, 0, 3 * sizeof *g_out);
    k_exhaust<<<1, 1>>>(g_out, c, 1024);
    char k[64];
    snprintf(k, sizeof k, "exhaust.%zu.sync", c);
    sync(k);
    printf("exhaust.%zu.count = %llu first=0x%llx last=0x%llx\n", c, g_out[0], g_out[1], g_out[2]);
  }
  // A smaller heap: set before the first launch in a fresh process (exhaust_small).
}

static void case_exhaust_small() {
  SHOW("exhaust_small.set4M", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(4) << 20));
  printf("exhaust_small.limit = %zu\n", heap_limit());
  const size_t chunks[] = {size_t(1) << 20, size_t(65536), size_t(4) << 20, (size_t(4) << 20) - 4096, 4096};
  for (size_t c : chunks) {
    memset(g_out, 0, 3 * sizeof *g_out);
    k_exhaust<<<1, 1>>>(g_out, c, 1024);
    char k[64];
    snprintf(k, sizeof k, "exhaust_small.%zu.sync", c);
    sync(k);
    printf("exhaust_small.%zu.count = %llu first=0x%llx last=0x%llx\n", c, g_out[0], g_out[1], g_out[2]);
  }
}

static void case_persist() {
  k_malloc1<<<1, 1>>>(g_out, 64 * sizeof(int));
  sync("persist.malloc.sync");
  unsigned long long p = g_out[0];
  printf("persist.ptr_nonnull = %d\n", p != 0);
  k_fill<<<1, 1>>>(p, 64);
  sync("persist.fill.sync");
  int host[64];
  SHOW("persist.memcpy_d2h", cudaMemcpy(host, (void*)p, sizeof host, cudaMemcpyDeviceToHost));
  printf("persist.host_read0 = %d host_read63 = %d\n", host[0], host[63]);
  k_check_free<<<1, 1>>>(g_out, p, 64);
  sync("persist.check_free.sync");
  printf("persist.bad = %llu\n", g_out[0]);
  k_malloc1<<<1, 1>>>(g_out, 64 * sizeof(int));
  sync("persist.realloc.sync");
  printf("persist.realloc_same_addr = %d\n", g_out[0] == p);
  cudaPointerAttributes a;
  cudaError_t e = cudaPointerGetAttributes(&a, (void*)p);
  printf("persist.ptrattr = %d %s type=%d\n", (int)e, cudaGetErrorName(e), (int)a.type);
  void* dm = nullptr;
  cudaMalloc(&dm, 64);
  printf("persist.heap_minus_cudaMalloc = %lld\n", (long long)(p - (unsigned long long)dm));
  SHOW("persist.host_cudaFree_heap_ptr", cudaFree((void*)g_out[0]));
  SHOW("persist.getlast", cudaGetLastError());
}

static void case_free_null() {
  k_free_null<<<1, 32>>>();
  sync("free_null.sync");
  SHOW("free_null.getlast", cudaGetLastError());
}

static void case_many() {
  const int blocks = 64, threads = 256, n = blocks * threads;  // 16384 threads
  unsigned long long *ptrs, *res;
  cudaMallocManaged(&ptrs, n * sizeof *ptrs);
  cudaMallocManaged(&res, n * sizeof *res);
  k_many<<<blocks, threads>>>(ptrs, 32);
  sync("many32.sync");
  std::vector<unsigned long long> v(ptrs, ptrs + n);
  int nulls = (int)std::count(v.begin(), v.end(), 0ull);
  std::sort(v.begin(), v.end());
  int dups = 0;
  unsigned long long mindelta = ~0ull;
  for (int i = 1; i < n; ++i) {
    if (v[i] && v[i] == v[i - 1]) ++dups;
    if (v[i - 1]) mindelta = std::min(mindelta, v[i] - v[i - 1]);
  }
  int misaligned = 0;
  for (auto p : v) misaligned += p % 16 != 0;
  printf("many32.nulls = %d dups = %d misaligned16 = %d min_delta = %llu span = %llu\n", nulls, dups, misaligned,
         mindelta, v[n - 1] - v[nulls]);
  k_many_check_free<<<blocks, threads>>>(res, ptrs);
  sync("many32.checkfree.sync");
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += res[i] != 1;
  printf("many32.bad = %d\n", bad);
  // 16384 x 1 KiB = 16 MiB > the 8 MiB heap.
  k_many<<<blocks, threads>>>(ptrs, 1024);
  sync("many1k.sync");
  nulls = 0;
  for (int i = 0; i < n; ++i) nulls += ptrs[i] == 0;
  printf("many1k.nulls = %d nonnull = %d\n", nulls, n - nulls);
  k_many_check_free<<<blocks, threads>>>(res, ptrs);
  sync("many1k.checkfree.sync");
}

static void case_late_limit() {
  SHOW("late.set16M.before_any_launch", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(16) << 20));
  k_nothing<<<1, 1>>>();
  sync("late.nothing.sync");
  SHOW("late.set12M.after_nothing", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(12) << 20));
  printf("late.get1 = %zu\n", heap_limit());
  k_malloc1<<<1, 1>>>(g_out, 16);
  sync("late.malloc.sync");
  SHOW("late.set32M.after_malloc_kernel", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(32) << 20));
  SHOW("late.getlast1", cudaGetLastError());
  printf("late.get2 = %zu\n", heap_limit());
  SHOW("late.set_same.after_malloc_kernel", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(12) << 20));
  SHOW("late.set_stack.after_malloc_kernel", cudaDeviceSetLimit(cudaLimitStackSize, 2048));
  SHOW("late.set_printf.after_malloc_kernel", cudaDeviceSetLimit(cudaLimitPrintfFifoSize, size_t(2) << 20));
  k_nothing<<<1, 1>>>();
  sync("late.nothing2.sync");
  SHOW("late.reset", cudaDeviceReset());
  SHOW("late.set32M.after_reset", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(32) << 20));
  printf("late.get3 = %zu\n", heap_limit());
}

static void case_meminfo() {
  size_t fr = 0, tot = 0;
  SHOW("meminfo.free0", cudaFree(0));
  cudaMemGetInfo(&fr, &tot);
  printf("meminfo.after_ctx = %zu\n", fr);
  SHOW("meminfo.set256M", cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t(256) << 20));
  cudaMemGetInfo(&fr, &tot);
  printf("meminfo.after_set = %zu\n", fr);
  k_nothing<<<1, 1>>>();
  sync("meminfo.nothing.sync");
  cudaMemGetInfo(&fr, &tot);
  printf("meminfo.after_nothing = %zu\n", fr);
  k_malloc1<<<1, 1>>>(g_out, size_t(200) << 20);
  sync("meminfo.malloc.sync");
  cudaMemGetInfo(&fr, &tot);
  printf("meminfo.after_malloc_kernel = %zu big_nonnull = %d\n", fr, g_out[0] != 0);
  k_malloc1<<<1, 1>>>(g_out, 16);
  sync("meminfo.malloc2.sync");
  cudaMemGetInfo(&fr, &tot);
  printf("meminfo.after_malloc2 = %zu\n", fr);
}

static void case_new() {
  k_new<<<1, 1>>>(g_out, size_t(64) << 20);
  sync("new.sync");
  printf("new.small = 0x%llx mod16=%llu huge_null = %d\n", g_out[0], g_out[0] % 16, g_out[1] == 0);
}

static void case_devcudamalloc() {
  k_dev_cudamalloc<<<1, 1>>>(g_out, size_t(64) << 20);
  sync("devcm.sync");
  printf("devcm.malloc64.err = %llu ptr = 0x%llx\n", g_out[0], g_out[1]);
  printf("devcm.plain_malloc = 0x%llx delta_from_cudaMalloc = %lld\n", g_out[2], (long long)(g_out[2] - g_out[1]));
  printf("devcm.huge.err = %llu ptr = 0x%llx\n", g_out[3], g_out[4]);
  printf("devcm.free.err = %llu free_null.err = %llu\n", g_out[5], g_out[6]);
  printf("devcm.zero.err = %llu ptr = 0x%llx\n", g_out[7], g_out[8]);
}

static void case_devcudafree_bad() {
  void* dm = nullptr;
  cudaMalloc(&dm, 256);
  k_dev_cudafree_ptr<<<1, 1>>>(g_out, (unsigned long long)dm);
  sync("devcfbad.sync");
  printf("devcfbad.err = %llu\n", g_out[0]);
}

static void case_double_free() {
  k_double_free<<<1, 1>>>(g_out);
  sync("double_free.sync");
  printf("double_free.reached_end = %llu\n", g_out[1]);
  SHOW("double_free.getlast", cudaGetLastError());
  k_malloc1<<<1, 1>>>(g_out, 64);
  sync("double_free.next.sync");
  printf("double_free.next_ptr = 0x%llx\n", g_out[0]);
}

static void case_free_foreign() {
  void* dm = nullptr;
  cudaMalloc(&dm, 256);
  k_free_ptr<<<1, 1>>>((unsigned long long)dm);
  sync("free_foreign.sync");
  SHOW("free_foreign.getlast", cudaGetLastError());
  k_malloc1<<<1, 1>>>(g_out, 64);
  sync("free_foreign.next.sync");
}

static void case_free_interior() {
  k_malloc1<<<1, 1>>>(g_out, 256);
  sync("free_interior.malloc.sync");
  k_free_ptr<<<1, 1>>>(g_out[0] + 16);
  sync("free_interior.sync");
  SHOW("free_interior.getlast", cudaGetLastError());
  k_malloc1<<<1, 1>>>(g_out, 64);
  sync("free_interior.next.sync");
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (argc < 2) return 2;
  const char* c = argv[1];
  if (strcmp(c, "limits") && strcmp(c, "meminfo") && strcmp(c, "exhaust_small") && strcmp(c, "late_limit")) {
    cudaError_t e = cudaMallocManaged(&g_out, kSlots * sizeof *g_out);
    if (e != cudaSuccess) { printf("setup = %d\n", (int)e); return 1; }
    memset(g_out, 0, kSlots * sizeof *g_out);
  } else {
    cudaMallocManaged(&g_out, kSlots * sizeof *g_out);  // before any launch; sets no limit
  }
  struct { const char* name; void (*fn)(); } cases[] = {
      {"limits", case_limits}, {"align", case_align}, {"exhaust", case_exhaust},
      {"exhaust_small", case_exhaust_small}, {"persist", case_persist}, {"free_null", case_free_null},
      {"many", case_many}, {"late_limit", case_late_limit}, {"meminfo", case_meminfo}, {"new", case_new},
      {"devcm", case_devcudamalloc}, {"devcfbad", case_devcudafree_bad}, {"double_free", case_double_free},
      {"free_foreign", case_free_foreign}, {"free_interior", case_free_interior}};
  for (auto& k : cases)
    if (!strcmp(k.name, c)) { k.fn(); return 0; }
  printf("unknown case %s\n", c);
  return 2;
}
