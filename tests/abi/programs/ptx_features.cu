// PTX features of NVIDIA's samples, run through minicuda's JIT: asynchronous copies with a
// pipeline (globalToShmemAsyncCopy), an mbarrier-based cuda::barrier, recursion with a raised
// stack limit (interval), a large struct parameter (LargeKernelParameter), a cooperative grid's
// sync (reductionMultiBlockCG) and half-precision arithmetic (fp16ScalarProduct). Prints
// "key value" lines; tests/abi/test_nvcc_ptx_features.cpp checks them.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cstdio>

namespace cg = cooperative_groups;

// out[i] = in[(i + 1) % 256] through shared memory filled by __pipeline_memcpy_async.
__global__ void async_copy(const int4* in, int4* out) {
  __shared__ int4 tile[64];
  __pipeline_memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(int4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}

// cuda::barrier in shared memory (mbarrier): every thread writes, arrives and waits, then reads
// its neighbour's value.
__global__ void barrier_exchange(int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int values[128];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  values[threadIdx.x] = static_cast<int>(threadIdx.x) * 3;
  bar.arrive_and_wait();
  out[threadIdx.x] = values[(threadIdx.x + 5) % blockDim.x];
}

__device__ __noinline__ unsigned descend(unsigned depth, unsigned limit) {
  if (depth >= limit) return depth;
  const unsigned r = descend(depth + 1, limit);
  return r * 3 + depth;
}
__global__ void deep(unsigned* out, unsigned limit) { out[threadIdx.x] = descend(0, limit); }

struct Big {
  int values[2000];
};
__global__ void big_param(Big big, long long* out) {
  long long sum = 0;
  for (int i = threadIdx.x; i < 2000; i += 32) sum += big.values[i];
  atomicAdd(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(sum));
}

__global__ void grid_sum(int* counter, int* out) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(counter, static_cast<int>(blockIdx.x) + 1);
  grid.sync();
  out[grid.thread_rank()] = atomicAdd(counter, 0);
}

__global__ void half_dot(const __half2* a, const __half2* b, float* out) {
  __half2 acc = __float2half2_rn(0.0f);
  for (int i = 0; i < 16; ++i) acc = __hfma2(a[i], b[i], acc);
  out[0] = __low2float(acc) + __high2float(acc);
}

int main() {
  int failures = 0;
  // 1. cp.async
  int4 *in, *out;
  cudaMallocManaged(&in, 64 * sizeof(int4));
  cudaMallocManaged(&out, 64 * sizeof(int4));
  for (int i = 0; i < 64; ++i) in[i] = make_int4(i, i * 2, i * 3, i * 4);
  async_copy<<<1, 64>>>(in, out);
  printf("asyncLaunch %d\n", static_cast<int>(cudaGetLastError()));
  printf("asyncSync %d\n", static_cast<int>(cudaDeviceSynchronize()));
  int async_ok = 1;
  for (int i = 0; i < 64; ++i) async_ok &= out[i].x == (i + 1) % 64 && out[i].w == ((i + 1) % 64) * 4;
  printf("asyncCopy %d\n", async_ok);

  // 2. cuda::barrier
  int* ex;
  cudaMallocManaged(&ex, 128 * sizeof(int));
  barrier_exchange<<<1, 128>>>(ex);
  printf("barrierSync %d\n", static_cast<int>(cudaDeviceSynchronize()));
  int bar_ok = 1;
  for (int i = 0; i < 128; ++i) bar_ok &= ex[i] == ((i + 5) % 128) * 3;
  printf("barrier %d\n", bar_ok);

  // 3. recursion: too deep for the default stack, then within a raised one
  unsigned* d;
  cudaMallocManaged(&d, 32 * sizeof(unsigned));
  deep<<<1, 32>>>(d, 20);
  printf("deep20 %d\n", static_cast<int>(cudaDeviceSynchronize()));
  unsigned want = 20;
  for (int k = 19; k >= 0; --k) want = want * 3 + static_cast<unsigned>(k);
  printf("deep20Value %d\n", d[0] == want);
  printf("setStack %d\n", static_cast<int>(cudaDeviceSetLimit(cudaLimitStackSize, 16384)));
  deep<<<1, 32>>>(d, 400);
  printf("deep400 %d\n", static_cast<int>(cudaDeviceSynchronize()));

  // 4. a parameter of 8000 bytes
  Big big;
  long long expect = 0;
  for (int i = 0; i < 2000; ++i) big.values[i] = i * 7 - 3, expect += i * 7 - 3;
  long long* sum;
  cudaMallocManaged(&sum, sizeof *sum);
  *sum = 0;
  big_param<<<1, 32>>>(big, sum);
  printf("bigSync %d\n", static_cast<int>(cudaDeviceSynchronize()));
  printf("bigParam %d\n", *sum == expect);

  // 5. cooperative launch with grid.sync
  int *counter, *all;
  cudaMallocManaged(&counter, sizeof *counter);
  cudaMallocManaged(&all, 4 * 64 * sizeof(int));
  *counter = 0;
  void* args[] = {&counter, &all};
  printf("coopLaunch %d\n", static_cast<int>(cudaLaunchCooperativeKernel((void*)grid_sum, 4, 64, args, 0, 0)));
  printf("coopSync %d\n", static_cast<int>(cudaDeviceSynchronize()));
  int coop_ok = 1;
  for (int i = 0; i < 256; ++i) coop_ok &= all[i] == 10;
  printf("gridSync %d\n", coop_ok);

  // 6. half-precision dot product
  __half2 *a, *b;
  float* dot;
  cudaMallocManaged(&a, 16 * sizeof(__half2));
  cudaMallocManaged(&b, 16 * sizeof(__half2));
  cudaMallocManaged(&dot, sizeof(float));
  for (int i = 0; i < 16; ++i) a[i] = __floats2half2_rn(i * 0.5f, 1.0f), b[i] = __floats2half2_rn(2.0f, i * 0.25f);
  half_dot<<<1, 1>>>(a, b, dot);
  printf("halfSync %d\n", static_cast<int>(cudaDeviceSynchronize()));
  printf("halfDot %g\n", *dot);

  // Last, as it leaves the context unusable: recursion past the stack.
  deep<<<1, 32>>>(d, 100000);
  printf("deepOverflow %d\n", static_cast<int>(cudaDeviceSynchronize()));
  printf("failures %d\n", failures);
  return 0;
}
