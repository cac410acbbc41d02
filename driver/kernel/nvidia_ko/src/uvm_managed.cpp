// uvm_managed: managed memory in nvidia-uvm (see uvm_managed.h).
//
// A managed range is made by mmap() of a uvm fd. Its pages start nowhere: neither the CPU nor the
// GPU has a frame for them, and the first processor to touch a page faults and populates it.
// The range is tracked in blocks of 64 KiB (a GPU big page; the unit that migrates together),
// each Resident nowhere, on the CPU (a frame of the range's host memory, a memfd) or on the GPU
// (a 64 KiB piece of VRAM; the range's VRAM is taken from the PMA as whole 2 MiB root chunks when
// the range is created, so faults never allocate: no eviction, no oversubscription).
//
// Two processors, one address: the process and the kernels both use the range's addresses. The
// real CPU and GPU each have their own page table; in minicuda kernel code is host code, so the
// host's page table plays both, and shows one of them at a time:
//   - while the GPU runs a grid (the compute engine's grid hook), only blocks resident on the
//     GPU are accessible: a kernel's access to any other block is a host SIGSEGV on the SM's
//     thread, which the GPU turns into a replayable fault (minicuda/replayable_faults.h);
//   - while no grid runs, only blocks resident on the CPU are accessible: the process's access to
//     a block on the GPU (or nowhere) is a CPU page fault, serviced here.
// GPU faults: the interrupt handler fetches every packet in the fault buffer (one batch), makes
// each faulting block resident on the GPU (copying a CPU-resident block's bytes into VRAM, or
// zero-filling a block that was nowhere), maps it (the host view of its VRAM, read-write),
// unmaps the CPU's frame, and marks the faults serviced: the SMs replay their accesses.
// CPU faults: the block moves back (VRAM bytes into the host frame), is mapped read-write, and
// the faulting instruction runs again. A CPU access to a CPU-resident block while a grid runs
// (the GPU's view hides it) only maps it again: the block stays where it is.
//
// Locking: managed().mutex guards every range and the view; it is taken by the fault paths
// (which never take nv_lock(): a faulting SM thread holds the MMU's access lock, which nv_lock
// holders may wait for) and, inside nv_lock(), by the ioctls.
#include "uvm_managed.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "minicuda/replayable_faults.h"
#include "minicuda/trace.h"

