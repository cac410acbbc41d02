// minicuda::libc: the simulated C library's memory allocator, the one public header of
// runtime/libc/. It sits beside the CUDA runtime so students can compare two allocators that
// both sub-allocate from big pieces they get from the kernel:
//   malloc  -> brk / mmap   (this library)          cudaMalloc -> ioctl (runtime/, driver/)
//
// It is a model of glibc's malloc (ptmalloc2, main arena) living in the simulated process's
// memory: real boundary-tag chunks (x/2gx ptr-16 in gdb shows prev_size and size), a top chunk,
// coalescing, the mmap threshold that rises when big blocks are freed, and heap trimming. Fed
// the program of shared/reference/host/host_malloc.c it makes the same system calls, with the
// same sizes, as glibc 2.36 does under strace.
//
// Every process has its own arena (its pid picks it); all threads of a process share it under one
// lock. Each call is a trace scope on trace::Layer::Libc; the brk/mmap/munmap calls
// it makes appear nested inside it on trace::Layer::Kernel.
//
// Bad pointers: where glibc prints a message and aborts the program ("free(): invalid pointer"),
// minicuda prints the same message to stderr, adds a trace note, counts it in
// MallocStats::bad_frees and returns without touching the heap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minicuda::libc {

// malloc(n): a pointer to at least n bytes, 16-byte aligned, not initialised; malloc(0) returns a
// unique minimum-sized block (24 usable bytes). Requests whose chunk size (n + 8 rounded up to
// 16, at least 32) is >= the mmap threshold get their own mapping; others come from the heap,
// which grows with brk. Returns NULL with errno = ENOMEM when n is too large or the kernel
// refuses memory.
void* malloc(size_t n);

// free(p): releases a block from malloc, calloc or realloc. free(NULL) does nothing. An mmapped
// block is unmapped at once (and may raise the mmap threshold, see MallocStats); a heap block
// merges with free neighbours, and a large free may shrink the heap with brk. A pointer that is
// not a live block (misaligned, not from this heap, interior, already freed) is reported with
// glibc's message and otherwise ignored.
void free(void* p);

// calloc(n, size): like malloc(n * size) with the block zeroed. Returns NULL with errno = ENOMEM
// when n * size overflows size_t or the memory is not available.
void* calloc(size_t n, size_t size);

// realloc(p, n): resizes a block, keeping the first min(old usable size, n) bytes.
// realloc(NULL, n) is malloc(n); realloc(p, 0) frees p and returns NULL. The block stays in place
// when it can shrink or grow into a free neighbour or the top, else it moves (malloc, copy,
// free). Returns NULL and leaves p untouched when memory is not available (errno = ENOMEM) or
// when p is not a live block (reported like a bad free, "realloc(): invalid pointer").
void* realloc(void* p, size_t n);

// malloc_usable_size(p): the bytes the block really holds (chunk size - 8 for heap blocks,
// chunk size - 16 for mmapped ones), >= the size requested. 0 for NULL or a pointer that is not
// a live block.
size_t malloc_usable_size(void* p);

// A snapshot of the calling process's arena.
struct MallocStats {
  uintptr_t heap_start = 0;      // the program break before the first heap growth (0: no heap yet)
  size_t heap_bytes = 0;         // bytes obtained with brk: the break is heap_start + heap_bytes
  size_t top_size = 0;           // size of the top chunk (free space at the end of the heap)
  size_t free_chunks = 0;        // free chunks in the bin (not counting the top)
  size_t free_bytes = 0;         // their total size
  size_t mmapped_chunks = 0;     // live blocks that have their own mapping
  size_t mmapped_bytes = 0;      // their total mapping length
  size_t mmap_threshold = 0;     // chunk size from which malloc uses mmap (128 KiB, dynamic)
  size_t trim_threshold = 0;     // top size from which free shrinks the heap (128 KiB, dynamic)
  size_t in_use_bytes = 0;       // chunk bytes of all live blocks, headers included (heap +
                                 // mmapped; includes the internal 656 B tcache_perthread_struct)
  size_t bad_frees = 0;          // bad pointers passed to free/realloc and reported
};

// malloc_stats(): the counters above for the calling process. (glibc's malloc_stats prints to
// stderr; minicuda returns the numbers so tests and tools can read them.)
MallocStats malloc_stats();

// malloc_check_heap(): walks every chunk of the heap and the free list and checks the boundary
// tags (sizes, PREV_INUSE bits, free-chunk footers, no two free neighbours, list links). true if
// all is consistent. minicuda's counterpart of glibc's debug-only do_check_malloc_state.
bool malloc_check_heap();

}  // namespace minicuda::libc
