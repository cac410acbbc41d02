// mmu: the GPU's page tables for one virtual address space, and the UVA window that makes device
// pointers dereferenceable by the host.
//
// A real GPU MMU walks a multi-level page table on every access and finds a PTE that says where
// the page lives (aperture: video memory or system memory), at which physical address, how big
// the page is and whether it may be written. Here the page table is one ordered map from page
// virtual address to Pte; translate() is the walk.
//
// UVA (unified virtual addressing): at construction the Mmu reserves a window of the host's
// address space (PROT_NONE, nothing behind it), preferably at 0x580000000000 so that device
// pointers read 0x58... in traces and gdb. Mapping vidmem writes the PTEs *and* maps the same
// VRAM pages (a MAP_SHARED slice of the VRAM memfd) at the same address in the host, so host
// code and C++ kernels can dereference a device pointer directly. Sysmem (pinned host memory)
// is already the process's memory: its PTEs point at the host address itself.
//
// Who talks to it: Device owns it; nvidia.ko writes the page tables (map/unmap) when it maps
// memory into a GPU virtual address space; the copy and compute engines translate().
#include <sys/mman.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>

#include "minicuda/device.h"
#include "minicuda/trace.h"

namespace minicuda::gpu {

namespace {

// Where the UVA window goes if that part of the host address space is free: 414 MiB below
// 0x5800'0000'0000, so that after the 414 MiB a context's driver maps at the bottom of its VA
// space for itself, a process's first device allocation is at the round 0x5800'0000'0000.
constexpr uint64_t kPreferredUvaBase = 0x5800'0000'0000 - 0x19e0'0000;
// The flags of an address-space reservation: no access, no memory, no swap accounting.
constexpr int kReserveFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

// A host call the simulator cannot do without failed: a bug or an exhausted host, not anything a
// user program did. Aborts with the reason.
[[noreturn]] void mmu_panic(const char* what, uint64_t va, uint64_t length) {
  std::fprintf(stderr, "minicuda: mmu: %s of 0x%llx..+0x%llx failed: %s\n", what,
               static_cast<unsigned long long>(va), static_cast<unsigned long long>(length),
               std::strerror(errno));
  std::abort();
}

// "2 MiB", "4 KiB", "512 GiB", "12345 B": the largest unit that divides bytes exactly.
std::string size_text(uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes != 0 && bytes % (1ull << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes != 0 && bytes % (1ull << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string pte_text(uint64_t count) {
  return fmt::format("{} PTE{}", count, count == 1 ? "" : "s");
}

// Reserves `size` bytes of host address space, 2 MiB aligned, preferably at kPreferredUvaBase.
// If that range is taken (another Mmu, a sanitizer's shadow memory), lets the kernel choose:
// over-reserve by one big page and trim both ends to the alignment.
uint64_t reserve_uva_window(uint64_t size, bool preferred) {
#if defined(__SANITIZE_THREAD__)
  preferred = false;  // ThreadSanitizer treats a fixed mapping outside its ranges as fatal
#endif
  void* want = reinterpret_cast<void*>(kPreferredUvaBase);
  void* got = preferred ? mmap(want, size, PROT_NONE, kReserveFlags | MAP_FIXED_NOREPLACE, -1, 0) : MAP_FAILED;
  if (got == want) return kPreferredUvaBase;
  if (got != MAP_FAILED) munmap(got, size);  // a kernel before 4.17 took the address as a hint

  uint64_t span = size + kBigPage;
  got = mmap(nullptr, span, PROT_NONE, kReserveFlags, -1, 0);
  if (got == MAP_FAILED) mmu_panic("reserving the UVA window", 0, span);
  uint64_t start = reinterpret_cast<uint64_t>(got);
  uint64_t base = (start + kBigPage - 1) & ~(kBigPage - 1);
  uint64_t head = base - start;
  uint64_t tail = span - head - size;
  if (head != 0) munmap(got, head);
  if (tail != 0) munmap(reinterpret_cast<void*>(base + size), tail);
  return base;
}

// Makes [va, va+length) of the window a PROT_NONE reservation again (drops the VRAM mapping).
void rereserve(uint64_t va, uint64_t length) {
  void* got = mmap(reinterpret_cast<void*>(va), length, PROT_NONE, kReserveFlags | MAP_FIXED, -1, 0);
  if (got == MAP_FAILED) mmu_panic("re-reserving", va, length);
}

// Does any page of the table overlap [va, va+length)? Pages differ in size, so look both at the
// first page starting at or after va and at the page just before it.
bool overlaps(const std::map<uint64_t, Pte>& ptes, uint64_t va, uint64_t length) {
  auto next = ptes.lower_bound(va);
  if (next != ptes.end() && next->first - va < length) return true;
  if (next == ptes.begin()) return false;
  auto prev = std::prev(next);
  return va - prev->first < prev->second.page_size;
}

// Why a range of 2 MiB pages [va, va+length) -> VRAM+vram_offset cannot be mapped at all: empty or
// not 2 MiB aligned; nullptr when neither.
const char* big_page_range_refusal(uint64_t va, uint64_t vram_offset, uint64_t length) {
  if (length == 0) return "empty range";
  if (va % kBigPage != 0 || vram_offset % kBigPage != 0 || length % kBigPage != 0) return "not 2 MiB aligned";
  return nullptr;
}
}  // namespace

// Reserves the UVA window [uva_base(), uva_base()+uva_size) in the host. uva_size must be a
// non-zero multiple of 2 MiB (asserted: Device computes it). Aborts if the host has no address
// space left for it.
Mmu::Mmu(Vram& vram, uint64_t uva_size) : vram_(vram), uva_size_(uva_size) {
  assert(uva_size != 0 && uva_size % kBigPage == 0 && "UVA window must be whole 2 MiB pages");
  uva_base_ = reserve_uva_window(uva_size, /*preferred=*/true);
  invalidate_tlbs();
  trace::note(trace::Layer::Gpu, "mmu: reserve UVA window {:#x}..+{} (PROT_NONE)", uva_base_,
              size_text(uva_size_));
}

// Releases the whole window, with every VRAM mapping in it. Sysmem pages are the process's own
// memory and are left alone.
Mmu::~Mmu() {
  munmap(reinterpret_cast<void*>(uva_base_), uva_size_);
  for (uint64_t base : extra_windows_) munmap(reinterpret_cast<void*>(base), uva_size_);
}

uint64_t Mmu::add_window() {
  uint64_t base = reserve_uva_window(uva_size_, /*preferred=*/false);
  std::lock_guard<std::mutex> lock(mutex_);
  extra_windows_.push_back(base);
  trace::note(trace::Layer::Gpu, "mmu: reserve another UVA window {:#x}..+{} (PROT_NONE)", base, size_text(uva_size_));
  return base;
}

bool Mmu::in_window(uint64_t va, uint64_t length) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_window_locked(va, length);
}

bool Mmu::in_window_locked(uint64_t va, uint64_t length) const {
  auto inside = [&](uint64_t base) { return va >= base && va - base <= uva_size_ && length <= uva_size_ - (va - base); };
  if (inside(uva_base_)) return true;
  for (uint64_t base : extra_windows_) {
    if (inside(base)) return true;
  }
  return false;
}

// Writes 2 MiB vidmem PTEs for [va, va+length) -> VRAM [vram_offset, ...) and maps those VRAM
// pages at va in the host (read-write, or read-only if !writable).
// Returns false, with nothing mapped, if: length is 0; va, vram_offset or length is not 2 MiB
// aligned; the range leaves the UVA window; the VRAM range leaves VRAM; any page of the range is
// already mapped; or the host refuses the mapping (e.g. too many mappings).
bool Mmu::map_vidmem(uint64_t va, uint64_t vram_offset, uint64_t length, bool writable) {
  std::lock_guard<std::mutex> lock(mutex_);
  const char* refused = big_page_range_refusal(va, vram_offset, length);
  if (refused == nullptr) {
    if (!in_window_locked(va, length))
      refused = "outside the UVA window";
    else if (vram_offset > vram_.size() || length > vram_.size() - vram_offset)
      refused = "beyond the end of VRAM";
    else if (overlaps(ptes_, va, length))
      refused = "already mapped";
  }
  if (refused != nullptr) {
    trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> VRAM+{:#x} refused: {}", va,
                size_text(length), vram_offset, refused);
    return false;
  }

  int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
  void* got = mmap(reinterpret_cast<void*>(va), length, prot, MAP_SHARED | MAP_FIXED,
                   vram_.backing_fd(), static_cast<off_t>(vram_offset));
  if (got == MAP_FAILED) {
    int error = errno;
    rereserve(va, length);  // a failed MAP_FIXED may already have dropped the reservation
    trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> VRAM+{:#x} refused: host mmap: {}", va,
                size_text(length), vram_offset, std::strerror(error));
    return false;
  }

  for (uint64_t off = 0; off < length; off += kBigPage)
    ptes_[va + off] = Pte{Aperture::Vidmem, vram_offset + off, kBigPage, writable};
  invalidate_tlbs();
  trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> VRAM+{:#x}, {} (2 MiB){}", va,
              size_text(length), vram_offset, pte_text(length / kBigPage),
              writable ? "" : ", read-only");
  return true;
}

// Writes 4 KiB sysmem PTEs for [va, va+length) pointing at the same host addresses (UVA: the
// pinned host buffer has one address for host and device). The host mapping is not touched.
// Returns false, with nothing mapped, if: length is 0; va or length is not 4 KiB aligned; the
// range wraps around the address space; or any page of the range is already mapped.
bool Mmu::map_sysmem(uint64_t va, uint64_t length, bool writable) {
  std::lock_guard<std::mutex> lock(mutex_);
  const char* refused = nullptr;
  if (length == 0)
    refused = "empty range";
  else if (va % kSmallPage != 0 || length % kSmallPage != 0)
    refused = "not 4 KiB aligned";
  else if (length > std::numeric_limits<uint64_t>::max() - va)
    refused = "wraps around the address space";
  else if (overlaps(ptes_, va, length))
    refused = "already mapped";
  if (refused != nullptr) {
    trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> sysmem refused: {}", va,
                size_text(length), refused);
    return false;
  }

  for (uint64_t off = 0; off < length; off += kSmallPage)
    ptes_[va + off] = Pte{Aperture::Sysmem, va + off, kSmallPage, writable};
  invalidate_tlbs();
  trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> sysmem {:#x}, {} (4 KiB){}", va,
              size_text(length), va, pte_text(length / kSmallPage),
              writable ? "" : ", read-only");
  return true;
}

// Writes 2 MiB Peer PTEs for [va, va+length) -> VRAM [vram_offset, ...) of GPU peer_gpu. The host
// mapping of those pages is the peer Mmu's (map_vidmem), untouched here, unless host_view is given:
// then this Mmu maps the peer's VRAM at va in the host itself.
bool Mmu::map_peer(uint64_t va, int peer_gpu, uint64_t vram_offset, uint64_t length, bool writable,
                   Vram* host_view) {
  std::lock_guard<std::mutex> lock(mutex_);
  const char* refused = big_page_range_refusal(va, vram_offset, length);
  if (refused == nullptr) {
    if (length > std::numeric_limits<uint64_t>::max() - va)
      refused = "wraps around the address space";
    else if (host_view != nullptr && !in_window_locked(va, length))
      refused = "outside the UVA window";
    else if (host_view != nullptr && (vram_offset > host_view->size() || length > host_view->size() - vram_offset))
      refused = "beyond the end of the peer's VRAM";
    else if (overlaps(ptes_, va, length))
      refused = "already mapped";
  }
  if (refused == nullptr && host_view != nullptr) {
    void* got = mmap(reinterpret_cast<void*>(va), length, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                     MAP_SHARED | MAP_FIXED, host_view->backing_fd(), static_cast<off_t>(vram_offset));
    if (got == MAP_FAILED) {
      rereserve(va, length);
      refused = "host mmap failed";
    }
  }
  if (refused != nullptr) {
    trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> gpu{} VRAM+{:#x} refused: {}", va, size_text(length),
                peer_gpu, vram_offset, refused);
    return false;
  }
  for (uint64_t off = 0; off < length; off += kBigPage)
    ptes_[va + off] = Pte{Aperture::Peer, vram_offset + off, kBigPage, writable, peer_gpu, host_view != nullptr};
  invalidate_tlbs();
  trace::note(trace::Layer::Gpu, "mmu: map {:#x}..+{} -> peer gpu{} VRAM+{:#x}, {} (2 MiB){}", va, size_text(length),
              peer_gpu, vram_offset, pte_text(length / kBigPage), writable ? "" : ", read-only");
  return true;
}

// Removes every PTE whose page overlaps [va, va+length). Vidmem pages become PROT_NONE again in
// the host (a later host access faults, as a GPU access would); Peer pages stay as the peer's
// mapping has them. Returns the number of PTEs removed; 0 if none was mapped there (not an
// error: the caller decides).
uint64_t Mmu::unmap(uint64_t va, uint64_t length) {
  std::unique_lock<std::shared_mutex> no_access(access_);  // waits for running engine work
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t end = length > std::numeric_limits<uint64_t>::max() - va
                     ? std::numeric_limits<uint64_t>::max()
                     : va + length;
  auto it = ptes_.upper_bound(va);
  if (it != ptes_.begin() && va - std::prev(it)->first < std::prev(it)->second.page_size) --it;

  uint64_t removed = 0;
  uint64_t run_start = 0, run_length = 0;  // the current run of contiguous host-mapped pages
  while (it != ptes_.end() && it->first < end) {
    if (it->second.aperture == Aperture::Vidmem || it->second.host_view) {
      if (run_length != 0 && run_start + run_length != it->first) {
        rereserve(run_start, run_length);
        run_length = 0;
      }
      if (run_length == 0) run_start = it->first;
      run_length += it->second.page_size;
    }
    it = ptes_.erase(it);
    ++removed;
  }
  if (removed != 0) invalidate_tlbs();
  if (run_length != 0) rereserve(run_start, run_length);

  trace::note(trace::Layer::Gpu, "mmu: unmap {:#x}..+{}, {}", va, size_text(length),
              pte_text(removed));
  return removed;
}

namespace {

// Epochs are drawn from one counter, so that an Mmu built where a destroyed one lived never
// matches the entries that one left in a TLB.
std::atomic<uint64_t> g_next_epoch{1};

// One thread's TLB: the last few pages it translated, any Mmu's, replaced round robin.
struct TlbEntry {
  const Mmu* mmu = nullptr;
  uint64_t epoch = 0;
  uint64_t page = 0;  // the page's VA (aligned to pte.page_size)
  Pte pte{};
};
constexpr int kTlbEntries = 4;
struct Tlb {
  TlbEntry entries[kTlbEntries];
  unsigned next = 0;
};
constinit thread_local Tlb t_tlb;

}  // namespace

void Mmu::invalidate_tlbs() { epoch_.store(g_next_epoch.fetch_add(1), std::memory_order_release); }

std::optional<Pte> Mmu::translate(uint64_t va) const {
  const uint64_t epoch = epoch_.load(std::memory_order_acquire);
  for (const TlbEntry& entry : t_tlb.entries) {
    if (entry.mmu == this && entry.epoch == epoch && va - entry.page < entry.pte.page_size) return entry.pte;
  }
  std::optional<Pte> pte = walk(va);
  if (pte) {
    // Filled with the epoch read before the walk: had a map or unmap come between, the entry is
    // already stale and never hits.
    TlbEntry& entry = t_tlb.entries[t_tlb.next++ % kTlbEntries];
    entry = TlbEntry{this, epoch, va & ~(pte->page_size - 1), *pte};
  }
  return pte;
}

// The page walk: the PTE of the page that contains va, or nullopt if va is not mapped.
std::optional<Pte> Mmu::walk(uint64_t va) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ptes_.upper_bound(va);
  if (it == ptes_.begin()) return std::nullopt;
  --it;
  if (va - it->first >= it->second.page_size) return std::nullopt;
  return it->second;
}

// The number of valid PTEs (2 MiB and 4 KiB pages alike).
uint64_t Mmu::pte_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ptes_.size();
}

std::vector<std::pair<uint64_t, uint64_t>> Mmu::writable_vidmem() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& [va, pte] : ptes_) {
    if (pte.aperture != Aperture::Vidmem || !pte.writable) continue;
    if (!ranges.empty() && ranges.back().first + ranges.back().second == va) {
      ranges.back().second += pte.page_size;
    } else {
      ranges.emplace_back(va, pte.page_size);
    }
  }
  return ranges;
}

}  // namespace minicuda::gpu
