// device_heap: the device malloc heap's allocator and the per-grid order of heap calls (see
// device_heap.h).
#include "device_heap.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "sm.h"

namespace minicuda::gpu {
namespace {

constexpr uint64_t kUsed = 1;

// The heap, seen through its header: every access to blocks goes through here. Callers hold the
// header's lock.
class HeapView {
 public:
  explicit HeapView(uint8_t* heap) : base_(heap), h_(reinterpret_cast<NvMinicudaDeviceHeap*>(heap)) {}

  NvMinicudaDeviceHeap& header() { return *h_; }
  NvMinicudaHeapBlock& block(uint64_t off) { return *reinterpret_cast<NvMinicudaHeapBlock*>(base_ + off); }
  uint64_t size_of(uint64_t off) { return block(off).size_and_used & ~kUsed; }
  bool used(uint64_t off) { return (block(off).size_and_used & kUsed) != 0; }
  // The free-list links in a free block's payload.
  uint64_t& next_free(uint64_t off) { return *reinterpret_cast<uint64_t*>(base_ + off + 16); }
  uint64_t& prev_free(uint64_t off) { return *reinterpret_cast<uint64_t*>(base_ + off + 24); }

  // Writes a block header at `off` and fixes the prev_size16 of the block after it.
  void set_block(uint64_t off, uint64_t size, bool in_use, uint64_t prev_size) {
    NvMinicudaHeapBlock& b = block(off);
    b.size_and_used = size | (in_use ? kUsed : 0);
    b.prev_size16 = static_cast<NvU32>(prev_size / NV_MINICUDA_HEAP_ALIGN);
    b.check = NV_MINICUDA_DEVICE_HEAP_MAGIC ^ static_cast<NvU32>(off / NV_MINICUDA_HEAP_ALIGN);
    if (off + size < h_->size) block(off + size).prev_size16 = static_cast<NvU32>(size / NV_MINICUDA_HEAP_ALIGN);
  }

  // Free list, kept in address order.
  void unlink(uint64_t off) {
    uint64_t next = next_free(off), prev = prev_free(off);
    if (prev != 0) next_free(prev) = next;
    else h_->free_head = next;
    if (next != 0) prev_free(next) = prev;
  }
  void link_after(uint64_t prev, uint64_t off) {  // prev 0: at the head
    uint64_t next = prev != 0 ? next_free(prev) : h_->free_head;
    next_free(off) = next;
    prev_free(off) = prev;
    if (next != 0) prev_free(next) = off;
    if (prev != 0) next_free(prev) = off;
    else h_->free_head = off;
  }
  // Replaces free block `old_off` in the list by `off` (same place in address order).
  void replace(uint64_t old_off, uint64_t off) {
    uint64_t next = next_free(old_off), prev = prev_free(old_off);
    next_free(off) = next;
    prev_free(off) = prev;
    if (next != 0) prev_free(next) = off;
    if (prev != 0) next_free(prev) = off;
    else h_->free_head = off;
  }

  // Is `off` the start of a block (its check word matches)?
  bool is_block(uint64_t off) {
    return off >= NV_MINICUDA_HEAP_FIRST_BLOCK && off + sizeof(NvMinicudaHeapBlock) <= h_->size &&
           off % NV_MINICUDA_HEAP_ALIGN == 0 &&
           block(off).check == (NV_MINICUDA_DEVICE_HEAP_MAGIC ^ static_cast<NvU32>(off / NV_MINICUDA_HEAP_ALIGN));
  }

 private:
  uint8_t* base_;
  NvMinicudaDeviceHeap* h_;
};

// The header's spin lock. Heap calls are short; a waiter yields its host thread.
class HeapLock {
 public:
  explicit HeapLock(NvMinicudaDeviceHeap& h) : lock_(h.lock) {
    while (__atomic_exchange_n(&lock_, 1u, __ATOMIC_ACQUIRE) != 0) {
      while (__atomic_load_n(&lock_, __ATOMIC_RELAXED) != 0) std::this_thread::yield();
    }
  }
  ~HeapLock() { __atomic_store_n(&lock_, 0u, __ATOMIC_RELEASE); }
  HeapLock(const HeapLock&) = delete;
  HeapLock& operator=(const HeapLock&) = delete;