namespace minicuda::nvidia {

namespace {

constexpr uint64_t kBlock = 64 << 10;      // the migration unit
constexpr uint64_t kRootChunk = 2 << 20;   // what UVM's allocator takes from the PMA

enum class Residency : uint8_t { None, Cpu, Gpu };

struct ManagedRange {
  const void* owner = nullptr;  // the UvmFile
  uint64_t base = 0, length = 0;
  int gpu = 0;                  // the GPU whose VRAM backs it
  uint64_t vram_offset = 0, vram_size = 0;
  int memfd = -1;               // the CPU's frames: block i at offset i * kBlock
  std::vector<Residency> blocks;
  // Policy (cudaMemAdvise): recorded, reported by the trace; see docs/layers/nvidia_ko.md.
  int preferred = -2;           // -2 none, -1 the CPU, else a GPU
  bool read_duplication = false;
  std::vector<int> accessed_by;  // processors (-1 = CPU)
};

struct Managed {
  std::mutex mutex;
  std::map<uint64_t, ManagedRange> ranges;  // by base; guarded by mutex
  int grids_running = 0;                     // guarded by mutex
  char bounce[kBlock];                       // the migration copy buffer; guarded by mutex
};

Managed& managed() {
  static auto* m = new Managed;  // never destroyed: SM threads may fault during exit
  return *m;
}

ManagedRange* find_locked(Managed& m, uint64_t va) {
  auto it = m.ranges.upper_bound(va);
  if (it == m.ranges.begin()) return nullptr;
  --it;
  return va - it->first < it->second.length ? &it->second : nullptr;
}

uint64_t block_va(const ManagedRange& r, size_t i) { return r.base + i * kBlock; }
uint64_t block_length(const ManagedRange& r, size_t i) { return std::min(kBlock, r.length - i * kBlock); }
uint64_t block_pages(const ManagedRange& r, size_t i) { return block_length(r, i) / kernel::kPageSize; }

// Which blocks the host page table shows (see the file comment).
bool shown(Residency where, int grids_running) {
  return where == Residency::Gpu ? grids_running > 0 : where == Residency::Cpu && grids_running == 0;
}

void protect(const ManagedRange& r, size_t i, bool accessible) {
  mprotect(reinterpret_cast<void*>(block_va(r, i)), block_length(r, i), accessible ? PROT_READ | PROT_WRITE : PROT_NONE);
}

// Copies length bytes between two frames (file offsets of the memfd or the VRAM) through the
// bounce buffer: the copy engine's work of a migration.
void copy_frames(Managed& m, int from_fd, uint64_t from, int to_fd, uint64_t to, uint64_t length) {
  ssize_t got = pread(from_fd, m.bounce, length, static_cast<off_t>(from));
  if (got < 0) got = 0;
  if (static_cast<uint64_t>(got) < length) std::memset(m.bounce + got, 0, length - static_cast<uint64_t>(got));
  ssize_t put = pwrite(to_fd, m.bounce, length, static_cast<off_t>(to));
  (void)put;
}

// Makes block i resident at `to`: unmapped first (nothing touches it during the copy), the bytes
// copied from where they are (a block that was nowhere is zero-filled), the old frame released,
// the new one mapped at the block's address, shown or hidden as the view says.
void migrate_block(Managed& m, ManagedRange& r, size_t i, Residency to) {
  const Residency from = r.blocks[i];
  if (from == to) return;
  auto* va = reinterpret_cast<void*>(block_va(r, i));
  const uint64_t length = block_length(r, i);
  gpu::Vram& vram = nv_device(r.gpu).vram();
  const uint64_t vram_at = r.vram_offset + i * kBlock, host_at = i * kBlock;
  mprotect(va, length, PROT_NONE);
  if (to == Residency::Gpu) {
    if (from == Residency::Cpu) {
      copy_frames(m, r.memfd, host_at, vram.backing_fd(), vram_at, length);
      fallocate(r.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(host_at), static_cast<off_t>(kBlock));
    } else {
      vram.discard(vram_at, kBlock);  // reads back as zeros
    }
    mmap(va, length, PROT_NONE, MAP_SHARED | MAP_FIXED, vram.backing_fd(), static_cast<off_t>(vram_at));
  } else {
    if (from == Residency::Gpu) {
      copy_frames(m, vram.backing_fd(), vram_at, r.memfd, host_at, length);
      vram.discard(vram_at, kBlock);
    }
    mmap(va, length, PROT_NONE, MAP_SHARED | MAP_FIXED, r.memfd, static_cast<off_t>(host_at));
  }
  r.blocks[i] = to;
  protect(r, i, shown(to, m.grids_running));
}

std::string gpu_name(int gpu) { return fmt::format("gpu{}", gpu); }

// --- the GPU's replayable faults -----------------------------------------------------------

// The replayable-fault interrupt: one batch, serviced block by block, then the replay.
void replayable_fault_isr() {
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  std::vector<gpu::ReplayableFault> batch = gpu::fetch_replayable_faults();
  if (batch.empty()) return;  // another thread's interrupt took these faults
  uint64_t populated = 0, migrated = 0, duplicates = 0, fatal = 0;
  int gpu = 0;
  for (const gpu::ReplayableFault& f : batch) {
    ManagedRange* r = find_locked(m, f.va);
    if (r == nullptr) {
      ++fatal;  // not managed memory: not serviced, the SM reports the illegal address
      continue;
    }
    gpu = r->gpu;
    const size_t i = (f.va - r->base) / kBlock;
    const Residency from = r->blocks[i];
    if (from == Residency::Gpu) {
      ++duplicates;  // an earlier fault of this batch brought the block
    } else {
      (from == Residency::Cpu ? migrated : populated) += block_pages(*r, i);
      migrate_block(m, *r, i, Residency::Gpu);
    }
    protect(*r, i, true);  // mapped on the GPU: the replay finds it
    gpu::mark_serviced(f.serial);
  }
  if (fatal == batch.size()) return;  // none in managed memory: the illegal address is the SM's to report
  trace::note(trace::Layer::Uvm,
              "uvm: fault batch of {} fault{} from {} (first at {:#x} {}): {} duplicate, populate {} pages on {}, "
              "migrate {} pages host->{}{}; replay",
              batch.size(), batch.size() == 1 ? "" : "s", gpu_name(gpu), batch.front().va,
              batch.front().write ? "write" : "read", duplicates, populated, gpu_name(gpu), migrated, gpu_name(gpu),
              fatal ? fmt::format(", {} outside managed memory (not serviced)", fatal) : "");
}

// The GPU starts or finishes a grid: the host page table switches views (file comment).
void grid_activity(bool running) {
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  const int before = m.grids_running;
  m.grids_running += running ? 1 : -1;
  if ((before == 0) == (m.grids_running == 0) || m.ranges.empty()) return;
  for (auto& [base, r] : m.ranges) {
    for (size_t i = 0; i < r.blocks.size(); ++i) protect(r, i, shown(r.blocks[i], m.grids_running));
  }
}

// --- the CPU's page faults -----------------------------------------------------------------

// A CPU access to [va] in a managed range: make its block resident on the CPU and mapped.
// False if va is not managed memory.
bool service_cpu_fault(uint64_t va, bool write) {
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  ManagedRange* r = find_locked(m, va);
  if (r == nullptr) return false;
  const size_t i = (va - r->base) / kBlock;
  const Residency from = r->blocks[i];
  if (from == Residency::Cpu) {
    trace::note(trace::Layer::Uvm, "uvm: cpu {} fault at {:#x}: resident on the host, map", write ? "write" : "read", va);
  } else {
    migrate_block(m, *r, i, Residency::Cpu);
    if (from == Residency::Gpu) {
      trace::note(trace::Layer::Uvm, "uvm: cpu {} fault at {:#x}: migrate {} pages {}->host", write ? "write" : "read",
                  va, block_pages(*r, i), gpu_name(r->gpu));
    } else {
      trace::note(trace::Layer::Uvm, "uvm: cpu {} fault at {:#x}: populate {} pages on host", write ? "write" : "read",
                  va, block_pages(*r, i));
    }
  }
  protect(*r, i, true);
  return true;
}

struct sigaction g_previous_segv;

// The kernel's page-fault entry for managed ranges (do_page_fault -> the vma's fault handler):
// minicuda's OS has no page-fault path of its own, so the module installs it as the host's
// SIGSEGV handler. GPU faults (kernel code on an SM's thread) and faults outside managed ranges
// go to the handler installed before.
void on_cpu_fault(int signo, siginfo_t* info, void* context) {
  const auto va = reinterpret_cast<uint64_t>(info->si_addr);
  const bool write = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  if (!gpu::in_kernel_code() && (info->si_code == SEGV_ACCERR || info->si_code == SEGV_MAPERR) &&
      service_cpu_fault(va, write)) {
    return;  // the access runs again
  }
  const struct sigaction& old = g_previous_segv;
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction != nullptr) {
    old.sa_sigaction(signo, info, context);
  } else if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) {
    sigaction(signo, &old, nullptr);  // returning re-runs the access under the old action
  } else {
    old.sa_handler(signo);
  }
}

