// malloc.cpp: the public entry points of minicuda::libc (minicuda/libc.h). Each one is thin, like
// glibc's __libc_malloc / __libc_free: trace the call, find the calling process's arena, take the
// arena lock, make one call into the arena (arena.cpp, sysmalloc.cpp), trace the result.
//
// Step into malloc(64) in a debugger and you pass through:
//   malloc -> malloc_locked -> int_malloc -> (bin | carve_from_top | sysmalloc -> kernel::sys_brk)
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "arena.h"
#include "minicuda/syscall.h"
#include "minicuda/libc.h"
#include "minicuda/trace.h"

namespace minicuda::libc {

using namespace detail;
using trace::Layer;

namespace {

// The arena of the calling thread's simulated process. Arenas are kept by pid (pids are never
// reused, so a new process at a recycled Process address still gets a fresh arena); an arena
// outlives its process, which costs a few hundred bytes of host memory per spawned process.
Arena& arena_for_current_process() {
  static std::mutex registry_mutex;
  static std::map<int, std::unique_ptr<Arena>> arenas;  // guarded by registry_mutex
  int pid = kernel::vdso_getpid();
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::unique_ptr<Arena>& slot = arenas[pid];
  if (!slot) slot = std::make_unique<Arena>();
  return *slot;
}

// Pointers print as 0x... and null as NULL, like strace.
std::string ptr_text(const void* p) {
  return p ? fmt::format("{:#x}", addr(p)) : std::string("NULL");
}

// A bad pointer: glibc prints message and aborts; minicuda prints it, notes and counts it.
void report_bad_pointer(Arena& av, const char* message) {
  ++av.bad_frees;
  std::fprintf(stderr, "%s\n", message);
  trace::note(Layer::Libc, "{} (glibc would abort here; minicuda reports and ignores the call)", message);
}

// __libc_malloc without the tcache: the first call allocates the tcache_perthread_struct chunk.
void* malloc_locked(Arena& av, size_t n) {
  if (!av.tcache_allocated) allocate_tcache_struct(av);
  size_t nb;
  if (!checked_request2size(n, &nb)) {
    trace::note(Layer::Libc, "{} B is more than a chunk can hold: ENOMEM", n);
    errno = ENOMEM;
    return nullptr;
  }
  void* mem = int_malloc(av, nb);
  if (mem == nullptr) errno = ENOMEM;
  return mem;
}

// The body of free for a checked, live chunk.
void free_chunk(Arena& av, mchunkptr p) {
  if (!chunk_is_mmapped(p)) {
    int_free(av, p);
    return;
  }
  // Freeing an mmapped chunk tells malloc that blocks of this size come and go: raise the
  // threshold so that the next one is served from the heap without a syscall pair (glibc's
  // dynamic threshold, malloc.c:3356). Never above DEFAULT_MMAP_THRESHOLD_MAX (32 MiB).
  size_t size = chunksize(p);
  if (size > av.mmap_threshold && size <= DEFAULT_MMAP_THRESHOLD_MAX) {
    av.mmap_threshold = size;
    av.trim_threshold = 2 * size;
    trace::note(Layer::Libc, "free mmapped chunk: threshold -> {}, trim -> {}", av.mmap_threshold,
                av.trim_threshold);
  } else {
    trace::note(Layer::Libc, "free mmapped chunk: munmap it");
  }
  munmap_chunk(av, p);
}

}  // namespace

void* malloc(size_t n) {
  trace::Scope scope(Layer::Libc, "malloc({})", n);
  Arena& av = arena_for_current_process();
  void* mem;
  {
    std::lock_guard<std::mutex> lock(av.mutex);
    mem = malloc_locked(av, n);
  }
  scope.result("{}", ptr_text(mem));
  return mem;
}

void free(void* p) {
  trace::Scope scope(Layer::Libc, "free({})", ptr_text(p));
  if (p == nullptr) return;
  Arena& av = arena_for_current_process();
  std::lock_guard<std::mutex> lock(av.mutex);
  if (const char* message = check_chunk(av, p, Caller::Free)) {
    report_bad_pointer(av, message);
    return;
  }
  free_chunk(av, mem2chunk(p));
}

void* calloc(size_t n, size_t size) {
  trace::Scope scope(Layer::Libc, "calloc({}, {})", n, size);
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    trace::note(Layer::Libc, "{} * {} overflows size_t: ENOMEM", n, size);
    errno = ENOMEM;
    scope.result("NULL");
    return nullptr;
  }
  Arena& av = arena_for_current_process();
  void* mem;
  {
    std::lock_guard<std::mutex> lock(av.mutex);
    mem = malloc_locked(av, bytes);
  }
  if (mem != nullptr) {
    // A fresh anonymous mapping is already zero (the kernel zero-fills it), so glibc skips the
    // memset for mmapped chunks. (glibc also skips the part carved from freshly grown top, which
    // brk memory makes zero; minicuda clears every heap chunk, with the same result.)
    if (chunk_is_mmapped(mem2chunk(mem)))
      trace::note(Layer::Libc, "fresh mmap memory is already zero: no memset");
    else
      std::memset(mem, 0, usable_size(mem2chunk(mem)));
  }
  scope.result("{}", ptr_text(mem));
  return mem;
}