 private:
  NvU32& lock_;
};

bool valid_heap(const uint8_t* heap) {
  return heap != nullptr &&
         reinterpret_cast<const NvMinicudaDeviceHeap*>(heap)->magic == NV_MINICUDA_DEVICE_HEAP_MAGIC;
}

}  // namespace

void heap_format(uint8_t* heap, uint64_t bytes) {
  const NvMinicudaHeapStart start = nv_device_heap_start(bytes & ~(NV_MINICUDA_HEAP_ALIGN - 1));
  std::memcpy(heap, &start, sizeof start);
}

void* heap_malloc(uint8_t* heap, uint64_t bytes) {
  if (!valid_heap(heap)) return nullptr;
  HeapView v(heap);
  NvMinicudaDeviceHeap& h = v.header();
  HeapLock lock(h);
  h.touched = 1;
  // The block this request needs: the payload and the header, in whole 80-byte granules.
  if (bytes > h.size) {
    ++h.failed;
    return nullptr;
  }
  const uint64_t need = (bytes + sizeof(NvMinicudaHeapBlock) + NV_MINICUDA_HEAP_GRANULE - 1) /
                        NV_MINICUDA_HEAP_GRANULE * NV_MINICUDA_HEAP_GRANULE;
  for (uint64_t off = h.free_head; off != 0; off = v.next_free(off)) {
    const uint64_t size = v.size_of(off);
    if (size < need) continue;
    const uint64_t prev_size = uint64_t{v.block(off).prev_size16} * NV_MINICUDA_HEAP_ALIGN;
    if (size - need >= NV_MINICUDA_HEAP_MIN_BLOCK) {  // split: the rest stays free, in this place
      const uint64_t rest = off + need;
      v.replace(off, rest);
      v.set_block(off, need, true, prev_size);
      v.set_block(rest, size - need, false, need);
    } else {
      v.unlink(off);
      v.set_block(off, size, true, prev_size);
    }
    h.used_bytes += v.size_of(off);
    ++h.live_blocks;
    return heap + off + sizeof(NvMinicudaHeapBlock);
  }
  ++h.failed;
  return nullptr;
}

HeapFree heap_free(uint8_t* heap, void* p) {
  if (p == nullptr) return HeapFree::Null;
  if (!valid_heap(heap)) return HeapFree::OutsideHeap;
  HeapView v(heap);
  NvMinicudaDeviceHeap& h = v.header();
  HeapLock lock(h);
  h.touched = 1;
  const uint64_t address = reinterpret_cast<uint64_t>(p), start = reinterpret_cast<uint64_t>(heap);
  if (address < start || address - start >= h.size) {
    ++h.bad_frees;
    return HeapFree::OutsideHeap;
  }
  // A freed block's header stays where it was (also inside a merged free block), so a second
  // free of its payload is recognised as long as nothing has overwritten it.
  const uint64_t off = address - start - sizeof(NvMinicudaHeapBlock);
  if (address - start < NV_MINICUDA_HEAP_FIRST_BLOCK + sizeof(NvMinicudaHeapBlock) || !v.is_block(off)) {
    ++h.bad_frees;
    return HeapFree::Interior;
  }
  if (!v.used(off)) {
    ++h.bad_frees;
    return HeapFree::NotInUse;
  }
  uint64_t size = v.size_of(off);
  h.used_bytes -= size;
  --h.live_blocks;
  const uint64_t prev_size = uint64_t{v.block(off).prev_size16} * NV_MINICUDA_HEAP_ALIGN;
  const uint64_t next = off + size;
  const bool next_free = next < h.size && !v.used(next);
  const uint64_t prev = off - prev_size;
  const bool prev_free = prev_size != 0 && !v.used(prev);
  if (prev_free) {  // grows the free block before it, which keeps its place in the list
    if (next_free) {
      size += v.size_of(next);
      v.unlink(next);
    }
    const uint64_t grown = prev_size + size;
    v.set_block(prev, grown, false, uint64_t{v.block(prev).prev_size16} * NV_MINICUDA_HEAP_ALIGN);
    v.block(off).size_and_used &= ~kUsed;  // its header stays, marked free (double frees)
    return HeapFree::Freed;
  }
  if (next_free) {  // takes the place of the free block after it
    const uint64_t merged = size + v.size_of(next);
    v.replace(next, off);
    v.set_block(off, merged, false, prev_size);
    return HeapFree::Freed;
  }
  // No free neighbour: insert in address order.
  uint64_t before = 0;
  for (uint64_t f = h.free_head; f != 0 && f < off; f = v.next_free(f)) before = f;
  v.set_block(off, size, false, prev_size);
  v.link_after(before, off);
  return HeapFree::Freed;
}

bool heap_free_error(HeapFree result, const void* p, KernelErrorKind* kind, std::string* message) {
  char text[160];
  switch (result) {
    case HeapFree::NotInUse:
      *kind = KernelErrorKind::Trap;
      std::snprintf(text, sizeof text, "free(%p): a double free (the device heap's block is not in use)", p);
      break;
    case HeapFree::OutsideHeap:
      *kind = KernelErrorKind::IllegalAddress;
      std::snprintf(text, sizeof text, "free(%p): not in the device heap (memory from cudaMalloc?)", p);
      break;
    default:
      return false;
  }
  *message = text;
  return true;
}

// --- HeapTurn -----------------------------------------------------------------------------------

namespace {
std::atomic<uint64_t> g_next_turn_id{1};
struct TurnRegistration {
  uint64_t turn_id = 0;
  std::atomic<uint64_t>* slot = nullptr;
};
thread_local TurnRegistration t_turn;
}  // namespace

HeapTurn::HeapTurn(const BlockQueue& queue, unsigned host_threads)
    : queue_(queue),
      id_(g_next_turn_id.fetch_add(1, std::memory_order_relaxed)),
      count_(host_threads == 0 ? 1 : host_threads),
      slots_(new std::atomic<uint64_t>[count_]) {
  for (unsigned i = 0; i < count_; ++i) slots_[i].store(kNoBlock, std::memory_order_relaxed);
}

std::atomic<uint64_t>* HeapTurn::slot_of_caller() {
  if (t_turn.turn_id == id_) return t_turn.slot;
  const unsigned index = registered_.fetch_add(1, std::memory_order_relaxed);
  if (index >= count_) {  // more host threads than the grid was given: a simulator bug
    std::fprintf(stderr, "minicuda: device heap: more host threads (%u) than the grid's %u\n", index + 1, count_);
    std::abort();
  }
  t_turn = TurnRegistration{id_, &slots_[index]};
  return t_turn.slot;
}

void HeapTurn::before_claim() { slot_of_caller()->store(0, std::memory_order_seq_cst); }

void HeapTurn::after_claim(uint64_t first) { slot_of_caller()->store(first, std::memory_order_seq_cst); }

void HeapTurn::wait(uint64_t block) {
  const std::atomic<uint64_t>* mine = slot_of_caller();
  for (unsigned spins = 0;; ++spins) {
    bool clear = true;
    for (unsigned i = 0; i < count_ && clear; ++i)
      if (&slots_[i] != mine && slots_[i].load(std::memory_order_seq_cst) < block) clear = false;
    if (clear || queue_.stopped()) return;
    if (spins < 64) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// The claim of BlockQueue::claim, published: 0 first (this host thread is about to hold some
// block, which may be below any other's), then the block it got. The claim's add is acq_rel so
// that a thread that claims a later block sees the 0 of every earlier claimer.
bool BlockQueue::claim_in_turn(uint64_t* begin, uint64_t* end) {
  heap_turn_->before_claim();
  uint64_t b = next_.fetch_add(per_claim_, std::memory_order_acq_rel);
  if (b >= blocks_) {
    heap_turn_->after_claim(HeapTurn::kNoBlock);
    return false;
  }
  heap_turn_->after_claim(b);
  *begin = b;
  *end = b + per_claim_ < blocks_ ? b + per_claim_ : blocks_;
  return true;
}

}  // namespace minicuda::gpu
