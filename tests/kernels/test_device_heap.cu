// The device malloc heap end to end (docs/device-heap.md): C++ kernels that call malloc/free and
// the device runtime's cudaMalloc/cudaFree (cu2cxx sends them to ::minicuda::devrt), nvcc's PTX
// of the same calls through cuModuleLoadData and the JIT, and the limit that sizes the heap.
// The addresses are asserted exactly: they must not depend on MINICUDA_SM_THREADS (ctest runs
// this file with 1 and 4 host threads).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_test.h"

// --- kernels --------------------------------------------------------------------------------

// Each thread mallocs `bytes` and writes its index into the block (NULL: nothing).
__global__ void each_malloc(unsigned long long* out, size_t bytes) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = static_cast<unsigned*>(malloc(bytes));
  if (p != nullptr) *p = t;
  out[t] = reinterpret_cast<unsigned long long>(p);
}

// 1 when the block of thread t still holds t (2 when it had none); then frees it.
__global__ void each_check_free(unsigned long long* out, const unsigned long long* ptrs) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = reinterpret_cast<unsigned*>(ptrs[t]);
  out[t] = p != nullptr ? (*p == t ? 1 : 0) : 2;
  free(p);
}

// One thread: mallocs `chunk` bytes until NULL (at most 64), records how many, frees them.
__global__ void exhaust(unsigned long long* out, size_t chunk) {
  void* got[64];
  int n = 0;
  while (n < 64) {
    void* p = malloc(chunk);
    if (p == nullptr) break;
    got[n++] = p;
  }
  out[0] = n;
  for (int i = 0; i < n; ++i) free(got[i]);
}

__global__ void free_pointer(unsigned long long p) { free(reinterpret_cast<void*>(p)); }

// The device runtime's cudaMalloc and cudaFree share the heap with malloc.
__global__ void device_cuda_malloc(unsigned long long* out, size_t huge) {
  void* p = reinterpret_cast<void*>(0xdead);
  out[0] = cudaMalloc(&p, 64);
  out[1] = reinterpret_cast<unsigned long long>(p);
  void* m = malloc(64);
  out[2] = reinterpret_cast<unsigned long long>(m);
  void* q = reinterpret_cast<void*>(0xdead);
  out[3] = cudaMalloc(&q, huge);
  out[4] = reinterpret_cast<unsigned long long>(q);
  out[5] = cudaFree(p);
  out[6] = cudaFree(nullptr);
  free(m);
  void* r = reinterpret_cast<void*>(0xdead);
  out[7] = cudaMalloc(&r, 0);
  out[8] = reinterpret_cast<unsigned long long>(r);
}

__global__ void double_free() {
  void* p = malloc(64);
  free(p);
  free(p);
}

// device_heap_plain.cu: a kernel in a module whose device code does not use the heap.
void launch_no_heap_here(int* out);

