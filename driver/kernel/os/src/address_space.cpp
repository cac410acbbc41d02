// AddressSpace: the memory a simulated process owns, inside a window of real host memory.
//
//   window_base                                                         window_base + 64 GiB
//   | heap (brk grows up) ->           ...free...          <- mmap area (grows down) |
//
// The window is reserved once with mmap(PROT_NONE, MAP_NORESERVE): it costs no memory. Growing the
// heap or mapping anonymous memory makes pages accessible (mprotect), which is when the host
// kernel starts backing them; shrinking or unmapping gives them back (MADV_DONTNEED, PROT_NONE),
// so the next use sees zero-filled pages as Linux guarantees. The addresses handed out are real:
// the program can use them, and gdb can print what they point to.
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#include "internal.h"
#include "minicuda/trace.h"

namespace minicuda::kernel {

namespace {
constexpr uint64_t kPreferredBase = 0x590000000000ull;  // heap pointers read 0x59...
constexpr uint64_t kWindowSize = 64ull << 30;

uint64_t page_up(uint64_t v) { return (v + kPageSize - 1) & ~(kPageSize - 1); }

int host_prot(int prot) {
  int p = PROT_NONE;
  if (prot & kProtRead) p |= PROT_READ;
  if (prot & kProtWrite) p |= PROT_WRITE;
  return p;
}

// Returns [addr, addr+len) to the reserved, unbacked state.
void release_pages(uint64_t addr, uint64_t len) {
  void* p = reinterpret_cast<void*>(addr);
  // A fresh anonymous PROT_NONE mapping over the range both frees the pages (also when a driver
  // had mapped device memory there) and restores the reservation.
  void* r = mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (r == MAP_FAILED) {
    std::perror("minicuda: kernel: re-reserving user pages");
    std::abort();
  }
}
}  // namespace

// ThreadSanitizer allows application memory only in ranges of its own and treats a fixed mapping
// anywhere else as fatal ("mmap at bad address"): under it the kernel chooses the address.
#if defined(__SANITIZE_THREAD__)
constexpr bool kPreferredBaseAllowed = false;
#else
constexpr bool kPreferredBaseAllowed = true;
#endif

AddressSpace::AddressSpace() {
  void* want = reinterpret_cast<void*>(kPreferredBase);
  void* p = kPreferredBaseAllowed ? mmap(want, kWindowSize, PROT_NONE,
                                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0)
                                  : MAP_FAILED;
  if (p == MAP_FAILED) {
    // The preferred address is taken (another simulated process, or a sanitizer's layout).
    p = mmap(nullptr, kWindowSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  if (p == MAP_FAILED) {
    std::perror("minicuda: kernel: reserving the process address space");
    std::abort();
  }
  base_ = reinterpret_cast<uint64_t>(p);
  size_ = kWindowSize;
  start_brk_ = base_;
  brk_ = base_;
  mmap_floor_ = base_ + size_;
}

AddressSpace::~AddressSpace() { munmap(reinterpret_cast<void*>(base_), size_); }

uint64_t AddressSpace::brk() const {
  std::lock_guard lock(mutex_);
  return brk_;
}

uint64_t AddressSpace::set_brk_locked(uint64_t new_brk) {
  if (new_brk < start_brk_) return brk_;
  uint64_t old_end = page_up(brk_);
  uint64_t new_end = page_up(new_brk);
  if (new_end > old_end) {
    // The heap may not run into the lowest mapping (Linux keeps a guard gap; one page here).
    if (new_end + kPageSize > mmap_floor_ || new_end > base_ + size_) return brk_;
    if (mprotect(reinterpret_cast<void*>(old_end), new_end - old_end, PROT_READ | PROT_WRITE) != 0) return brk_;
  } else if (new_end < old_end) {
    release_pages(new_end, old_end - new_end);
  }
  brk_ = new_brk;
  return brk_;
}

long AddressSpace::map_locked(uint64_t length, int prot, int flags, uint64_t hint, uint64_t* out) {
  length = page_up(length);
  if (length == 0 || length > size_) return -kENOMEM;
  uint64_t heap_end = page_up(brk_) + kPageSize;
  // Top-down first fit, like Linux's default mmap layout.
  uint64_t hi = base_ + size_;
  uint64_t addr = 0;
  for (auto it = mappings_.rbegin(); it != mappings_.rend(); ++it) {
    uint64_t end = it->second.start + it->second.length;
    if (hi >= end && hi - end >= length) {
      addr = hi - length;
      break;
    }
    hi = it->second.start;
  }
  if (addr == 0) {
    if (hi < heap_end || hi - heap_end < length) return -kENOMEM;
    addr = hi - length;
  }
  (void)hint;  // MAP_FIXED is not supported; a hint is ignored as Linux may ignore it
  // Anonymous memory becomes accessible here; a device mapping is filled by the driver.
  if (flags & kMapAnonymous) {
    if (mprotect(reinterpret_cast<void*>(addr), length, host_prot(prot)) != 0) return -kENOMEM;
  }
  Mapping m;
  m.start = addr;
  m.length = length;
  m.prot = prot;
  m.flags = flags;
  mappings_[addr] = m;
  if (addr < mmap_floor_) mmap_floor_ = addr;
  *out = addr;
  return 0;
}

long AddressSpace::unmap_locked(uint64_t addr, uint64_t length, std::vector<Mapping>* removed) {
  if (addr % kPageSize != 0 || length == 0) return -kEINVAL;
  length = page_up(length);
  if (addr < base_ || addr + length > base_ + size_ || addr + length < addr) return -kEINVAL;
  // Linux can split mappings; minicuda unmaps whole mappings only, which is all its libc and
  // libcuda ever do. A partial unmap is refused rather than silently widened.
  uint64_t end = addr + length;
  // A mapping that starts below addr and reaches into the range would have to be split.
  if (auto before = mappings_.lower_bound(addr); before != mappings_.begin()) {
    --before;
    if (!before->second.orphaned && before->first + before->second.length > addr) return -kEINVAL;
  }
  std::vector<uint64_t> victims;
  for (auto it = mappings_.lower_bound(addr); it != mappings_.end() && it->first < end; ++it) {
    if (it->second.orphaned) continue;  // already unmapped, as far as the process knows
    if (it->first + it->second.length > end) return -kEINVAL;
    victims.push_back(it->first);
  }
  for (uint64_t start : victims) {
    Mapping& m = mappings_.at(start);
    if (m.pins > 0) {
      trace::note(trace::Layer::Kernel, "mm: {:#x}..+{:#x} is pinned by a driver: pages kept until unpinned",
                  m.start, m.length);
      removed->push_back(m);  // the caller drops the file reference, as for any unmap
      m.file.reset();
      m.orphaned = true;
      continue;
    }
    auto node = mappings_.extract(start);
    release_pages(node.mapped().start, node.mapped().length);
    removed->push_back(std::move(node.mapped()));
  }
  mmap_floor_ = mappings_.empty() ? base_ + size_ : mappings_.begin()->first;
  return 0;
}

namespace {
// Does the host process map every page of [addr, addr+len) with at least prot? Reads
// /proc/self/maps, whose lines start "lo-hi rwxp" in address order.
bool host_maps(uint64_t addr, uint64_t len, int prot) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  uint64_t covered = addr;  // [addr, covered) is known to be mapped as asked
  unsigned long long lo = 0, hi = 0;
  char perms[8] = {};
  char line[512];
  while (covered < addr + len && std::fgets(line, sizeof line, maps) != nullptr) {
    if (std::sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) != 3) continue;
    if (hi <= covered) continue;
    if (lo > covered) break;  // a hole
    const bool ok = (!(prot & kProtRead) || perms[0] == 'r') && (!(prot & kProtWrite) || perms[1] == 'w');
    if (!ok) break;
    covered = hi;
  }
  std::fclose(maps);
  return covered >= addr + len;
}
}  // namespace

bool AddressSpace::is_mapped(uint64_t addr, uint64_t len, int prot) const {
  std::lock_guard lock(mutex_);
  if (addr + len < addr) return false;
  if (outside_window(addr, len)) return host_maps(addr, len, prot);
  if (addr >= start_brk_ && addr + len <= brk_) return true;
  auto it = mappings_.upper_bound(addr);
  if (it == mappings_.begin()) return false;
  --it;
  const Mapping& m = it->second;
  return !m.orphaned && addr + len <= m.start + m.length && (m.prot & prot) == prot;
}

bool AddressSpace::find_mapping(uint64_t addr, Mapping* out) const {
  std::lock_guard lock(mutex_);
  auto it = mappings_.upper_bound(addr);
  if (it == mappings_.begin()) return false;
  --it;
  if (it->second.orphaned || addr >= it->second.start + it->second.length) return false;
  *out = it->second;
  return true;
}

bool AddressSpace::set_pinned(uint64_t addr, uint64_t len, bool pinned) {
  std::lock_guard lock(mutex_);
  if (addr + len < addr) return false;
  const bool heap = addr >= start_brk_ && addr + len <= brk_;
  if (heap || outside_window(addr, len)) {
    const auto key = std::pair{addr, len};
    if (pinned) {
      if (!heap && !host_maps(addr, len, kProtRead)) return false;
      ++range_pins_[key];
      return true;
    }
    auto it = range_pins_.find(key);
    if (it == range_pins_.end()) return false;
    if (--it->second == 0) range_pins_.erase(it);
    return true;
  }
  auto it = mappings_.upper_bound(addr);
  if (it == mappings_.begin()) return false;
  --it;
  Mapping& m = it->second;
  if (addr + len > m.start + m.length || addr + len < addr) return false;
  if (pinned) {
    if (m.orphaned) return false;  // the process no longer has these pages to pin
    ++m.pins;
  } else if (m.pins > 0) {
    --m.pins;
  }
  if (m.orphaned && m.pins == 0) {  // the last pin of unmapped pages: now they go
    release_pages(m.start, m.length);
    mappings_.erase(it);
    mmap_floor_ = mappings_.empty() ? base_ + size_ : mappings_.begin()->first;
  }
  return true;
}

std::vector<std::shared_ptr<File>> AddressSpace::take_mapped_files() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<File>> files;
  for (auto& [start, m] : mappings_) {
    if (m.file) files.push_back(std::move(m.file));
  }
  return files;
}

uint64_t AddressSpace::mapped_bytes() const {
  std::lock_guard lock(mutex_);
  uint64_t n = page_up(brk_) - start_brk_;
  for (const auto& [start, m] : mappings_) n += m.orphaned ? 0 : m.length;
  return n;
}

}  // namespace minicuda::kernel
