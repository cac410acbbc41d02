// Probe 2 of CUDA dynamic parallelism (CDP2) on the H200: each experiment in its own process
// (argv[1]), so that a sticky error of one does not hide the others. Prints key=value lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define MAXD 64
__device__ int g_depth_err[MAXD];
__device__ int g_order[256];
__device__ int g_order_n;
__device__ int g_first_fail;
__device__ int g_fail_err;
__device__ int g_errs[16];

__global__ void recurse(int depth, int max_depth) {
  if (depth + 1 >= max_depth) return;
  recurse<<<1, 1>>>(depth + 1, max_depth);
  g_depth_err[depth] = (int)cudaGetLastError();
}
__global__ void empty_kernel() {}
__global__ void pending(int n, int ff) {
  g_first_fail = -1;
  for (int i = 0; i < n; ++i) {
    if (ff) empty_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(); else empty_kernel<<<1, 1>>>();
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { g_first_fail = i; g_fail_err = (int)e; return; }
  }
}
__device__ void tag(int t) { int i = atomicAdd(&g_order_n, 1); if (i < 256) g_order[i] = t; }
__global__ void record(int t) { tag(t); }
__global__ void record_then_launch(int t) { tag(t); record<<<1, 1>>>(t * 10); }
__global__ void order_parent() {
  record<<<1, 1, 0, cudaStreamTailLaunch>>>(100);
  record<<<1, 1, 0, cudaStreamTailLaunch>>>(101);
  record_then_launch<<<1, 1>>>(1);
  record<<<1, 1, 0, cudaStreamFireAndForget>>>(2);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  record<<<1, 1, 0, s>>>(3);
  cudaStreamDestroy(s);
  record<<<1, 1>>>(4);
  tag(0);
}
__global__ void bad_configs() {
  empty_kernel<<<1, 2048>>>();           g_errs[0] = (int)cudaPeekAtLastError();
  g_errs[1] = (int)cudaGetLastError();
  g_errs[2] = (int)cudaGetLastError();
  empty_kernel<<<0, 32>>>();             g_errs[3] = (int)cudaGetLastError();
  empty_kernel<<<dim3(1, 70000), 1>>>(); g_errs[4] = (int)cudaGetLastError();
  empty_kernel<<<1, 32, 64 * 1024>>>();  g_errs[5] = (int)cudaGetLastError();
  cudaStream_t s;
  g_errs[6] = (int)cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  g_errs[7] = (int)cudaGetLastError();
  g_errs[8] = (int)cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  g_errs[9] = (int)cudaStreamDestroy(s);
  empty_kernel<<<1, 1, 0, s>>>();        g_errs[10] = (int)cudaGetLastError();
  g_errs[11] = (int)cudaStreamDestroy(s);
  empty_kernel<<<1, 1>>>();              g_errs[12] = (int)cudaGetLastError();
}
__global__ void faulting_child(int* p) { *p = 1; }
__global__ void fault_parent() { faulting_child<<<1, 1>>>(nullptr); g_errs[13] = (int)cudaGetLastError(); }

static void order_print(const char* what) {
  int n = 0, o[256];
  cudaMemcpyFromSymbol(&n, g_order_n, 4); cudaMemcpyFromSymbol(o, g_order, sizeof o);
  printf("%s order:", what); for (int i = 0; i < n && i < 256; ++i) printf(" %d", o[i]); printf("\n");
}

int main(int argc, char** argv) {
  const char* x = argc > 1 ? argv[1] : "";
  if (!strcmp(x, "depth")) {
    int minus1[MAXD]; memset(minus1, 0xff, sizeof minus1); cudaMemcpyToSymbol(g_depth_err, minus1, sizeof minus1);
    recurse<<<1, 1>>>(0, MAXD);
    printf("depth_launch=%d\n", (int)cudaGetLastError());
    cudaError_t e = cudaDeviceSynchronize();
    printf("depth_sync=%d (%s)\n", (int)e, cudaGetErrorName(e));
    int d[MAXD]; cudaMemcpyFromSymbol(d, g_depth_err, sizeof d);
    for (int i = 0; i < MAXD; ++i) printf("depth %d err=%d\n", i, d[i]);
  } else if (!strcmp(x, "depth24") || !strcmp(x, "depth25") || !strcmp(x, "depth23")) {
    int m = atoi(x + 5);
    int minus1[MAXD]; memset(minus1, 0xff, sizeof minus1); cudaMemcpyToSymbol(g_depth_err, minus1, sizeof minus1);
    recurse<<<1, 1>>>(0, m);  // grids at depths 0 .. m-1
    cudaError_t e = cudaDeviceSynchronize();
    printf("grids=%d sync=%d (%s)\n", m, (int)e, cudaGetErrorName(e));
    int d[MAXD]; cudaMemcpyFromSymbol(d, g_depth_err, sizeof d);
    for (int i = 0; i < m; ++i) printf("depth %d err=%d\n", i, d[i]);
  } else if (!strcmp(x, "pending") || !strcmp(x, "pending_ff") || !strcmp(x, "pending100")) {
    if (!strcmp(x, "pending100")) printf("set_limit=%d\n", (int)cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 100));
    size_t v = 0; cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount); printf("limit=%zu\n", v);
    pending<<<1, 1>>>(5000, !strcmp(x, "pending_ff"));
    cudaError_t e = cudaDeviceSynchronize();
    int f = 0, pe = 0; cudaMemcpyFromSymbol(&f, g_first_fail, 4); cudaMemcpyFromSymbol(&pe, g_fail_err, 4);
    printf("%s sync=%d (%s) first_fail=%d err=%d\n", x, (int)e, cudaGetErrorName(e), f, pe);
  } else if (!strcmp(x, "order")) {
    for (int rep = 0; rep < 3; ++rep) {
      int zero = 0; cudaMemcpyToSymbol(g_order_n, &zero, 4);
      order_parent<<<1, 1>>>();
      printf("sync=%d ", (int)cudaDeviceSynchronize());
      order_print("order_parent");
    }
  } else if (!strcmp(x, "bad")) {
    bad_configs<<<1, 1>>>();
    cudaError_t e = cudaDeviceSynchronize();
    printf("bad_configs sync=%d (%s)\n", (int)e, cudaGetErrorName(e));
    int errs[16]; cudaMemcpyFromSymbol(errs, g_errs, sizeof errs);
    for (int i = 0; i < 13; ++i) printf("bad %d err=%d\n", i, errs[i]);
  } else if (!strcmp(x, "fault")) {
    fault_parent<<<1, 1>>>();
    printf("fault launch=%d\n", (int)cudaGetLastError());
    cudaError_t e = cudaDeviceSynchronize();
    int errs[16]; cudaMemcpyFromSymbol(errs, g_errs, sizeof errs);
    printf("fault sync=%d (%s) child_launch_err=%d\n", (int)e, cudaGetErrorName(e), errs[13]);
  }
  return 0;
}