int processor_of(const NvProcessorUuid& uuid) {
  static const NvProcessorUuid cpu = NV_PROCESSOR_UUID_CPU_DEFAULT;
  if (std::memcmp(uuid.uuid, cpu.uuid, sizeof cpu.uuid) == 0) return -1;
  return nv_gpu_by_uuid(uuid.uuid);  // -1 if unknown: told apart by the caller
}

bool is_cpu(const NvProcessorUuid& uuid) {
  static const NvProcessorUuid cpu = NV_PROCESSOR_UUID_CPU_DEFAULT;
  return std::memcmp(uuid.uuid, cpu.uuid, sizeof cpu.uuid) == 0;
}

// The managed range of owner holding all of [base, base+length), or null.
ManagedRange* range_of(Managed& m, const void* owner, uint64_t base, uint64_t length) {
  ManagedRange* r = find_locked(m, base);
  if (r == nullptr || r->owner != owner || length == 0 || length > r->base + r->length - base) return nullptr;
  return r;
}

}  // namespace

long uvm_managed_mmap(const void* owner, kernel::Vma& vma) {
  if ((vma.prot & (kernel::kProtRead | kernel::kProtWrite)) != (kernel::kProtRead | kernel::kProtWrite)) {
    return -kernel::kEINVAL;
  }
  ManagedRange r;
  r.owner = owner;
  r.base = vma.start;
  r.length = vma.length;
  r.gpu = 0;
  nv_select_gpu(r.gpu);
  r.vram_size = (vma.length + kRootChunk - 1) / kRootChunk * kRootChunk;
  std::optional<uint64_t> vram = nv_pma().alloc(r.vram_size, kRootChunk);
  if (!vram) return -kernel::kENOMEM;
  r.vram_offset = *vram;
  r.memfd = memfd_create("nvidia-uvm-managed", MFD_CLOEXEC);
  if (r.memfd < 0 || ftruncate(r.memfd, static_cast<off_t>(vma.length)) != 0 ||
      mmap(reinterpret_cast<void*>(vma.start), vma.length, PROT_NONE, MAP_SHARED | MAP_FIXED, r.memfd, 0) == MAP_FAILED) {
    if (r.memfd >= 0) close(r.memfd);
    nv_pma().free(r.vram_offset, r.vram_size);
    return -kernel::kENOMEM;
  }
  r.blocks.assign((vma.length + kBlock - 1) / kBlock, Residency::None);
  trace::note(trace::Layer::Uvm,
              "uvm: managed range {:#x}..+{:#x}: {} blocks of 64 KiB, no page resident (first touch populates); "
              "{} MiB of {} VRAM at +{:#x} for it",
              r.base, r.length, r.blocks.size(), r.vram_size >> 20, gpu_name(r.gpu), r.vram_offset);
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  m.ranges[r.base] = std::move(r);
  return 0;
}

