// minicuda/isa.h: the "instructions" the simulated SM provides to kernel code (defined in
// device_sim/src/sm_isa.cpp): barriers, warp shuffles and votes, trap, dynamic shared memory,
// printf, the clock. The CUDA intrinsics (device_functions.h, sm_*_intrinsics.h) are thin inline
// functions over them; each is only valid inside a kernel. Part of the kernel language
// (minicuda::device_code).
#pragma once

#include <cstddef>
#include <cstdint>

namespace minicuda::gpu {


namespace isa {
void syncthreads();
int syncthreads_reduce(int op, int predicate);  // op: 0 count, 1 and, 2 or
void syncwarp(unsigned mask);
// mode: 0 idx, 1 up, 2 down, 3 xor
uint64_t shuffle(unsigned mask, uint64_t value, int mode, int lane_or_delta, int width);
unsigned ballot(unsigned mask, int predicate);
// mode: 0 ballot, 1 any, 2 all. Any non-zero predicate is true.
unsigned vote(unsigned mask, int predicate, int mode);
// The lanes of mask whose value equals the caller's (__match_any_sync); with all_pred: the mask
// if every lane's value is equal (*all_pred = 1), else 0 (*all_pred = 0) (__match_all_sync).
unsigned match(unsigned mask, uint64_t value, int* all_pred);
// op: 0 add, 1 min, 2 max (unsigned), 3 min, 4 max (signed), 5 and, 6 or, 7 xor.
unsigned reduce(unsigned mask, unsigned value, int op);
// A warp-collective computation (nvcuda::wmma's mma_sync): each lane passes `mine`; when every
// live lane of the warp has called, `complete(lanes, took_part)` runs once, before any of them
// returns, with lanes[l] the `mine` of each lane l in took_part. Returns took_part. `op` names
// the caller.
using WarpComputation = void (*)(const uint64_t lanes[32], unsigned took_part);
unsigned warp_compute(const char* op, const void* mine, WarpComputation complete);
// Stops the kernel as a misaligned access to `address` does (cudaErrorMisalignedAddress, 716).
[[noreturn]] void misaligned_access(const void* address, const char* op);
// Stops the kernel for a misuse the GPU leaves undefined (a barrier arrival beyond its expected
// count, a pipeline used out of order): a kernel error with `message` (cudaErrorLaunchFailure, 719).
[[noreturn]] void misuse(const char* message);
// A wait on shared state that another thread of the block will change (cuda::barrier,
// cuda::pipeline): `while (!condition) spin_wait(op); spin_done();`. spin_wait lets the block's
// other threads run; when the wait can never end (no other thread can run, or all that can are
// spinning too without progress) the kernel stops with an error naming `op`
// (cudaErrorLaunchFailure, 719) where a GPU would hang. spin_done: the condition is met.
void spin_wait(const char* op);
void spin_done();
// The lanes of the caller's warp that reach this call site together (site: any value naming it).
unsigned activemask(uint64_t site);
// grid_group: is the running grid a cooperative launch? grid_sync: a barrier over every thread of
// the grid (a kernel error when the launch is not cooperative).
bool grid_is_cooperative();
void grid_sync();
// Thread block clusters (compute capability 9.0): the running block's cluster (a launch without
// one: a cluster of one block, not explicit), the cluster barrier's arrive and wait
// (barrier.cluster), and distributed shared memory: the address of the same byte as p in the
// shared memory of the cluster's block `rank`, and the rank of the block whose shared memory
// holds p (the cluster's size when none does). Misuse (a rank outside the cluster, an address
// that is not shared memory) stops the kernel with an error.
struct ClusterInfo {
  unsigned dim[3];       // blocks per cluster (%cluster_nctaid)
  unsigned index[3];     // the cluster's index in the grid (%clusterid)
  unsigned relative[3];  // the block's index in its cluster (%cluster_ctaid)
  unsigned grid[3];      // the grid's size in clusters (%nclusterid)
  unsigned rank, size;   // %cluster_ctarank, %cluster_nctarank
  bool is_explicit;      // %is_explicit_cluster: the launch named a cluster shape
};
ClusterInfo cluster_info();
void cluster_arrive();
void cluster_wait();
void* cluster_map_shared(const void* p, unsigned rank);
unsigned cluster_shared_rank(const void* p);
[[noreturn]] void trap();
// The block's dynamic shared memory (extern __shared__).
unsigned char* dynamic_shared();
int printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Device-side malloc and free on the context's device heap (cudaLimitMallocHeapSize,
// docs/device-heap.md): malloc returns a 16-byte-aligned block, or NULL when the heap has no
// free block large enough (or bytes is 0); free(NULL) does nothing; a pointer that is no block
// in use is ignored. Only valid inside a kernel (outside one, malloc returns NULL).
void* heap_malloc(size_t bytes);
void heap_free(void* p);
// Is the calling host thread running kernel code? (The runtime refuses host API calls from it.)
bool in_kernel_code();
// The SM's cycle counter (clock64): the host's monotonic clock at the device's clock rate
// (1.98 GHz on the H200), so a kernel that spins for N cycles waits about as long as on the GPU.
// Like the real counter it tells elapsed time on one SM, not the simulated timeline.
long long clock64();
}  // namespace isa

}  // namespace minicuda::gpu

namespace minicuda {

// `extern __shared__ T name[];` becomes `DynamicShared<T> name;` (cu2cxx): an array view of the
// running block's dynamic shared memory.
template <class T>
struct DynamicShared {
  T* get() const { return reinterpret_cast<T*>(gpu::isa::dynamic_shared()); }
  operator T*() const { return get(); }
  T& operator[](size_t i) const { return get()[i]; }
};
// The block's dynamic shared memory as a T*, for kernels written in plain .cpp files.
template <class T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(gpu::isa::dynamic_shared());
}

}  // namespace minicuda
