// Probe: CUDA dynamic parallelism (CDP2) on the real H200 - depth limit, pending-launch limit,
// device-side launch errors, completion order, tail launch order. Prints key=value lines.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int g_depth_err[64];
__device__ int g_order[256];
__device__ int g_order_n;
__device__ int g_pending_first_fail;
__device__ int g_pending_err;
__device__ int g_errs[16];

__global__ void recurse(int depth) {
  g_depth_err[depth] = -1;
  recurse<<<1, 1>>>(depth + 1);
  g_depth_err[depth] = (int)cudaGetLastError();
}

__global__ void empty_kernel() {}

__global__ void pending(int n) {
  g_pending_first_fail = -1;
  for (int i = 0; i < n; ++i) {
    empty_kernel<<<1, 1>>>();
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { g_pending_first_fail = i; g_pending_err = (int)e; return; }
  }
}

__global__ void pending_ff(int n) {
  g_pending_first_fail = -1;
  for (int i = 0; i < n; ++i) {
    empty_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>();
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { g_pending_first_fail = i; g_pending_err = (int)e; return; }
  }
}

__global__ void record(int tag) { int i = atomicAdd(&g_order_n, 1); if (i < 256) g_order[i] = tag; }

__global__ void record_then_launch(int tag) {
  int i = atomicAdd(&g_order_n, 1); if (i < 256) g_order[i] = tag;
  if (tag == 1) record<<<1, 1>>>(10);
}

__global__ void order_parent() {
  record<<<1, 1, 0, cudaStreamTailLaunch>>>(100);
  record<<<1, 1, 0, cudaStreamTailLaunch>>>(101);
  record_then_launch<<<1, 1>>>(1);
  record<<<1, 1, 0, cudaStreamFireAndForget>>>(2);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  record<<<1, 1, 0, s>>>(3);
  cudaStreamDestroy(s);
  record<<<1, 1>>>(4);
  int i = atomicAdd(&g_order_n, 1); if (i < 256) g_order[i] = 0;
}

__global__ void bad_configs() {
  empty_kernel<<<1, 2048>>>();                 g_errs[0] = (int)cudaGetLastError();
  g_errs[1] = (int)cudaGetLastError();
  empty_kernel<<<0, 1>>>();                    g_errs[2] = (int)cudaPeekAtLastError();
  g_errs[3] = (int)cudaGetLastError();
  empty_kernel<<<1, 32, 300000>>>();           g_errs[4] = (int)cudaGetLastError();
  empty_kernel<<<dim3(1, 70000), 1>>>();       g_errs[5] = (int)cudaGetLastError();
  cudaStream_t s; g_errs[6] = (int)cudaStreamCreateWithFlags(&s, cudaStreamDefault);
  g_errs[7] = (int)cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  g_errs[8] = (int)cudaStreamDestroy(s);
  g_errs[9] = (int)cudaGetLastError();
}

__global__ void faulting_child() { *(volatile int*)0x10 = 1; }
__global__ void fault_parent() { faulting_child<<<1, 1>>>(); g_errs[10] = (int)cudaGetLastError(); }

__global__ void two_tails() {
  record<<<1, 1, 0, cudaStreamTailLaunch>>>(7); g_errs[11] = (int)cudaGetLastError();
  record<<<1, 1, 0, cudaStreamTailLaunch>>>(8); g_errs[12] = (int)cudaGetLastError();
}

int main() {
  size_t v = 0;
  cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount); printf("limit_pending_default=%zu\n", v);
  cudaError_t e = cudaDeviceGetLimit(&v, cudaLimitDevRuntimeSyncDepth); printf("get_sync_depth=%d value=%zu\n", (int)e, v);
  printf("set_sync_depth=%d\n", (int)cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4)); cudaGetLastError();
  cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize); printf("limit_heap_default=%zu\n", v);

  recurse<<<1, 1>>>(0);
  printf("recurse_sync=%d\n", (int)cudaDeviceSynchronize());
  int d[64]; cudaMemcpyFromSymbol(d, g_depth_err, sizeof d);
  for (int i = 0; i < 30; ++i) printf("depth %d err=%d\n", i, d[i]);

  pending<<<1, 1>>>(5000);
  printf("pending_sync=%d\n", (int)cudaDeviceSynchronize());
  int f = 0, pe = 0; cudaMemcpyFromSymbol(&f, g_pending_first_fail, 4); cudaMemcpyFromSymbol(&pe, g_pending_err, 4);
  printf("pending_first_fail=%d err=%d\n", f, pe);
  pending_ff<<<1, 1>>>(5000);
  printf("pending_ff_sync=%d\n", (int)cudaDeviceSynchronize());
  cudaMemcpyFromSymbol(&f, g_pending_first_fail, 4); cudaMemcpyFromSymbol(&pe, g_pending_err, 4);
  printf("pending_ff_first_fail=%d err=%d\n", f, pe);
  printf("set_pending_100=%d\n", (int)cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 100));
  pending<<<1, 1>>>(5000);
  printf("pending100_sync=%d\n", (int)cudaDeviceSynchronize());
  cudaMemcpyFromSymbol(&f, g_pending_first_fail, 4); cudaMemcpyFromSymbol(&pe, g_pending_err, 4);
  printf("pending100_first_fail=%d err=%d\n", f, pe);
  cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048);

  for (int rep = 0; rep < 3; ++rep) {
    int zero = 0; cudaMemcpyToSymbol(g_order_n, &zero, 4);
    order_parent<<<1, 1>>>();
    printf("order_sync=%d order:", (int)cudaDeviceSynchronize());
    int n = 0, o[256]; cudaMemcpyFromSymbol(&n, g_order_n, 4); cudaMemcpyFromSymbol(o, g_order, sizeof o);
    for (int i = 0; i < n && i < 256; ++i) printf(" %d", o[i]);
    printf("\n");
  }

  bad_configs<<<1, 1>>>();
  printf("bad_configs_sync=%d\n", (int)cudaDeviceSynchronize());
  int errs[16]; cudaMemcpyFromSymbol(errs, g_errs, sizeof errs);
  for (int i = 0; i < 10; ++i) printf("bad_config %d err=%d\n", i, errs[i]);

  { int zero = 0; cudaMemcpyToSymbol(g_order_n, &zero, 4); }
  two_tails<<<1, 1>>>();
  printf("two_tails_sync=%d\n", (int)cudaDeviceSynchronize());
  cudaMemcpyFromSymbol(errs, g_errs, sizeof errs);
  { int n = 0, o[256]; cudaMemcpyFromSymbol(&n, g_order_n, 4); cudaMemcpyFromSymbol(o, g_order, sizeof o);
    printf("two_tails errs=%d,%d order:", errs[11], errs[12]); for (int i = 0; i < n; ++i) printf(" %d", o[i]); printf("\n"); }

  fault_parent<<<1, 1>>>();
  printf("fault_parent_sync=%d (%s)\n", (int)cudaDeviceSynchronize(), cudaGetErrorName(cudaGetLastError()));
  cudaMemcpyFromSymbol(errs, g_errs, sizeof errs);
  printf("fault_parent_launch_err=%d\n", errs[10]);
  return 0;
}
