// A small CUDA file for the translator's end-to-end tests (tests/tools/CMakeLists.txt): the
// command-line test translates it and checks the output; test_cu2cxx_generated compiles the
// translation against a stub runtime (stub/cuda_runtime.h), runs it, and checks what ran, what
// was registered, and that __LINE__ still counts lines of this file.
#include "sample_helpers.cuh"  // found next to this file: the .cu's directory is searched first

namespace sample {
__global__ void fill(int* out, int value) { out[threadIdx.x] = twice(value); }

namespace {
__global__ void __launch_bounds__(64) with_shared(int* out) {
  extern __shared__ __align__(16) int scratch[];  // in a body: a pointer, so casts work
  scratch[0] = 7;
  unsigned char* bytes = reinterpret_cast<unsigned char*>(scratch);
  out[0] = ((int*)bytes)[0];
}
}  // namespace

extern __shared__ float file_scope_shared[];  // at namespace scope: a DynamicShared view
__global__ void through_file_scope(float* out) {
  file_scope_shared[1] = 2.5f;
  float* p = file_scope_shared;
  out[0] = p[1];
}
}  // namespace sample

template <typename T, int N>
__global__ void scale(T* p) { p[0] *= N; }

__global__ void overloaded(int* p) { p[0] = 1; }
__global__ void overloaded(float* p) { p[0] = 1.0f; }

__global__ void is_null(const int* p, int* out) { out[0] = p == nullptr ? 1 : 2; }

static __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Launches every kernel once (the stub runs one thread). Not rewritten: k<<<1, 1>>>(x);
void run_sample(int* ints, float* floats, int n) {
  const char* text = "k<<<1, 1>>>()";
  (void)text;
  sample::fill<<<1, 1>>>(ints, 5);
  ::sample::with_shared
      <<<dim3(1), dim3(1, 1),
         4 * sizeof(int), nullptr>>>
      (ints + 1);
  scale<int, 3><<<1, 1>>>(ints + 2);
  vector_add<<<(n + 255) / 256, 256>>>(floats, floats, floats + 1, 1);
  sample::through_file_scope<<<1, 1, 2 * sizeof(float)>>>(floats + 2);
  is_null<<<1, 1>>>(0, ints + 3);  // a literal 0 converts to the kernel's pointer parameter
}

// cmake/MinicudaCuda.cmake compiles the translation with MINICUDA_CU_SOURCE defined.
bool compiled_as_cu_source() {
#ifdef MINICUDA_CU_SOURCE
  return true;
#else
  return false;
#endif
}

int line_marker() { return __LINE__; }  // LINE_MARKER: the test finds this line in the .cu
