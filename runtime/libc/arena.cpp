// arena.cpp: the part of malloc that never calls the kernel. It hands out chunks from the bin
// and the top chunk, and on free it merges neighbours back together. These are glibc's
// _int_malloc, _int_free and _int_realloc (malloc/malloc.c) with one bin instead of
// tcache + fastbins + unsorted/small/large bins (arena.h says why the syscalls do not change).
// Every function here runs with the arena lock held.
#include <cstring>
#include <iterator>

#include "arena.h"
#include "minicuda/trace.h"

namespace minicuda::libc::detail {

using trace::Layer;

// --- the bin and the bookkeeping ---------------------------------------------------------------

void bin_insert(Arena& av, mchunkptr p) {
  // At the front, like glibc's unsorted bin.
  p->fd = av.bin.fd;
  p->bk = &av.bin;
  av.bin.fd->bk = p;
  av.bin.fd = p;
}

void unlink_chunk(mchunkptr p) {
  p->fd->bk = p->bk;
  p->bk->fd = p->fd;
}

void track_alloc(Arena& av, mchunkptr p) {
  av.inuse_chunks.insert(addr(p));
  av.inuse_bytes += chunksize(p);
}

void track_free(Arena& av, mchunkptr p) {
  av.inuse_chunks.erase(addr(p));
  av.inuse_bytes -= chunksize(p);
}

void* carve_from_top(Arena& av, size_t nb) {
  mchunkptr victim = av.top;
  size_t size = chunksize(victim);
  av.top = chunk_at_offset(victim, nb);
  set_head(av.top, (size - nb) | PREV_INUSE);
  set_head(victim, nb | PREV_INUSE);
  track_alloc(av, victim);
  return chunk2mem(victim);
}

// --- malloc ------------------------------------------------------------------------------------

// The smallest free chunk of at least nb bytes (lowest address among equals), or null.
// glibc finds it through exact-size small bins and size-sorted large bins instead of a scan.
static mchunkptr best_fit(Arena& av, size_t nb) {
  mchunkptr best = nullptr;
  for (mchunkptr p = av.bin.fd; p != &av.bin; p = p->fd) {
    size_t size = chunksize(p);
    if (size < nb) continue;
    if (best == nullptr || size < chunksize(best) || (size == chunksize(best) && p < best)) best = p;
  }
  return best;
}

void* int_malloc(Arena& av, size_t nb) {
  // 1. The bin. (glibc looks in the tcache and fastbins first; see arena.h.)
  if (mchunkptr victim = best_fit(av, nb)) {
    size_t size = chunksize(victim);
    unlink_chunk(victim);
    size_t remainder_size = size - nb;
    if (remainder_size < MINSIZE) {
      // Too small to stand alone: the caller gets the whole chunk.
      set_inuse_bit_at_offset(victim, size);
      trace::note(Layer::Libc, "bin: reuse free {} B chunk at {:#x}, no syscall", size, addr(victim));
    } else {
      mchunkptr remainder = chunk_at_offset(victim, nb);
      set_head(victim, nb | PREV_INUSE);
      set_head(remainder, remainder_size | PREV_INUSE);
      set_foot(remainder, remainder_size);
      bin_insert(av, remainder);
      trace::note(Layer::Libc, "bin: split free {} B chunk at {:#x} into {} B + {} B, no syscall",
                  size, addr(victim), nb, remainder_size);
    }
    track_alloc(av, victim);
    return chunk2mem(victim);
  }

  // 2. The top chunk, which must keep at least MINSIZE so that it stays a valid chunk.
  size_t top_size = av.top ? chunksize(av.top) : 0;
  if (top_size >= nb + MINSIZE) {
    trace::note(Layer::Libc, "top has {} B: carve {} B chunk, no syscall", top_size, nb);
    return carve_from_top(av, nb);
  }

  // 3. Ask the kernel.
  return sysmalloc(av, nb);
}

// --- free --------------------------------------------------------------------------------------

// glibc would first put a chunk of up to 1032 B into the thread's tcache (7 per size) and leave
// it unmerged. In host_malloc.c that keeps a and b out of the final merge, so glibc's top before
// the trim is 433360 B where minicuda's is 433520 B: the same 0x49000 B trim, the same brk.
void int_free(Arena& av, mchunkptr p) {
  track_free(av, p);
  size_t size = chunksize(p);
  mchunkptr nextchunk = chunk_at_offset(p, size);
  size_t nextsize = chunksize(nextchunk);

  // Merge backward: a free predecessor left its size in our prev_size field.
  if (!prev_inuse(p)) {
    size_t prevsize = prev_size(p);
    p = prev_chunk(p);
    unlink_chunk(p);
    size += prevsize;
    trace::note(Layer::Libc, "coalesce with free previous chunk at {:#x}: {} B", addr(p), size);
  }

  if (nextchunk != av.top) {
    // Merge forward if the next chunk is free (its successor's PREV_INUSE bit says so).
    if (!inuse_bit_at_offset(nextchunk, nextsize)) {
      unlink_chunk(nextchunk);
      size += nextsize;
      trace::note(Layer::Libc, "coalesce with free next chunk: {} B", size);
    } else {
      clear_inuse_bit_at_offset(nextchunk, 0);
    }
    set_head(p, size | PREV_INUSE);
    set_foot(p, size);
    bin_insert(av, p);
    trace::note(Layer::Libc, "put free {} B chunk at {:#x} in the bin", size, addr(p));
  } else {
    size += nextsize;
    set_head(p, size | PREV_INUSE);
    av.top = p;
    trace::note(Layer::Libc, "merge into top: top is now {} B at {:#x}", size, addr(p));
  }

  // A big free may leave a big top: give the surplus back to the kernel (glibc malloc.c:4545).
  // (glibc first runs malloc_consolidate here to empty the fastbins; minicuda has none.)
  if (size >= FASTBIN_CONSOLIDATION_THRESHOLD && chunksize(av.top) >= av.trim_threshold) systrim(av);
}

// --- realloc -----------------------------------------------------------------------------------

void* int_realloc(Arena& av, mchunkptr oldp, size_t nb) {
  size_t oldsize = chunksize(oldp);
  mchunkptr next = chunk_at_offset(oldp, oldsize);
  mchunkptr newp = oldp;
  size_t newsize = oldsize;

  if (oldsize >= nb) {
    trace::note(Layer::Libc, "{} B chunk already holds {} B: shrink in place", oldsize, nb);
  } else if (next == av.top && oldsize + chunksize(av.top) >= nb + MINSIZE) {
    // Grow into the top: the chunk just moves the top's start.
    size_t top_size = chunksize(av.top);
    trace::note(Layer::Libc, "next chunk is top ({} B): grow in place to {} B", top_size, nb);
    track_free(av, oldp);
    set_head_size(oldp, nb);
    av.top = chunk_at_offset(oldp, nb);
    set_head(av.top, (oldsize + top_size - nb) | PREV_INUSE);
    track_alloc(av, oldp);
    return chunk2mem(oldp);
  } else if (next != av.top && !inuse_bit_at_offset(next, chunksize(next)) &&
             oldsize + chunksize(next) >= nb) {
    // Absorb the free successor, then give back what is left below.
    newsize = oldsize + chunksize(next);
    trace::note(Layer::Libc, "absorb free next chunk ({} B): grow in place", chunksize(next));
    unlink_chunk(next);
  } else {
    // Move: malloc, copy the old user bytes, free the old chunk.
    trace::note(Layer::Libc, "cannot grow {} B chunk in place: malloc, copy, free", oldsize);
    void* newmem = int_malloc(av, nb);
    if (newmem == nullptr) return nullptr;
    std::memcpy(newmem, chunk2mem(oldp), oldsize - SIZE_SZ);
    int_free(av, oldp);
    return newmem;
  }

  // newp holds newsize >= nb bytes in place; split off a remainder worth keeping.
  track_free(av, oldp);
  size_t remainder_size = newsize - nb;
  if (remainder_size < MINSIZE) {
    set_head_size(newp, newsize);
    set_inuse_bit_at_offset(newp, newsize);
    track_alloc(av, newp);
    return chunk2mem(newp);
  }
  set_head_size(newp, nb);
  track_alloc(av, newp);
  mchunkptr remainder = chunk_at_offset(newp, nb);
  set_head(remainder, remainder_size | PREV_INUSE);
  set_inuse_bit_at_offset(remainder, remainder_size);
  // Free the remainder like any chunk, so it merges with a free neighbour or the top.
  track_alloc(av, remainder);
  trace::note(Layer::Libc, "split off {} B remainder and free it", remainder_size);
  int_free(av, remainder);
  return chunk2mem(newp);
}

// --- checks ------------------------------------------------------------------------------------

// glibc's checks from __libc_free, munmap_chunk and _int_free, in glibc's order, each reading
// only memory that is known to be mapped: the heap [sbrk_base, top + topsize) and the mmapped
// chunks this arena made. Then minicuda's own last check against the in-use set.
const char* check_chunk(const Arena& av, void* mem, Caller caller) {
  const bool is_free = caller == Caller::Free;
  const char* invalid_pointer = is_free ? "free(): invalid pointer" : "realloc(): invalid pointer";
  if (addr(mem) & MALLOC_ALIGN_MASK) return invalid_pointer;  // misaligned_chunk
  mchunkptr p = mem2chunk(mem);

  // An mmapped chunk: glibc checks that the mapping is page-aligned ("munmap_chunk(): invalid
  // pointer"); minicuda looks the chunk up among the mappings it made.
  if (av.mmapped_chunks.count(addr(p))) return nullptr;
  auto after = av.mmapped_chunks.upper_bound(addr(p));
  if (after != av.mmapped_chunks.begin()) {
    auto mapping = std::prev(after);
    if (addr(p) < mapping->first + mapping->second)
      return is_free ? "munmap_chunk(): invalid pointer" : invalid_pointer;
  }

  // Otherwise the chunk must lie in the heap, before the top.
  if (av.top == nullptr || addr(p) < av.sbrk_base || addr(p) > addr(av.top)) return invalid_pointer;
  if (p == av.top) return is_free ? "double free or corruption (top)" : invalid_pointer;
  size_t size = chunksize(p);
  if (chunk_is_mmapped(p)) return is_free ? "munmap_chunk(): invalid pointer" : invalid_pointer;
  if (size < MINSIZE || (size & MALLOC_ALIGN_MASK))
    return is_free ? "free(): invalid size" : "realloc(): invalid old size";
  if (addr(p) + size > addr(av.top)) return is_free ? "double free or corruption (out)" : invalid_pointer;
  mchunkptr nextchunk = chunk_at_offset(p, size);
  // The chunk after us records whether we are in use: a clear bit means "already free".
  if (!prev_inuse(nextchunk)) return is_free ? "double free or corruption (!prev)" : invalid_pointer;
  size_t nextsize = chunksize(nextchunk);
  if (nextchunk != av.top &&
      (nextsize < MINSIZE || addr(nextchunk) + nextsize > addr(av.top)))
    return is_free ? "free(): invalid next size (normal)" : "realloc(): invalid next size";
  if (!prev_inuse(p)) {
    size_t prevsize = prev_size(p);
    if (prevsize > addr(p) - av.sbrk_base || chunksize(prev_chunk(p)) != prevsize)
      return "corrupted size vs. prev_size while consolidating";
  }
  // minicuda's guard (arena.h): the header looks right, but is it a chunk malloc handed out?
  if (!av.inuse_chunks.count(addr(p))) return invalid_pointer;
  return nullptr;
}

bool check_heap(const Arena& av) {
  if (av.top == nullptr) return av.bin.fd == &av.bin && av.inuse_chunks.empty();
  size_t free_in_heap = 0, inuse_in_heap = 0;
  mchunkptr p = reinterpret_cast<mchunkptr>(av.sbrk_base);
  bool previous_free = false;
  while (p != av.top) {
    size_t size = chunksize(p);
    if (size < MINSIZE || (size & MALLOC_ALIGN_MASK) || addr(p) + size > addr(av.top)) return false;
    if (chunk_is_mmapped(p) || prev_inuse(p) == previous_free) return false;
    bool inuse = inuse_bit_at_offset(p, size);
    if (inuse != (av.inuse_chunks.count(addr(p)) == 1)) return false;
    if (!inuse) {
      if (previous_free) return false;  // two free neighbours should have merged
      if (chunk_at_offset(p, size)->mchunk_prev_size != size) return false;  // the foot
      ++free_in_heap;
    } else {
      ++inuse_in_heap;
    }
    previous_free = !inuse;
    p = chunk_at_offset(p, size);
  }
  if (previous_free || !prev_inuse(av.top) || addr(av.top) + chunksize(av.top) != av.curbrk) return false;
  if (chunksize(av.top) < MINSIZE) return false;
  size_t in_bin = 0;
  for (mchunkptr f = av.bin.fd; f != &av.bin; f = f->fd) {
    if (f->fd->bk != f || f->bk->fd != f) return false;
    ++in_bin;
  }
  return in_bin == free_in_heap && inuse_in_heap == av.inuse_chunks.size();
}

}  // namespace minicuda::libc::detail