namespace minicuda::kernels_test {
namespace {

using DeviceHeap = FreshProcess;

std::vector<unsigned long long> run_each(unsigned blocks, unsigned threads, size_t bytes,
                                         std::vector<unsigned long long>* checked = nullptr) {
  const unsigned n = blocks * threads;
  DeviceArray<unsigned long long> ptrs(n), res(n);
  each_malloc<<<blocks, threads>>>(ptrs.get(), bytes);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned long long> got = ptrs.read();
  each_check_free<<<blocks, threads>>>(res.get(), ptrs.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (checked) *checked = res.read();
  return got;
}

TEST_F(DeviceHeap, TheDefaultHeapIs8MiBAndTheLimitReadsBack) {
  size_t v = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
  EXPECT_EQ(v, 8388608u);  // probe_api_families.txt rt.getLimit.2
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
  EXPECT_EQ(v, 4194304u);  // at least 4 MiB (rt.setLimit.heap.1000)
  // 64 KiB steps (tests/data/h200/device_heap/out/heap.txt heap.set.*).
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (5 << 20) + 1), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
  EXPECT_EQ(v, 5308416u);
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8388708), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
  EXPECT_EQ(v, 8454144u);
}

TEST_F(DeviceHeap, ManyThreadsGetDistinctAlignedBlocksInThreadOrder) {
  std::vector<unsigned long long> checked;
  const std::vector<unsigned long long> p = run_each(64, 128, 16, &checked);
  ASSERT_NE(p[0], 0u);
  for (unsigned t = 0; t < p.size(); ++t) {
    EXPECT_EQ(p[t] - p[0], 80ull * t) << t;  // one 80-byte block per thread, block by block (the H200: 80 apart)
    EXPECT_EQ(p[t] % 16, 0u) << t;
    EXPECT_EQ(checked[t], 1u) << t;
  }
  // Everything was freed: the same grid gets the same addresses again.
  EXPECT_EQ(run_each(64, 128, 16), p);
}

TEST_F(DeviceHeap, AFullHeapReturnsNullToTheLaterThreads) {
  // 8 MiB less the 64-byte header holds 8065 blocks of 1024 + 16 bytes.
  std::vector<unsigned long long> checked;
  const std::vector<unsigned long long> p = run_each(64, 256, 1024, &checked);
  const auto nulls = std::count(p.begin(), p.end(), 0ull);
  EXPECT_EQ(nulls, 64 * 256 - 8065);
  for (unsigned t = 0; t < p.size(); ++t) {
    EXPECT_EQ(p[t] == 0, t >= 8065) << t;
    EXPECT_EQ(checked[t], t < 8065 ? 1u : 2u) << t;
  }
}

TEST_F(DeviceHeap, ExhaustionCountDependsOnTheHeapSize) {
  DeviceArray<unsigned long long> out(1);
  exhaust<<<1, 1>>>(out.get(), 1 << 20);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read()[0], 7u);  // 8 MiB: seven blocks of 1 MiB + 16 bytes (in 80-byte granules); the H200: 6
  exhaust<<<1, 1>>>(out.get(), size_t{8} << 20);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read()[0], 0u);  // the whole heap size never fits
  exhaust<<<1, 1>>>(out.get(), 0);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read()[0], 64u);  // malloc(0) is a block of its own, as on the H200 (exhaust.0.count)
}

TEST_F(DeviceHeap, ALargerHeapSetBeforeTheFirstUseHoldsMore) {
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{32} << 20), cudaSuccess);
  DeviceArray<unsigned long long> out(1);
  exhaust<<<1, 1>>>(out.get(), 1 << 20);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read()[0], 31u);
}

TEST_F(DeviceHeap, MemoryAllocatedInOneKernelIsFreedInALaterOne) {
  DeviceArray<unsigned long long> ptrs(32), res(32);
  each_malloc<<<1, 32>>>(ptrs.get(), 4);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned long long> p = ptrs.read();
  each_check_free<<<1, 32>>>(res.get(), ptrs.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (unsigned long long r : res.read()) EXPECT_EQ(r, 1u);
}

TEST_F(DeviceHeap, FreeOfNullOrOfAnInteriorPointerIsNoError) {
  DeviceArray<unsigned long long> ptrs(1);
  each_malloc<<<1, 1>>>(ptrs.get(), 256);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  free_pointer<<<1, 32>>>(0);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  free_pointer<<<1, 1>>>(ptrs.read()[0] + 16);  // the H200: free_interior.sync = 0
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(DeviceHeap, FreeOfCudaMallocMemoryIsAnIllegalAddress) {
  DeviceArray<int> other(16);
  run_each(1, 1, 16);  // the heap exists
  free_pointer<<<1, 1>>>(reinterpret_cast<unsigned long long>(other.get()));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);  // the H200: free_foreign.sync = 700
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);  // sticky
}

TEST_F(DeviceHeap, ADoubleFreeIsALaunchFailure) {
  double_free<<<1, 1>>>();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);  // the H200: double_free.sync = 719
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
}

