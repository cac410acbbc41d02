// Recursive device functions, a kernel parameter addressed through a pointer, and a cooperative
// grid's sync (cooperative groups find the grid's workspace through %envreg1/%envreg2).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ __noinline__ unsigned long long factorial(unsigned n) { return n <= 1 ? 1ull : n * factorial(n - 1); }

// Two recursive calls: the first one's result must outlive the second.
__device__ __noinline__ int fibonacci(int n) { return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }

// out[t] = factorial(t % 21) and fibonacci(t % 20).
extern "C" __global__ void recursion(unsigned long long* fact, int* fib) {
  const unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  fact[t] = factorial(t % 21);
  fib[t] = fibonacci(static_cast<int>(t % 20));
}

// descend(limit) = limit; descend(d) = 3 * descend(d + 1) + d (wrapping), after limit - d calls.
__device__ __noinline__ unsigned descend(unsigned depth, unsigned limit) {
  if (depth >= limit) return depth;
  const unsigned r = descend(depth + 1, limit);
  return r * 3 + depth;
}

// out[t] = descend(0, limit).
extern "C" __global__ void deep(unsigned* out, unsigned limit) { out[threadIdx.x] = descend(0, limit); }

struct Table {
  int values[40];
};

// A struct parameter read at run-time-chosen offsets: nvcc addresses it through its address.
extern "C" __global__ void param_table(Table table, int* out) {
  int sum = 0;
  for (int i = 0; i <= static_cast<int>(threadIdx.x % 40); ++i) sum += table.values[i];
  out[threadIdx.x] = sum;
}

// Each block adds its index to a counter, the grid syncs, and every thread reads the total.
extern "C" __global__ void grid_sum(int* counter, int* out) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(counter, static_cast<int>(blockIdx.x) + 1);
  grid.sync();
  out[grid.thread_rank()] = atomicAdd(counter, 0);
  grid.sync();
  if (grid.thread_rank() == 0) atomicAdd(counter, 1000);
}
