// malloc_vs_cudamalloc: the two allocators side by side. Both get memory from the kernel in big
// pieces and hand out small pieces with no system call at all:
//   malloc(64)      -> libc: carve a chunk from the heap     -> brk / mmap   -> kernel mm
//   cudaMalloc(64)  -> libcudart -> libcuda: carve 512 B slots from a 2 MiB pool chunk
//                                -> ioctl(NV_ESC_RM_ALLOC) -> nvidia.ko -> GPU page table
// Run it twice:
//   build/bin/malloc_vs_cudamalloc                       what each step changed, measured here
//   MINICUDA_TRACE=1 build/bin/malloc_vs_cudamalloc      the same, with every layer's calls
// In the trace (stderr, after each "==== step N" banner) look for:
//   step 1  malloc: brk(NULL), then brk(+132 KiB).  cudaMalloc: lazy init (cuInit opens
//           /dev/nvidiactl and builds the RM object tree; cuDevicePrimaryCtxRetain opens
//           /dev/nvidia-uvm and makes the GPU VA space), then cuMemAlloc_v2 grows the pool by one
//           2 MiB chunk: NV_ESC_RM_ALLOC of NV01_MEMORY_LOCAL_USER + UVM_MAP_EXTERNAL_ALLOCATION.
//   step 2  nothing under either call: no brk, no ioctl.
//   step 3  malloc(200000): its own mmap.  cudaMalloc(4 MiB): its own 2 MiB-aligned chunk.
//   step 4  free: munmap; cudaFree: UVM_FREE + NV_ESC_RM_FREE once a chunk holds nothing.
//   step 5  cudaHostAlloc: NV_ESC_RM_ALLOC_MEMORY of class 0x71 on /dev/nvidia0 pins the pages.
// Each step ends with cudaMemGetInfo, the program's own measurement (one RM control call).
#include <cuda_runtime.h>
#include <minicuda/libc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace libc = minicuda::libc;

namespace {

constexpr size_t kKiB = 1024, kMiB = 1024 * 1024;

// Stops the program with the error's name if a CUDA call failed.
void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
  std::exit(EXIT_FAILURE);
}

// Checks one thing this program claims; a surprise is reported and fails the run at the end.
bool all_as_expected = true;
void expect(bool ok, const char* claim) {
  if (ok) return;
  std::printf("  UNEXPECTED: %s does not hold\n", claim);
  all_as_expected = false;
}

// minicuda::libc::malloc, stopping the program if it returns NULL.
char* heap_alloc(size_t n) {
  void* p = libc::malloc(n);
  if (p != nullptr) return static_cast<char*>(p);
  std::fprintf(stderr, "malloc(%zu) returned NULL\n", n);
  std::exit(EXIT_FAILURE);
}

// The step title goes to stdout; with tracing on it also goes to stderr as a banner, so the
// trace lines that follow it belong to this step.
void step(int n, const char* title) {
  std::printf("\n[step %d] %s\n", n, title);
  const char* trace = std::getenv("MINICUDA_TRACE");
  const char* file = std::getenv("MINICUDA_TRACE_FILE");
  bool tracing = trace != nullptr && *trace != '\0' && std::strcmp(trace, "0") != 0 && std::strcmp(trace, "off") != 0;
  if (tracing && (file == nullptr || *file == '\0')) {
    std::fflush(stdout);
    std::fprintf(stderr, "\n==================== step %d: %s ====================\n", n, title);
    std::fflush(stderr);
  }
}

// What we measure after each step: the libc heap and the device's free memory.
struct Snapshot {
  libc::MallocStats heap;
  size_t device_free = 0, device_total = 0;  // 0: not measured (no CUDA call made yet)
};

// cudaMemGetInfo needs a context: measure(false) before the first cudaMalloc leaves lazy init to it.
Snapshot measure(bool with_device = true) {
  Snapshot s;
  s.heap = libc::malloc_stats();
  if (with_device) check(cudaMemGetInfo(&s.device_free, &s.device_total), "cudaMemGetInfo");
  return s;
}