bool uvm_managed_free(const void* owner, uint64_t base) {
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  auto it = m.ranges.find(base);
  if (it == m.ranges.end() || it->second.owner != owner) return false;
  ManagedRange& r = it->second;
  uint64_t on_gpu = 0, on_cpu = 0;
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    if (r.blocks[i] == Residency::Gpu) on_gpu += block_pages(r, i);
    if (r.blocks[i] == Residency::Cpu) on_cpu += block_pages(r, i);
  }
  // Every view of the frames goes before the frames do; the VMA itself is the process's munmap's.
  mmap(reinterpret_cast<void*>(r.base), r.length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  nv_select_gpu(r.gpu);
  nv_device(r.gpu).vram().discard(r.vram_offset, r.vram_size);
  nv_pma().free(r.vram_offset, r.vram_size);
  close(r.memfd);
  trace::note(trace::Layer::Uvm, "uvm: free managed range {:#x}..+{:#x}: {} pages on {} and {} on host released",
              r.base, r.length, on_gpu, gpu_name(r.gpu), on_cpu);
  m.ranges.erase(it);
  return true;
}

void uvm_managed_release(const void* owner) {
  std::vector<uint64_t> bases;
  {
    Managed& m = managed();
    std::lock_guard lock(m.mutex);
    for (auto& [base, r] : m.ranges) {
      if (r.owner == owner) bases.push_back(base);
    }
  }
  for (uint64_t base : bases) uvm_managed_free(owner, base);
}

