// arena.h (private to runtime/libc): the state of one malloc arena and the internal functions
// that work on it. minicuda models glibc's *main arena* only: the one whose heap is grown with
// brk. There is one arena per simulated process (malloc.cpp keeps them by pid), and all threads
// of a process share it under its mutex, the "arena lock".
//
// Where real glibc differs, and why the system calls stay the same:
//   - tcache (per-thread, 7 chunks per size up to 1032 B) and fastbins (LIFO lists of chunks up
//     to 128 B whose neighbours are not merged) sit in front of the bins in glibc. They only
//     change *which* free chunk a malloc reuses and delay coalescing; they never call the kernel.
//     minicuda has neither, but it still allocates the tcache_perthread_struct chunk on the first
//     malloc (sysmalloc.cpp) so that heap addresses and brk sizes match glibc.
//   - glibc sorts free chunks into an unsorted bin, 62 exact-size small bins and 63 size-ranged
//     large bins. minicuda keeps one bin: a doubly linked list (through fd/bk inside the free
//     chunks, as in glibc) searched best-fit. Same chunks, same splitting, slower search.
//   - Other threads in glibc get their own arenas (mmapped 64 MiB heaps). minicuda gives every
//     thread the main arena, so only brk, mmap and munmap ever appear in the trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_set>

#include "chunk.h"

namespace minicuda::libc::detail {

struct Arena {
  Arena() { bin.fd = bin.bk = &bin; }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  std::mutex mutex;  // the arena lock (glibc: main_arena.mutex)

  // --- glibc's struct malloc_state (main_arena); guarded by mutex ---
  // The top chunk: the free space at the end of the heap, ending at the break. Null until the
  // first brk (glibc points it at a fake zero-sized "initial_top").
  mchunkptr top = nullptr;
  // The bin: sentinel head of a circular list of free chunks. It lives in host memory (like
  // glibc's bins[] inside main_arena, which is in libc's .data, not in the heap).
  malloc_chunk bin{};
  size_t system_mem = 0;  // bytes obtained from brk

  // --- glibc's struct malloc_par (mp_); guarded by mutex (glibc: one mp_ per process) ---
  size_t top_pad = DEFAULT_TOP_PAD;
  size_t mmap_threshold = DEFAULT_MMAP_THRESHOLD;
  size_t trim_threshold = DEFAULT_TRIM_THRESHOLD;
  size_t n_mmaps = 0;
  size_t n_mmaps_max = DEFAULT_MMAP_MAX;
  size_t mmapped_mem = 0;
  uintptr_t sbrk_base = 0;  // the break before the first heap growth (start of the heap)

  // glibc's __curbrk: sbrk's cached program break. 0 until the first brk(NULL).
  uintptr_t curbrk = 0;
  // Has the first malloc allocated the tcache_perthread_struct chunk?
  bool tcache_allocated = false;

  // --- minicuda bookkeeping, not in glibc; guarded by mutex ---
  // glibc trusts the header in front of a pointer and aborts when its checks fail. minicuda must
  // report a bad free and carry on, so it also remembers which chunks it handed out: a pointer
  // that passes glibc's header checks but is not one of these (say, a pointer into the middle of
  // a block whose data looks like a header) is still rejected.
  std::unordered_set<uintptr_t> inuse_chunks;  // in-use heap chunks, by chunk address
  std::map<uintptr_t, size_t> mmapped_chunks;  // mmapped chunk address -> mapping length
  size_t inuse_bytes = 0;                      // sum of chunk sizes of both sets
  size_t bad_frees = 0;                        // bad free / realloc pointers reported
};

// --- arena.cpp: bins, top, free, realloc (arena.mutex held for all of these) ---

// _int_malloc: a chunk of nb bytes (a request2size value) from the bin (best fit), else from the
// top, else from sysmalloc. Returns the user pointer, or null when the kernel refuses memory.
void* int_malloc(Arena& av, size_t nb);
// _int_free: frees the in-use heap chunk p (already checked by check_chunk): merges it with a
// free neighbour on each side or with the top, and trims the heap when the top grows too big.
void int_free(Arena& av, mchunkptr p);
// _int_realloc: resizes the in-use heap chunk oldp to nb bytes, in place when the chunk, its free
// successor or the top allow, else by malloc + copy + free. Returns the new user pointer or null
// (oldp untouched then).
void* int_realloc(Arena& av, mchunkptr oldp, size_t nb);

// Which entry point checks a pointer; selects glibc's message text.
enum class Caller { Free, Realloc, UsableSize };
// Checks that mem is the user pointer of a live chunk of this arena, reading only memory the
// arena owns. Returns null when it is, else the message glibc prints for this kind of bad pointer.
const char* check_chunk(const Arena& av, void* mem, Caller caller);
// Walks the heap and the bin and checks every boundary tag (glibc's do_check_malloc_state).
bool check_heap(const Arena& av);

// The free list and in-use bookkeeping.
void bin_insert(Arena& av, mchunkptr p);
void unlink_chunk(mchunkptr p);
void track_alloc(Arena& av, mchunkptr p);
void track_free(Arena& av, mchunkptr p);
// Splits nb bytes off the front of the top chunk (which must have nb + MINSIZE). Returns mem.
void* carve_from_top(Arena& av, size_t nb);

// --- sysmalloc.cpp: the paths that call the kernel ---

// sysmalloc: called when neither bin nor top can serve nb. Maps the chunk with mmap when nb >=
// mmap_threshold, else grows the heap with brk and carves from the new top. Null if refused.
void* sysmalloc(Arena& av, size_t nb);
// systrim: gives the top's free pages above top_pad back to the kernel with a lower brk.
void systrim(Arena& av);
// munmap_chunk: unmaps an mmapped chunk (checked by check_chunk).
void munmap_chunk(Arena& av, mchunkptr p);
// The first malloc's allocation of glibc's tcache_perthread_struct (see sysmalloc.cpp).
void allocate_tcache_struct(Arena& av);

}  // namespace minicuda::libc::detail