// Prints how the heap break, the mmapped blocks and the device's free memory moved.
void show_change(const Snapshot& before, const Snapshot& after) {
  long long brk_delta = (long long)after.heap.heap_bytes - (long long)before.heap.heap_bytes;
  long long gpu_delta = (long long)after.device_free - (long long)before.device_free;
  std::printf("  libc : break %#llx (%+lld KiB), %zu mmapped block(s), mmap threshold %zu KiB\n",
              (unsigned long long)(after.heap.heap_start + after.heap.heap_bytes), brk_delta / (long long)kKiB,
              after.heap.mmapped_chunks, after.heap.mmap_threshold / kKiB);
  if (before.device_total != 0) {
    std::printf("  GPU  : cudaMemGetInfo free %zu MiB (%+lld KiB)\n", after.device_free / kMiB, gpu_delta / 1024);
  } else {  // the first measurement: show what is in use (the driver keeps a little VRAM too)
    std::printf("  GPU  : cudaMemGetInfo free %zu of %zu MiB (in use: %zu KiB)\n", after.device_free / kMiB,
                after.device_total / kMiB, (after.device_total - after.device_free) / kKiB);
  }
}

const char* type_name(cudaMemoryType type) {
  if (type == cudaMemoryTypeHost) return "cudaMemoryTypeHost (pinned host memory)";
  return type == cudaMemoryTypeUnregistered ? "cudaMemoryTypeUnregistered (CUDA does not know it)" : "other";
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep stdout in order with the trace on stderr
  std::printf("malloc vs cudaMalloc: two allocators, each carving small blocks out of big pieces\n"
              "heap and mmap pointers live in the simulated process (0x59...), device pointers in\n"
              "the GPU's unified virtual address window (0x58...). Deltas are measured by this program.\n");
  Snapshot s0 = measure(false);  // no CUDA call before step 1: its cudaMalloc does the lazy init
  std::printf("\n[start] no heap yet (%zu bytes from brk), no CUDA call made yet\n", s0.heap.heap_bytes);

  step(1, "first small allocation: malloc(64) vs cudaMalloc(&d, 64)");
  char* h1 = heap_alloc(64);
  int* d1 = nullptr;
  check(cudaMalloc(&d1, 64), "cudaMalloc(64)");
  Snapshot s1 = measure();
  std::printf("  malloc(64)       = %p  the heap was empty: brk grew it by 132 KiB (128 KiB top pad)\n", (void*)h1);
  std::printf("  cudaMalloc(64)   = %p  the pool was empty: RM_ALLOC of one 2 MiB VRAM chunk,\n"
              "                                     mapped into the GPU page table by nvidia-uvm\n", (void*)d1);
  show_change(s0, s1);
  expect(s1.heap.heap_bytes - s0.heap.heap_bytes == 132 * kKiB, "brk grew the heap by 132 KiB");

  step(2, "second small allocation: no system call on either side");
  char* h2 = heap_alloc(64);
  int* d2 = nullptr;
  check(cudaMalloc(&d2, 64), "cudaMalloc(64)");
  Snapshot s2 = measure();
  std::printf("  malloc(64)       = %p  %td bytes after the first: a 64 B block is an 80 B chunk\n",
              (void*)h2, h2 - h1);
  std::printf("  cudaMalloc(64)   = %p  %td bytes after the first: one 512 B slot of the chunk\n",
              (void*)d2, (char*)d2 - (char*)d1);
  show_change(s1, s2);
  expect(s2.heap.heap_bytes == s1.heap.heap_bytes && s2.device_free == s1.device_free, "nothing grew");
  expect((char*)d2 - (char*)d1 == 512, "the second cudaMalloc(64) is the next 512 B slot");

  d2[0] = 42;  // no cudaMemcpy yet in minicuda: the host may touch device memory directly (UVA)
  std::printf("  device pointers are ordinary addresses here: stored 42 through d2, read back %d\n", d2[0]);

  step(3, "big allocations: malloc(200000) vs cudaMalloc(&d, 4 MiB)");
  char* big = heap_alloc(200000);
  char* dbig = nullptr;
  check(cudaMalloc(&dbig, 4 * kMiB), "cudaMalloc(4 MiB)");
  Snapshot s3 = measure();
  std::printf("  malloc(200000)   = %p  >= 128 KiB threshold: its own mmap, not from the heap\n", (void*)big);
  std::printf("  cudaMalloc(4MiB) = %p  > 1 MiB: its own chunk, 2 MiB aligned (addr %% 2 MiB = %llu)\n",
              (void*)dbig, (unsigned long long)((uintptr_t)dbig % (2 * kMiB)));
  show_change(s2, s3);
  expect(s3.heap.mmapped_chunks == 1 && s3.heap.heap_bytes == s2.heap.heap_bytes, "malloc(200000) was mmapped");
  expect((uintptr_t)dbig % (2 * kMiB) == 0 && s2.device_free - s3.device_free == 4 * kMiB, "a 4 MiB chunk");
  std::memset(dbig, 0xab, 4 * kMiB);  // every page of the 4 MiB is really mapped
  std::printf("  memset all 4 MiB through the device pointer: last byte %#x\n", (unsigned char)dbig[4 * kMiB - 1]);

  step(4, "frees: free() vs cudaFree()");
  libc::free(big);
  check(cudaFree(dbig), "cudaFree(4 MiB)");
  Snapshot s4a = measure();
  std::printf("  free(big)        munmap; the threshold rises to the freed size (next time: heap)\n"
              "  cudaFree(dbig)   its chunk held nothing else: it goes back to the kernel\n");
  show_change(s3, s4a);
  expect(s4a.heap.mmapped_chunks == 0 && s4a.heap.mmap_threshold > s3.heap.mmap_threshold, "threshold rose");
  expect(s4a.device_free - s3.device_free == 4 * kMiB, "the 4 MiB chunk came back");
  libc::free(h1);
  libc::free(h2);
  check(cudaFree(d1), "cudaFree(d1)");
  check(cudaFree(d2), "cudaFree(d2)");
  Snapshot s4b = measure();
  std::printf("  free(h1), free(h2)          back into the heap: the free space at its end (%zu KiB)\n"
              "                              is below the trim threshold (%zu KiB): no brk, the break stays\n",
              s4b.heap.top_size / kKiB, s4b.heap.trim_threshold / kKiB);
  std::printf("  cudaFree(d1), cudaFree(d2)  the 2 MiB chunk is empty now: returned to the kernel\n");
  show_change(s4a, s4b);
  expect(s4b.device_free - s4a.device_free == 2 * kMiB, "the 2 MiB chunk came back");

  step(5, "pinned host memory: cudaHostAlloc(&h, 1 MiB)");
  char* pinned = nullptr;
  check(cudaHostAlloc(&pinned, 1 * kMiB, cudaHostAllocDefault), "cudaHostAlloc");
  Snapshot s5 = measure();
  std::printf("  cudaHostAlloc    = %p  host pages, pinned with NV_ESC_RM_ALLOC_MEMORY (class 0x71)\n"
              "                                     so the copy engine can reach them; no VRAM is used\n", (void*)pinned);
  show_change(s4b, s5);
  expect(s5.device_free == s4b.device_free, "pinned memory uses no VRAM");
  std::printf("  wrote and read back: \"%s\"\n", std::strcpy(pinned, "hello from pinned memory"));

  cudaPointerAttributes attr{};
  check(cudaPointerGetAttributes(&attr, pinned), "cudaPointerGetAttributes(pinned)");
  std::printf("  cudaPointerGetAttributes(pinned) : %s\n", type_name(attr.type));
  expect(attr.type == cudaMemoryTypeHost, "the pinned buffer is cudaMemoryTypeHost");
  char* pageable = heap_alloc(64);
  check(cudaPointerGetAttributes(&attr, pageable), "cudaPointerGetAttributes(pageable)");
  std::printf("  cudaPointerGetAttributes(malloc) : %s\n", type_name(attr.type));
  expect(attr.type == cudaMemoryTypeUnregistered, "malloc memory is unknown to CUDA");
  libc::free(pageable);
  check(cudaFreeHost(pinned), "cudaFreeHost");

  std::printf(all_as_expected ? "\nPASS: both allocators behaved as described (MINICUDA_TRACE=1 shows every layer)\n"
                              : "\nFAIL: see the UNEXPECTED lines above\n");
  return all_as_expected ? EXIT_SUCCESS : EXIT_FAILURE;
}