TEST_F(DeviceHeap, DeviceCudaMallocAndCudaFreeShareTheHeap) {
  DeviceArray<unsigned long long> out(9);
  device_cuda_malloc<<<1, 1>>>(out.get(), size_t{64} << 20);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned long long> o = out.read();
  EXPECT_EQ(o[0], static_cast<unsigned long long>(cudaSuccess));
  EXPECT_NE(o[1], 0u);
  // The H200's answers (tests/data/h200/device_heap/out/heap.txt devcm.*).
  EXPECT_EQ(o[2] - o[1], 80u);  // malloc's block follows cudaMalloc's
  EXPECT_EQ(o[3], static_cast<unsigned long long>(cudaErrorMemoryAllocation));
  EXPECT_EQ(o[4], 0xdeadu);  // left as it was
  EXPECT_EQ(o[5], static_cast<unsigned long long>(cudaSuccess));
  EXPECT_EQ(o[6], static_cast<unsigned long long>(cudaSuccess));
  EXPECT_EQ(o[7], static_cast<unsigned long long>(cudaErrorInvalidValue));  // cudaMalloc(&r, 0)
  EXPECT_EQ(o[8], 0xdeadu);
}

TEST_F(DeviceHeap, TheHeapIsAllocatedAtTheFirstLaunchOfAModuleThatUsesIt) {
  DeviceArray<int> out(1);
  size_t before = 0, after_plain = 0, after_heap = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&before, &total), cudaSuccess);
  launch_no_heap_here(out.get());  // its module does not use the heap: no heap yet
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&after_plain, &total), cudaSuccess);
  EXPECT_EQ(after_plain, before);
  run_each(1, 1, 16);
  ASSERT_EQ(cudaMemGetInfo(&after_heap, &total), cudaSuccess);
  EXPECT_EQ(before - after_heap, 8388608u);
}

TEST_F(DeviceHeap, TheSizeIsFixedOnceAKernelHasUsedTheHeap) {
  DeviceArray<int> out(1);
  launch_no_heap_here(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{16} << 20), cudaSuccess);
  DeviceArray<unsigned long long> n(1);
  exhaust<<<1, 1>>>(n.get(), 1 << 20);  // allocates the 16 MiB heap, uses it
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(n.read()[0], 15u);
  // The H200 (late.*): cudaErrorInvalidValue, even for the size the heap has; not sticky.
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{32} << 20), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{16} << 20), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  size_t v = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
  EXPECT_EQ(v, size_t{16} << 20);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitStackSize, 2048), cudaSuccess);  // other limits still change
  // A reset gives a fresh context, whose heap may be sized again.
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{32} << 20), cudaSuccess);
}

// --- the PTX path: nvcc's PTX of tests/data/ptx/src/device_heap.cu through the driver API ----

std::string corpus_ptx() {
  std::ifstream f(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/device_heap.ptx");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST_F(DeviceHeap, PtxKernelsMallocFromTheSameHeapAsCxxKernels) {
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the primary context, current
  const std::string text = corpus_ptx();
  CUmodule module = nullptr;
  ASSERT_EQ(cuModuleLoadData(&module, text.c_str()), CUDA_SUCCESS);
  CUfunction each = nullptr, check_free = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&each, module, "heap_each"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&check_free, module, "heap_check_free"), CUDA_SUCCESS);
  DeviceArray<unsigned long long> ptrs(256), res(256);
  unsigned long long* out = ptrs.get();
  unsigned long long bytes = 16;
  void* args[] = {&out, &bytes};
  ASSERT_EQ(cuLaunchKernel(each, 4, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  const std::vector<unsigned long long> p = ptrs.read();
  for (unsigned t = 0; t < 256; ++t) EXPECT_EQ(p[t] - p[0], 80ull * t) << t;
  // A C++ kernel frees what the PTX kernel allocated; the heap is whole again.
  each_check_free<<<4, 64>>>(res.get(), ptrs.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (unsigned long long r : res.read()) EXPECT_EQ(r, 1u);
  const std::vector<unsigned long long> again = run_each(1, 1, 16);
  EXPECT_EQ(again[0], p[0]);
  // The heap has been used: its size is fixed.
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, size_t{32} << 20), cudaErrorInvalidValue);
  EXPECT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::kernels_test
