// probe_va_layout.cu: which device virtual addresses around the first allocations of a fresh
// context can a kernel read without a fault? Run once per probe address (a fault ends the
// context): probe_va_layout SIZE_MIB OFFSET_BYTES, where OFFSET is relative to the start of the
// first allocation (negative: before it). Also prints the allocations' addresses as offsets from
// the first one and cuMemGetAddressRange of the probed address.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void read_one(const int* p, int* out) { *out = *p; }

int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: %s SIZE_MIB OFFSET\n", argv[0]); return 2; }
  const size_t size = std::strtoull(argv[1], nullptr, 0) << 20;
  const long long offset = std::strtoll(argv[2], nullptr, 0);
  char* first = nullptr;
  char* second = nullptr;
  int* out = nullptr;
  cudaMalloc(&first, size);
  cudaMalloc(&second, size * 4);
  cudaMalloc(&out, sizeof(int));
  const char* target = first + offset;
  CUdeviceptr base = 0;
  size_t range = 0;
  CUresult r = cuMemGetAddressRange(&base, &range, (CUdeviceptr)target);
  std::printf("first_mod_2M=%llu first_mod_4G=0x%llx second-first=%lld out-first=%lld range(%lld)=%d",
              (unsigned long long)((unsigned long long)first % (2ull << 20)),
              (unsigned long long)((unsigned long long)first % (4ull << 30)),
              (long long)(second - first), (long long)((char*)out - first), offset, (int)r);
  if (r == CUDA_SUCCESS) std::printf(" base-first=%lld size=%zu", (long long)((char*)base - first), range);
  read_one<<<1, 1>>>((const int*)target, out);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf(" read=%d %s\n", (int)e, cudaGetErrorName(e));
  return 0;
}