NV_STATUS uvm_managed_migrate(const void* owner, const UVM_MIGRATE_PARAMS& p) {
  const bool to_cpu = is_cpu(p.destinationUuid);
  const int gpu = to_cpu ? -1 : nv_gpu_by_uuid(p.destinationUuid.uuid);
  if (!to_cpu && gpu < 0) return NV_ERR_INVALID_DEVICE;
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  ManagedRange* r = range_of(m, owner, p.base, p.length);
  if (r == nullptr) return NV_ERR_INVALID_ADDRESS;
  const Residency to = to_cpu ? Residency::Cpu : Residency::Gpu;
  const size_t first = (p.base - r->base) / kBlock, last = (p.base + p.length - 1 - r->base) / kBlock;
  uint64_t moved = 0, populated = 0;
  for (size_t i = first; i <= last; ++i) {
    if (r->blocks[i] == to) continue;
    (r->blocks[i] == Residency::None ? populated : moved) += block_pages(*r, i);
    migrate_block(m, *r, i, to);
  }
  const std::string dest = to_cpu ? "host" : gpu_name(r->gpu), src = to_cpu ? gpu_name(r->gpu) : "host";
  trace::note(trace::Layer::Uvm, "uvm: migrate {:#x}..+{:#x}: populate {} pages on {}, migrate {} pages {}->{}", p.base,
              p.length, populated, dest, moved, src, dest);
  return NV_OK;
}

NV_STATUS uvm_managed_policy(const void* owner, uint64_t request, const void* arg) {
  // Every policy argument starts with {requestedBase, length}.
  uint64_t base = 0, length = 0;
  std::memcpy(&base, arg, 8);
  std::memcpy(&length, static_cast<const char*>(arg) + 8, 8);
  int processor = -2;
  if (request == UVM_SET_PREFERRED_LOCATION || request == UVM_SET_ACCESSED_BY || request == UVM_UNSET_ACCESSED_BY) {
    const auto& uuid = *reinterpret_cast<const NvProcessorUuid*>(static_cast<const char*>(arg) + 16);
    processor = processor_of(uuid);
    if (processor == -1 && !is_cpu(uuid)) return NV_ERR_INVALID_DEVICE;
  }
  Managed& m = managed();
  std::lock_guard lock(m.mutex);
  ManagedRange* r = range_of(m, owner, base, length);
  if (r == nullptr) return NV_ERR_INVALID_ADDRESS;
  switch (request) {
    case UVM_SET_PREFERRED_LOCATION: r->preferred = processor; break;
    case UVM_UNSET_PREFERRED_LOCATION: r->preferred = -2; break;
    case UVM_ENABLE_READ_DUPLICATION: r->read_duplication = true; break;
    case UVM_DISABLE_READ_DUPLICATION: r->read_duplication = false; break;
    case UVM_SET_ACCESSED_BY:
      if (std::find(r->accessed_by.begin(), r->accessed_by.end(), processor) == r->accessed_by.end())
        r->accessed_by.push_back(processor);
      break;
    case UVM_UNSET_ACCESSED_BY: std::erase(r->accessed_by, processor); break;
    default: return NV_ERR_NOT_SUPPORTED;
  }
  return NV_OK;
}

void uvm_managed_init() {
  gpu::set_replayable_fault_isr(replayable_fault_isr);
  gpu::set_grid_activity_hook(grid_activity);
  struct sigaction action {};
  action.sa_sigaction = on_cpu_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
}

}  // namespace minicuda::nvidia
