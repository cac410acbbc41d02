// chunk.h (private to runtime/libc): the boundary-tag chunk of glibc's malloc, laid out in the
// simulated process's own memory exactly as glibc lays it out, so that in a debugger
//   x/2gx ptr-16
// shows the same prev_size / size words a student would see under real glibc.
//
//        chunk -> +-------------------------------+
//                 | prev_size: size of the previous chunk if it is free;
//                 |            otherwise part of the previous chunk's user data
//                 +-------------------------------+
//                 | size  (multiple of 16)  |M|P|   P = PREV_INUSE 0x1, M = IS_MMAPPED 0x2
//   mem (user) -> +-------------------------------+
//                 | user data ... (a free chunk keeps fd / bk here, and a copy of its size
//                 |               in the next chunk's prev_size: the "foot")
//   next chunk -> +-------------------------------+
//
// An in-use chunk costs only SIZE_SZ (8) bytes of overhead: its user data runs into the next
// chunk's prev_size word, which is only meaningful while this chunk is free.
// Names follow glibc malloc/malloc.c (lines 1083-1313 at the snapshot cited in
// shared/reference/real-stack.md §3.1) so that reading this next to glibc is easy.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minicuda::libc::detail {

inline constexpr size_t SIZE_SZ = sizeof(size_t);                      // 8
inline constexpr size_t MALLOC_ALIGNMENT = 2 * SIZE_SZ;                // 16
inline constexpr size_t MALLOC_ALIGN_MASK = MALLOC_ALIGNMENT - 1;
inline constexpr size_t CHUNK_HDR_SZ = 2 * SIZE_SZ;                    // prev_size + size
inline constexpr size_t MINSIZE = 32;                                  // sizeof(malloc_chunk) w/o nextsize
inline constexpr size_t kPageSize = 4096;

inline constexpr size_t PREV_INUSE = 0x1;
inline constexpr size_t IS_MMAPPED = 0x2;
inline constexpr size_t NON_MAIN_ARENA = 0x4;  // never set: minicuda models only the main arena
inline constexpr size_t SIZE_BITS = PREV_INUSE | IS_MMAPPED | NON_MAIN_ARENA;

// Tunables (glibc's mp_ defaults, malloc.c:847-1017; top_pad from malloc-machine.h).
inline constexpr size_t DEFAULT_TOP_PAD = 128 * 1024;
inline constexpr size_t DEFAULT_MMAP_THRESHOLD = 128 * 1024;          // DEFAULT_MMAP_THRESHOLD_MIN
inline constexpr size_t DEFAULT_MMAP_THRESHOLD_MAX = 4 * 1024 * 1024 * sizeof(long);  // 32 MiB
inline constexpr size_t DEFAULT_TRIM_THRESHOLD = 128 * 1024;
inline constexpr size_t DEFAULT_MMAP_MAX = 65536;
// A free that produces a chunk at least this big looks at the top for trimming (malloc.c:1694).
inline constexpr size_t FASTBIN_CONSOLIDATION_THRESHOLD = 65536;

// glibc 2.36's struct tcache_perthread_struct: uint16_t counts[64] + tcache_entry* entries[64].
inline constexpr size_t kTcachePerthreadStructSize = 64 * sizeof(uint16_t) + 64 * sizeof(void*);

// struct malloc_chunk (malloc.c:1083). fd/bk are only valid while the chunk is free; glibc's
// large-bin fd_nextsize/bk_nextsize are left out because minicuda has one bin.
struct malloc_chunk {
  size_t mchunk_prev_size;
  size_t mchunk_size;
  malloc_chunk* fd;
  malloc_chunk* bk;
};
using mchunkptr = malloc_chunk*;

constexpr size_t align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }
constexpr size_t align_down(size_t n, size_t a) { return n & ~(a - 1); }

// request2size (malloc.c:1238): the chunk size that holds n user bytes.
constexpr size_t request2size(size_t n) {
  return n + SIZE_SZ + MALLOC_ALIGN_MASK < MINSIZE ? MINSIZE
                                                   : (n + SIZE_SZ + MALLOC_ALIGN_MASK) & ~MALLOC_ALIGN_MASK;
}
// checked_request2size: false when n is so large that the chunk size would not fit a ptrdiff_t.
constexpr bool checked_request2size(size_t n, size_t* nb) {
  if (n > static_cast<size_t>(PTRDIFF_MAX) - CHUNK_HDR_SZ - MALLOC_ALIGN_MASK) return false;
  *nb = request2size(n);
  return true;
}

inline mchunkptr mem2chunk(void* mem) {
  return reinterpret_cast<mchunkptr>(reinterpret_cast<char*>(mem) - CHUNK_HDR_SZ);
}
inline void* chunk2mem(mchunkptr p) { return reinterpret_cast<char*>(p) + CHUNK_HDR_SZ; }
inline uintptr_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

inline size_t chunksize(mchunkptr p) { return p->mchunk_size & ~SIZE_BITS; }
inline bool prev_inuse(mchunkptr p) { return p->mchunk_size & PREV_INUSE; }
inline bool chunk_is_mmapped(mchunkptr p) { return p->mchunk_size & IS_MMAPPED; }
inline size_t prev_size(mchunkptr p) { return p->mchunk_prev_size; }

inline mchunkptr chunk_at_offset(mchunkptr p, size_t offset) {
  return reinterpret_cast<mchunkptr>(reinterpret_cast<char*>(p) + offset);
}
inline mchunkptr next_chunk(mchunkptr p) { return chunk_at_offset(p, chunksize(p)); }
inline mchunkptr prev_chunk(mchunkptr p) {
  return reinterpret_cast<mchunkptr>(reinterpret_cast<char*>(p) - prev_size(p));
}

// Is the chunk at p in use? That is recorded in the PREV_INUSE bit of the chunk after it.
inline bool inuse_bit_at_offset(mchunkptr p, size_t offset) {
  return chunk_at_offset(p, offset)->mchunk_size & PREV_INUSE;
}
inline void set_inuse_bit_at_offset(mchunkptr p, size_t offset) {
  chunk_at_offset(p, offset)->mchunk_size |= PREV_INUSE;
}
inline void clear_inuse_bit_at_offset(mchunkptr p, size_t offset) {
  chunk_at_offset(p, offset)->mchunk_size &= ~PREV_INUSE;
}

// set_head writes size and bits; set_head_size keeps the bits; set_foot writes the size into the
// next chunk's prev_size (only for free chunks).
inline void set_head(mchunkptr p, size_t size_and_bits) { p->mchunk_size = size_and_bits; }
inline void set_head_size(mchunkptr p, size_t size) {
  p->mchunk_size = (p->mchunk_size & SIZE_BITS) | size;
}
inline void set_foot(mchunkptr p, size_t size) { chunk_at_offset(p, size)->mchunk_prev_size = size; }

// Usable bytes of an in-use chunk (glibc musable): an mmapped chunk has no next chunk whose
// prev_size it could borrow, so it loses a whole header.
inline size_t usable_size(mchunkptr p) {
  return chunk_is_mmapped(p) ? chunksize(p) - CHUNK_HDR_SZ : chunksize(p) - SIZE_SZ;
}

}  // namespace minicuda::libc::detail
