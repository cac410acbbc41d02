// sysmalloc.cpp: where malloc meets the kernel. Only these functions make system calls:
//   sysmalloc     -> mmap   a chunk of its own for a big request (nb >= mmap_threshold)
//                 -> brk    grow the heap (with top_pad to spare) for everything else
//   systrim       -> brk    shrink the heap when free leaves too much at the top
//   munmap_chunk  -> munmap give an mmapped chunk back
// This is glibc's sysmalloc / systrim / munmap_chunk (malloc/malloc.c:2318-2845), reduced to the
// main arena on Linux. shared/reference/real-stack.md §3.2 walks through the measured strace.
// Every function here runs with the arena lock held.
#include <cassert>

#include "arena.h"
#include "minicuda/syscall.h"
#include "minicuda/trace.h"

namespace minicuda::libc::detail {

using trace::Layer;

// Maps a chunk of its own for nb bytes. Null if the kernel refuses.
static void* sysmalloc_mmap(Arena& av, size_t nb) {
  // The chunk has no successor whose prev_size it could borrow, so it needs nb + SIZE_SZ bytes
  // (glibc: ALIGN_UP(nb + SIZE_SZ, pagesize)). nb is a multiple of 16, so this is the same page
  // count as ALIGN_UP(nb + CHUNK_HDR_SZ, pagesize): 200016 B -> 49 pages = 200704 B.
  size_t size = align_up(nb + SIZE_SZ, kPageSize);
  void* mm = kernel::sys_mmap(nullptr, size, kernel::kProtRead | kernel::kProtWrite,
                              kernel::kMapPrivate | kernel::kMapAnonymous, -1, 0);
  if (kernel::mmap_failed(mm)) {
    trace::note(Layer::Libc, "mmap refused: try the heap instead");
    return nullptr;
  }
  // The chunk starts at the mapping (page aligned, so the user pointer at +16 is aligned):
  // prev_size = 0 is the distance from the mapping start, size carries IS_MMAPPED.
  mchunkptr p = static_cast<mchunkptr>(mm);
  p->mchunk_prev_size = 0;
  set_head(p, size | IS_MMAPPED);
  ++av.n_mmaps;
  av.mmapped_mem += size;
  av.mmapped_chunks[addr(p)] = size;
  av.inuse_bytes += size;
  return chunk2mem(p);
}

// Grows the heap with brk so that the top can hold nb + MINSIZE, keeping top_pad spare.
// Returns false if the kernel refuses (the break does not move).
static bool sysmalloc_brk(Arena& av, size_t nb) {
  size_t old_size = av.top ? chunksize(av.top) : 0;
  // The old top is contiguous with the new memory, so only the missing part is requested.
  size_t size = align_up(nb + av.top_pad + MINSIZE - old_size, kPageSize);
  trace::note(Layer::Libc, "{} B > top: grow heap by brk(+{:#x}) (top_pad {} KiB)", nb, size,
              av.top_pad / 1024);

  // sbrk(size): glibc's sbrk learns the break with brk(NULL) on first use, then caches it.
  if (av.curbrk == 0) {
    av.curbrk = addr(kernel::sys_brk(nullptr));
    av.sbrk_base = av.curbrk;
    assert(av.curbrk % kPageSize == 0 && "the kernel's heap start is page aligned");
  }
  uintptr_t want = av.curbrk + size;
  uintptr_t got = addr(kernel::sys_brk(reinterpret_cast<void*>(want)));
  if (got != want) {
    // Linux brk "fails" by returning the unchanged break (heap would hit a mapping).
    trace::note(Layer::Libc, "brk refused: out of memory");
    return false;
  }

  if (av.top != nullptr) {
    assert(addr(av.top) + old_size == av.curbrk && "only this arena moves the break");
    set_head(av.top, (old_size + size) | PREV_INUSE);
  } else {
    // The first heap: the top is the whole new region. The break is page aligned, so the chunk
    // at the break gives 16-aligned user pointers without glibc's front_misalign correction.
    av.top = reinterpret_cast<mchunkptr>(av.curbrk);
    set_head(av.top, size | PREV_INUSE);
  }
  av.curbrk = want;
  av.system_mem += size;
  return true;
}

void* sysmalloc(Arena& av, size_t nb) {
  // Big requests get their own mapping, so that free can return them to the kernel at once
  // (glibc also requires n_mmaps < n_mmaps_max).
  if (nb >= av.mmap_threshold && av.n_mmaps < av.n_mmaps_max) {
    trace::note(Layer::Libc, "{} B >= mmap_threshold {}: mmap", nb, av.mmap_threshold);
    if (void* mem = sysmalloc_mmap(av, nb)) return mem;
  }
  // (glibc falls back to mmap when brk fails, as "non-contiguous" heap memory; minicuda reports
  // out of memory instead.)
  if (!sysmalloc_brk(av, nb)) return nullptr;
  return carve_from_top(av, nb);
}

void systrim(Arena& av) {
  size_t top_size = chunksize(av.top);
  // Keep MINSIZE (the top must stay a chunk), one byte, and top_pad for the next mallocs;
  // release whole pages only.
  size_t top_area = top_size - MINSIZE - 1;
  if (top_area <= av.top_pad) return;
  size_t extra = align_down(top_area - av.top_pad, kPageSize);
  if (extra == 0) return;
  // glibc checks with sbrk(0) (answered from its cached break, no syscall) that nobody else
  // moved the break.
  uintptr_t current_brk = av.curbrk;
  if (current_brk != addr(av.top) + top_size) return;

  trace::note(Layer::Libc, "top {} B >= trim_threshold: trim {:#x} B", top_size, extra);
  uintptr_t new_brk = addr(kernel::sys_brk(reinterpret_cast<void*>(current_brk - extra)));
  size_t released = current_brk - new_brk;
  if (released == 0) return;
  av.curbrk = new_brk;
  av.system_mem -= released;
  set_head(av.top, (top_size - released) | PREV_INUSE);
}

void munmap_chunk(Arena& av, mchunkptr p) {
  uintptr_t block = addr(p) - prev_size(p);
  size_t total = prev_size(p) + chunksize(p);
  --av.n_mmaps;
  av.mmapped_mem -= total;
  av.inuse_bytes -= chunksize(p);
  av.mmapped_chunks.erase(addr(p));
  // glibc ignores munmap's result: the chunk is gone from malloc's view either way.
  kernel::sys_munmap(reinterpret_cast<void*>(block), total);
}

// glibc (2.26 and later) gives each thread a tcache, and the first malloc of a thread allocates
// its tcache_perthread_struct from the arena before the user's chunk: on glibc 2.36 (Debian 12)
// that is a 640 B request, a 656 B chunk at the very start of the heap. minicuda has no tcache,
// but it makes the same allocation so that the heap offsets (first user pointer at heap + 0x2a0)
// and the first brk size are those a student measures under real glibc. The chunk is never freed.
void allocate_tcache_struct(Arena& av) {
  av.tcache_allocated = true;
  size_t nb = request2size(kTcachePerthreadStructSize);
  trace::note(Layer::Libc, "first malloc: allocate tcache_perthread_struct ({} B -> {} B chunk) as glibc does",
              kTcachePerthreadStructSize, nb);
  if (int_malloc(av, nb) == nullptr) av.tcache_allocated = false;  // glibc retries next time
}

}  // namespace minicuda::libc::detail
