// Kernels that use the device heap (malloc/free, new/delete), for tests/device_sim/test_device_heap.cpp
// and tests/kernels/test_device_heap.cu (the PTX path). nvcc -ptx -arch=sm_90 -lineinfo.
#include <cstdint>

// Each thread mallocs `bytes`, writes its index into the block and records the pointer
// (NULL when the heap is full).
extern "C" __global__ void heap_each(unsigned long long* out, unsigned long long bytes) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = static_cast<unsigned*>(malloc(bytes));
  if (p != nullptr) *p = t;
  out[t] = reinterpret_cast<unsigned long long>(p);
}

// Each thread checks the index heap_each wrote in its block (1: good, 2: it had none) and frees it.
extern "C" __global__ void heap_check_free(unsigned long long* out, const unsigned long long* ptrs) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = reinterpret_cast<unsigned*>(ptrs[t]);
  out[t] = p != nullptr ? (*p == t ? 1 : 0) : 2;
  free(p);
}

// One thread mallocs `chunk` bytes until NULL (at most 512 times), records the count and the
// first and last pointers, then frees them all.
extern "C" __global__ void heap_exhaust(unsigned long long* out, unsigned long long chunk) {
  void* ptrs[512];
  int n = 0;
  while (n < 512) {
    void* p = malloc(chunk);
    if (p == nullptr) break;
    ptrs[n++] = p;
  }
  out[0] = n;
  out[1] = n > 0 ? reinterpret_cast<unsigned long long>(ptrs[0]) : 0;
  out[2] = n > 0 ? reinterpret_cast<unsigned long long>(ptrs[n - 1]) : 0;
  for (int i = 0; i < n; ++i) free(ptrs[i]);
}

// free of whatever pointer it is given (NULL, a heap block, something else).
extern "C" __global__ void heap_free_ptr(unsigned long long p) { free(reinterpret_cast<void*>(p)); }

struct Counter {
  int value;
  __device__ Counter() : value(7) {}
  __device__ ~Counter() { value = -1; }
};

// new and delete: a Counter and an array of ints; records the pointers and the constructed value.
extern "C" __global__ void heap_new_delete(unsigned long long* out) {
  Counter* c = new Counter;
  int* a = new int[4];
  out[0] = reinterpret_cast<unsigned long long>(c);
  out[1] = reinterpret_cast<unsigned long long>(a);
  out[2] = c != nullptr ? c->value : 0;
  delete c;
  delete[] a;
}