void* realloc(void* p, size_t n) {
  trace::Scope scope(Layer::Libc, "realloc({}, {})", ptr_text(p), n);
  Arena& av = arena_for_current_process();
  std::lock_guard<std::mutex> lock(av.mutex);
  void* mem = nullptr;
  if (p == nullptr) {
    trace::note(Layer::Libc, "realloc(NULL, n) is malloc(n)");
    mem = malloc_locked(av, n);
    scope.result("{}", ptr_text(mem));
    return mem;
  }
  const char* message = check_chunk(av, p, n == 0 ? Caller::Free : Caller::Realloc);
  if (message) {
    report_bad_pointer(av, message);
    scope.result("NULL");
    return nullptr;
  }
  mchunkptr oldp = mem2chunk(p);
  if (n == 0) {
    trace::note(Layer::Libc, "realloc(p, 0) frees p and returns NULL");
    free_chunk(av, oldp);
    scope.result("NULL");
    return nullptr;
  }
  size_t nb;
  if (!checked_request2size(n, &nb)) {
    errno = ENOMEM;
    scope.result("NULL");
    return nullptr;
  }
  if (!chunk_is_mmapped(oldp)) {
    mem = int_realloc(av, oldp, nb);
  } else if (chunksize(oldp) - SIZE_SZ >= nb) {
    // Linux glibc would try mremap first; the minicuda kernel has none, so this is glibc's
    // portable path: keep the mapping if it is big enough, else malloc + copy + munmap.
    trace::note(Layer::Libc, "mmapped chunk of {} B is big enough: keep it", chunksize(oldp));
    mem = p;
  } else {
    trace::note(Layer::Libc, "mmapped chunk too small: malloc, copy, munmap");
    mem = malloc_locked(av, n);
    if (mem != nullptr) {
      std::memcpy(mem, p, chunksize(oldp) - CHUNK_HDR_SZ);
      munmap_chunk(av, oldp);
    }
  }
  if (mem == nullptr) errno = ENOMEM;
  scope.result("{}", ptr_text(mem));
  return mem;
}

size_t malloc_usable_size(void* p) {
  if (p == nullptr) return 0;
  Arena& av = arena_for_current_process();
  std::lock_guard<std::mutex> lock(av.mutex);
  if (check_chunk(av, p, Caller::UsableSize) != nullptr) return 0;
  return usable_size(mem2chunk(p));
}

MallocStats malloc_stats() {
  Arena& av = arena_for_current_process();
  std::lock_guard<std::mutex> lock(av.mutex);
  MallocStats stats;
  stats.heap_start = av.sbrk_base;
  stats.heap_bytes = av.system_mem;
  stats.top_size = av.top ? chunksize(av.top) : 0;
  for (mchunkptr f = av.bin.fd; f != &av.bin; f = f->fd) {
    ++stats.free_chunks;
    stats.free_bytes += chunksize(f);
  }
  stats.mmapped_chunks = av.n_mmaps;
  stats.mmapped_bytes = av.mmapped_mem;
  stats.mmap_threshold = av.mmap_threshold;
  stats.trim_threshold = av.trim_threshold;
  stats.in_use_bytes = av.inuse_bytes;
  stats.bad_frees = av.bad_frees;
  return stats;
}

bool malloc_check_heap() {
  Arena& av = arena_for_current_process();
  std::lock_guard<std::mutex> lock(av.mutex);
  return check_heap(av);
}

}  // namespace minicuda::libc
