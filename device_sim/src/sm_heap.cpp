// sm_heap: device-side malloc and free as C++ kernel code calls them (isa::heap_malloc and
// heap_free, which cu2cxx's rewrite of device code reaches through cuda_device_runtime_api.h's
// ::minicuda::devrt::malloc, free, cudaMalloc and cudaFree). Each reaches the heap of the grid
// running on the calling host thread (GridLaunch::heap) through the allocator of device_heap.h,
// after the grid's heap turn.
#include <atomic>
#include <cstdio>

#include "device_heap.h"
#include "sm_block.h"
#include "sm_signals.h"

namespace minicuda::gpu {

using namespace sm;

namespace {

// The running grid, once every lower block of it has finished (device_heap.h, HeapTurn).
const GridLaunch* launch_in_turn(const char* what) {
  BlockRun* b = current_block(what);
  if (b == nullptr) return nullptr;
  const GridLaunch& launch = b->launch();
  if (launch.heap == nullptr) {  // the kernel's module was not registered as one that uses the heap
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      std::fprintf(stderr,
                   "minicuda: kernel %s called %s, but its launch has no device heap: its module was not "
                   "registered as one whose device code uses malloc/free (docs/device-heap.md); %s returns NULL\n",
                   launch.kernel_name, what, what);
    return nullptr;
  }
  if (launch.heap_turn != nullptr) {
    const uint3 idx = sm_block_idx;
    launch.heap_turn->wait(idx.x + uint64_t{launch.grid.x} * (idx.y + uint64_t{launch.grid.y} * idx.z));
  }
  return &launch;
}

}  // namespace

namespace isa {

void* heap_malloc(size_t bytes) {
  SmCode unchecked;  // the allocator's own code runs without the alignment check
  const GridLaunch* launch = launch_in_turn("malloc");
  return launch != nullptr ? gpu::heap_malloc(launch->heap, bytes) : nullptr;
}

void heap_free(void* p) {
  SmCode unchecked;
  if (p == nullptr) return;
  const GridLaunch* launch = launch_in_turn("free");
  if (launch == nullptr) return;
  KernelError e;
  if (!heap_free_error(gpu::heap_free(launch->heap, p), p, &e.kind, &e.message)) return;
  e.address = reinterpret_cast<uint64_t>(p);
  raise_kernel_error(std::move(e));
}

}  // namespace isa
}  // namespace minicuda::gpu
