// nvidia-uvm.ko: /dev/nvidia-uvm, the unified-memory driver, as far as cudaMalloc needs it.
//
// libcuda opens the node twice (UVM_INITIALIZE on the first fd, UVM_MM_INITIALIZE on the second),
// registers the GPU and its VA space, and then, for every vidmem or pinned allocation:
//   UVM_CREATE_EXTERNAL_RANGE {base, length}   reserve [base, base+length) in this VA space
//   UVM_MAP_EXTERNAL_ALLOCATION {base, length, offset, rmCtrlFd, hClient, hMemory}
//                                              write GPU page-table entries for the RM object
//                                              (another GPU's vidmem: Peer PTEs, see below)
//   UVM_UNMAP_EXTERNAL {base, length, gpuUuid}  take the PTEs away, keep the range (cuMemSetAccess)
//   UVM_FREE {base}                            unmap and forget the range
// and, for managed memory (cudaMallocManaged; uvm_managed.cpp):
//   mmap(uvm fd)                               a managed range, no page resident anywhere
//   UVM_MIGRATE {base, length, destination}    move its pages (cudaMemPrefetchAsync)
//   UVM_SET_PREFERRED_LOCATION ... UVM_UNSET_ACCESSED_BY   its policy (cudaMemAdvise)
//   UVM_FREE {base}                            release its pages wherever they are
// UVM request numbers are raw integers, not _IOC-encoded, so the table here carries the
// argument size; every argument ends with an rmStatus the handler fills. Before UVM_INITIALIZE
// every other call answers NV_ERR_ILLEGAL_ACTION.
#include <cstring>
#include <set>

#include "minicuda/fault.h"
#include "minicuda/trace.h"
#include "nv_internal.h"
#include "uvm_managed.h"

namespace minicuda::nvidia {

namespace {

struct UvmMapping {
  uint64_t va = 0, length = 0;
  const RmObject* memory = nullptr;  // the RM object whose pages are mapped
  // RM system memory: the process whose mapping of it the GPU reaches (pinned while mapped).
  kernel::Process* pinned_in = nullptr;
  int gpu = 0;  // whose page table holds it
  // Vidmem of another GPU than `gpu` (a peer mapping) whose pages reach the host through the
  // owning GPU's mapping of the same range, so it must go before that one does. A peer mapping
  // made where the owner maps nothing carries its own host view and is not marked.
  bool peer = false;
};

// Takes one mapping off the GPU: PTEs first, then the pin that kept its host pages.
void drop_mapping(const UvmMapping& m) {
  nv_device(m.gpu).mmu().unmap(m.va, m.length);
  if (m.pinned_in) m.pinned_in->mm().set_pinned(m.va, m.length, false);
}

struct UvmRange {
  uint64_t base = 0, length = 0;
  std::vector<UvmMapping> mappings;
};

// Drops the mappings of `maps` that `gone` selects, peer mappings first: a peer's PTEs never
// outlive the owner's mapping they reach the pages through.
template <typename Pred>
void drop_mappings(std::vector<UvmMapping>& maps, Pred gone) {
  for (bool peers : {true, false}) {
    for (auto m = maps.begin(); m != maps.end();) {
      if (m->peer == peers && gone(*m)) {
        drop_mapping(*m);
        m = maps.erase(m);
      } else {
        ++m;
      }
    }
  }
}

// file.private_data of /dev/nvidia-uvm (uvm_va_space_t).
struct UvmFile {
  bool initialized = false;
  NvU64 flags = 0;
  bool mm_file = false;          // the second fd, bound by UVM_MM_INITIALIZE
  bool gpu_registered = false;
  bool vaspace_registered = false;
  std::map<uint64_t, UvmRange> ranges;  // by base
};

// guarded by nv_lock()
std::set<UvmFile*>& uvm_files() {
  static auto* files = new std::set<UvmFile*>;  // never destroyed: the GPU thread may outlive statics
  return *files;
}

UvmFile& ufile(kernel::File& f) { return *static_cast<UvmFile*>(f.private_data); }

bool known_uuid(const NvProcessorUuid& u) { return nv_gpu_by_uuid(u.uuid) >= 0; }

kernel::File* ctl_of_fd(int fd) {
  std::shared_ptr<kernel::File> f = kernel::current().file(fd);
  if (!f || f->fops == nullptr || std::strcmp(f->fops->name, "nvidia") != 0 || f->minor != 255) return nullptr;
  return f.get();
}

void unmap_range(UvmRange& range) {
  drop_mappings(range.mappings, [](const UvmMapping&) { return true; });
}

// Maps RM vidmem of GPU mem.gpu into the page table of another GPU (cuMemSetAccess for a peer,
// or the pool access of cuMemPoolSetAccess): Peer PTEs at the address the owner maps it at. Where
// the owner maps the whole span in this range, the host reaches the pages through the owner's
// mapping; where it does not (a VMM range whose chunk lives on a GPU that is given no access), the
// peer's page table maps the host view itself, and drops it with the PTEs.
NV_STATUS map_peer(UvmRange& range, const UVM_MAP_EXTERNAL_ALLOCATION_PARAMS& p, const RmObject& mem, int gpu,
                   bool writable) {
  bool owner_mapped = false;
  for (const UvmMapping& m : range.mappings)
    if (!m.peer && m.memory == &mem && m.gpu == mem.gpu && m.va <= p.base && p.base + p.length <= m.va + m.length)
      owner_mapped = true;
  trace::note(trace::Layer::Uvm, "uvm: peer mapping: gpu{} reaches gpu{}'s vidmem at {:#x}..+{:#x}{}{}", gpu, mem.gpu,
              p.base, p.length, writable ? "" : ", read-only", owner_mapped ? "" : " (gpu" + std::to_string(mem.gpu) +
              " maps none of it: this mapping gives the host its view)");
  gpu::Vram* host_view = owner_mapped ? nullptr : &nv_device(mem.gpu).vram();
  if (!nv_device(gpu).mmu().map_peer(p.base, mem.gpu, mem.phys + p.offset, p.length, writable, host_view))
    return NV_ERR_INVALID_ADDRESS;
  range.mappings.push_back(UvmMapping{p.base, p.length, &mem, nullptr, gpu, owner_mapped});
  return NV_OK;
}

// --- handlers: each fills the params' rmStatus ----------------------------------------------

NV_STATUS initialize(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_INITIALIZE_PARAMS*>(arg);
  if (u.initialized) return p->flags == u.flags ? NV_OK : NV_ERR_INVALID_ARGUMENT;
  if (u.mm_file) return NV_ERR_ILLEGAL_ACTION;
  u.initialized = true;
  u.flags = p->flags;
  return NV_OK;
}

NV_STATUS mm_initialize(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_MM_INITIALIZE_PARAMS*>(arg);
  std::shared_ptr<kernel::File> f = kernel::current().file(p->uvmFd);
  if (u.initialized || u.mm_file) return NV_ERR_INVALID_STATE;
  if (!f || f->fops == nullptr || std::strcmp(f->fops->name, "nvidia-uvm") != 0) return NV_ERR_INVALID_ARGUMENT;
  if (!ufile(*f).initialized) return NV_ERR_INVALID_ARGUMENT;
  u.mm_file = true;
  return NV_OK;
}

NV_STATUS pageable_mem_access(UvmFile&, void* arg) {
  static_cast<UVM_PAGEABLE_MEM_ACCESS_PARAMS*>(arg)->pageableMemAccess = NV_FALSE;  // no HMM/ATS
  return NV_OK;
}

NV_STATUS register_gpu(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_REGISTER_GPU_PARAMS*>(arg);
  if (!known_uuid(p->gpu_uuid)) return NV_ERR_GPU_UUID_NOT_FOUND;
  kernel::File* ctl = ctl_of_fd(p->rmCtrlFd);
  if (!ctl || !rm_client(ctl, p->hClient)) return NV_ERR_INVALID_CLIENT;
  if (u.gpu_registered) return NV_ERR_INVALID_DEVICE;
  u.gpu_registered = true;
  p->numaEnabled = NV_FALSE;
  p->numaNodeId = -1;
  return NV_OK;
}

NV_STATUS register_gpu_vaspace(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_REGISTER_GPU_VASPACE_PARAMS*>(arg);
  if (!known_uuid(p->gpuUuid) || !u.gpu_registered) return NV_ERR_INVALID_DEVICE;
  kernel::File* ctl = ctl_of_fd(p->rmCtrlFd);
  RmClient* client = ctl ? rm_client(ctl, p->hClient) : nullptr;
  if (!client) return NV_ERR_INVALID_CLIENT;
  auto it = client->objects.find(p->hVaSpace);
  if (it == client->objects.end() || it->second.hclass != FERMI_VASPACE_A) return NV_ERR_OBJECT_NOT_FOUND;
  if (u.vaspace_registered) return NV_ERR_INVALID_DEVICE;
  u.vaspace_registered = true;
  return NV_OK;
}

NV_STATUS create_external_range(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_CREATE_EXTERNAL_RANGE_PARAMS*>(arg);
  if (p->length == 0 || p->base % kernel::kPageSize || p->length % kernel::kPageSize || p->base + p->length < p->base) {
    return NV_ERR_INVALID_ADDRESS;
  }
  auto next = u.ranges.lower_bound(p->base);
  if (next != u.ranges.end() && next->first < p->base + p->length) return NV_ERR_UVM_ADDRESS_IN_USE;
  if (next != u.ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.length > p->base) return NV_ERR_UVM_ADDRESS_IN_USE;
  }
  u.ranges[p->base] = UvmRange{p->base, p->length, {}};
  return NV_OK;
}

NV_STATUS map_external_allocation(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_MAP_EXTERNAL_ALLOCATION_PARAMS*>(arg);
  auto it = u.ranges.upper_bound(p->base);
  if (it == u.ranges.begin()) return NV_ERR_INVALID_ADDRESS;
  UvmRange& range = std::prev(it)->second;
  if (p->length == 0 || p->base + p->length > range.base + range.length || p->base + p->length < p->base) {
    return NV_ERR_INVALID_ADDRESS;
  }
  if (p->gpuAttributesCount == 0 || p->gpuAttributesCount > UVM_MAX_GPUS) return NV_ERR_INVALID_ARGUMENT;
  for (NvU64 i = 0; i < p->gpuAttributesCount; ++i) {
    if (!known_uuid(p->perGpuAttributes[i].gpuUuid) || !u.vaspace_registered) return NV_ERR_INVALID_DEVICE;
  }
  // The mapping goes into the page table of the first GPU named (libcuda names one).
  const int gpu = nv_gpu_by_uuid(p->perGpuAttributes[0].gpuUuid.uuid);
  nv_select_gpu(gpu);
  kernel::File* ctl = ctl_of_fd(p->rmCtrlFd);
  if (!ctl || !rm_client(ctl, p->hClient)) return NV_ERR_INVALID_CLIENT;
  const RmObject* mem = rm_memory(ctl, p->hClient, p->hMemory);
  if (!mem) return NV_ERR_OBJECT_NOT_FOUND;
  if (p->offset + p->length > mem->size || p->offset + p->length < p->offset) return NV_ERR_INVALID_LIMIT;
  bool writable = p->perGpuAttributes[0].gpuMappingType != UvmGpuMappingTypeReadOnly;
  if (mem->hclass == NV01_MEMORY_LOCAL_USER && mem->gpu != gpu) return map_peer(range, *p, *mem, gpu, writable);
  gpu::Mmu& mmu = nv_device().mmu();
  bool ok = false;
  kernel::Process* pinned_in = nullptr;
  if (mem->hclass == NV01_MEMORY_LOCAL_USER) {
    ok = mmu.map_vidmem(p->base, mem->phys + p->offset, p->length, writable);
  } else if (mem->hclass == NV01_MEMORY_SYSTEM_OS_DESCRIPTOR) {
    // Pinned user pages: the GPU sees them at the address the process sees them (UVA).
    if (p->base != mem->phys + p->offset) return NV_ERR_INVALID_ADDRESS;
    ok = mmu.map_sysmem(p->base, p->length, writable);
  } else {
    // RM's system memory: the GPU sees it where the process mmapped it (UVA), so it must be
    // CPU-mapped first (RM_MAP_MEMORY + mmap of /dev/nvidiactl). Those host pages are what the
    // GPU reaches, so they are pinned: a munmap() by the process leaves them to the GPU.
    if (mem->cpu_va == 0 || p->base != mem->cpu_va + p->offset) return NV_ERR_INVALID_ADDRESS;
    if (ctl->process == nullptr || !ctl->process->mm().set_pinned(p->base, p->length, true)) {
      return NV_ERR_INVALID_ADDRESS;
    }
    pinned_in = ctl->process;
    ok = mmu.map_sysmem(p->base, p->length, writable);
    if (!ok) ctl->process->mm().set_pinned(p->base, p->length, false);
  }
  if (!ok) return NV_ERR_INVALID_ADDRESS;
  range.mappings.push_back(UvmMapping{p->base, p->length, mem, pinned_in, gpu});
  return NV_OK;
}

NV_STATUS free_range(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_FREE_PARAMS*>(arg);
  if (uvm_managed_free(&u, p->base)) return NV_OK;
  auto it = u.ranges.find(p->base);
  if (it == u.ranges.end()) return NV_ERR_INVALID_ADDRESS;
  unmap_range(it->second);
  u.ranges.erase(it);
  return NV_OK;
}

// UVM_UNMAP_EXTERNAL: takes the GPU's page-table entries of [base, base + length) away and keeps
// the range (cuMemSetAccess to PROT_NONE, or before new access rights). Each mapping it touches
// must lie inside it whole; the range must be one of UVM_CREATE_EXTERNAL_RANGE.
NV_STATUS unmap_external(UvmFile& u, void* arg) {
  auto* p = static_cast<UVM_UNMAP_EXTERNAL_PARAMS*>(arg);
  if (!known_uuid(p->gpuUuid)) return NV_ERR_INVALID_DEVICE;
  auto it = u.ranges.upper_bound(p->base);
  if (it == u.ranges.begin()) return NV_ERR_INVALID_ADDRESS;
  UvmRange& range = std::prev(it)->second;
  if (p->length == 0 || p->base + p->length < p->base || p->base + p->length > range.base + range.length)
    return NV_ERR_INVALID_ADDRESS;
  const int gpu = nv_gpu_by_uuid(p->gpuUuid.uuid);
  const uint64_t end = p->base + p->length;
  for (const UvmMapping& m : range.mappings) {
    bool overlaps = m.va < end && p->base < m.va + m.length;
    if (m.gpu == gpu && overlaps && (m.va < p->base || m.va + m.length > end)) return NV_ERR_INVALID_ADDRESS;
  }
  // The owner's mappings taken away take the peer mappings that reach pages through them along.
  std::set<const RmObject*> owner_gone;
  for (const UvmMapping& m : range.mappings)
    if (m.gpu == gpu && m.memory->gpu == gpu && !m.peer && m.va >= p->base && m.va + m.length <= end)
      owner_gone.insert(m.memory);
  drop_mappings(range.mappings, [&](const UvmMapping& m) {
    const bool selected = m.gpu == gpu && m.va >= p->base && m.va + m.length <= end;
    return selected || (m.peer && owner_gone.count(m.memory) != 0);
  });
  return NV_OK;
}

NV_STATUS migrate(UvmFile& u, void* arg) { return uvm_managed_migrate(&u, *static_cast<UVM_MIGRATE_PARAMS*>(arg)); }

// The policy ioctls of cudaMemAdvise: one handler, told apart by the request.
template <uint64_t kRequest>
NV_STATUS policy(UvmFile& u, void* arg) {
  return uvm_managed_policy(&u, kRequest, arg);
}

struct UvmIoctl {
  uint64_t request;
  uint32_t size;
  int status_offset;
  bool needs_init;
  NV_STATUS (*handler)(UvmFile& u, void* arg);
};

#define UVM_ROW(name, type, init, fn) {name, sizeof(type), offsetof(type, rmStatus), init, fn}
const UvmIoctl kUvmIoctls[] = {
    UVM_ROW(UVM_INITIALIZE, UVM_INITIALIZE_PARAMS, false, initialize),
    UVM_ROW(UVM_MM_INITIALIZE, UVM_MM_INITIALIZE_PARAMS, false, mm_initialize),
    UVM_ROW(UVM_PAGEABLE_MEM_ACCESS, UVM_PAGEABLE_MEM_ACCESS_PARAMS, true, pageable_mem_access),
    UVM_ROW(UVM_REGISTER_GPU, UVM_REGISTER_GPU_PARAMS, true, register_gpu),
    UVM_ROW(UVM_REGISTER_GPU_VASPACE, UVM_REGISTER_GPU_VASPACE_PARAMS, true, register_gpu_vaspace),
    UVM_ROW(UVM_CREATE_EXTERNAL_RANGE, UVM_CREATE_EXTERNAL_RANGE_PARAMS, true, create_external_range),
    UVM_ROW(UVM_MAP_EXTERNAL_ALLOCATION, UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, true, map_external_allocation),
    UVM_ROW(UVM_FREE, UVM_FREE_PARAMS, true, free_range),
    UVM_ROW(UVM_UNMAP_EXTERNAL, UVM_UNMAP_EXTERNAL_PARAMS, true, unmap_external),
    UVM_ROW(UVM_MIGRATE, UVM_MIGRATE_PARAMS, true, migrate),
    UVM_ROW(UVM_SET_PREFERRED_LOCATION, UVM_SET_PREFERRED_LOCATION_PARAMS, true, policy<UVM_SET_PREFERRED_LOCATION>),
    UVM_ROW(UVM_UNSET_PREFERRED_LOCATION, UVM_UNSET_PREFERRED_LOCATION_PARAMS, true,
            policy<UVM_UNSET_PREFERRED_LOCATION>),
    UVM_ROW(UVM_ENABLE_READ_DUPLICATION, UVM_ENABLE_READ_DUPLICATION_PARAMS, true, policy<UVM_ENABLE_READ_DUPLICATION>),
    UVM_ROW(UVM_DISABLE_READ_DUPLICATION, UVM_DISABLE_READ_DUPLICATION_PARAMS, true,
            policy<UVM_DISABLE_READ_DUPLICATION>),
    UVM_ROW(UVM_SET_ACCESSED_BY, UVM_SET_ACCESSED_BY_PARAMS, true, policy<UVM_SET_ACCESSED_BY>),
    UVM_ROW(UVM_UNSET_ACCESSED_BY, UVM_UNSET_ACCESSED_BY_PARAMS, true, policy<UVM_UNSET_ACCESSED_BY>),
};
#undef UVM_ROW

std::string describe(uint64_t request, const void* arg) {
  switch (request) {
    case UVM_CREATE_EXTERNAL_RANGE: {
      auto* p = static_cast<const UVM_CREATE_EXTERNAL_RANGE_PARAMS*>(arg);
      return fmt::format("base={:#x}, length={:#x}", p->base, p->length);
    }
    case UVM_MAP_EXTERNAL_ALLOCATION: {
      auto* p = static_cast<const UVM_MAP_EXTERNAL_ALLOCATION_PARAMS*>(arg);
      return fmt::format("base={:#x}, length={:#x}, offset={:#x}, hClient={}, hMemory={}", p->base, p->length,
                         p->offset, hstr(p->hClient), hstr(p->hMemory));
    }
    case UVM_FREE: return fmt::format("base={:#x}", static_cast<const UVM_FREE_PARAMS*>(arg)->base);
    case UVM_UNMAP_EXTERNAL: {
      auto* p = static_cast<const UVM_UNMAP_EXTERNAL_PARAMS*>(arg);
      return fmt::format("base={:#x}, length={:#x}", p->base, p->length);
    }
    case UVM_MIGRATE: {
      auto* p = static_cast<const UVM_MIGRATE_PARAMS*>(arg);
      const int gpu = nv_gpu_by_uuid(p->destinationUuid.uuid);
      return fmt::format("base={:#x}, length={:#x}, destination={}", p->base, p->length,
                         gpu >= 0 ? fmt::format("gpu{}", gpu) : std::string("cpu"));
    }
    case UVM_SET_PREFERRED_LOCATION:
    case UVM_UNSET_PREFERRED_LOCATION:
    case UVM_ENABLE_READ_DUPLICATION:
    case UVM_DISABLE_READ_DUPLICATION:
    case UVM_SET_ACCESSED_BY:
    case UVM_UNSET_ACCESSED_BY: {
      auto* p = static_cast<const UVM_UNSET_PREFERRED_LOCATION_PARAMS*>(arg);
      return fmt::format("requestedBase={:#x}, length={:#x}", p->requestedBase, p->length);
    }
    default: return "";
  }
}

long uvm_open(kernel::File& file) {
  std::lock_guard lock(nv_lock());
  auto* u = new UvmFile;
  file.private_data = u;
  uvm_files().insert(u);
  return 0;
}

void uvm_release(kernel::File& file) {
  std::lock_guard lock(nv_lock());
  auto* u = static_cast<UvmFile*>(file.private_data);
  uvm_managed_release(u);
  for (auto& [base, range] : u->ranges) unmap_range(range);
  uvm_files().erase(u);
  delete u;
}

// Contract: the nvidia-uvm ioctl entry (uvm_unlocked_ioctl). Returns 0 with rmStatus filled,
// -EINVAL for an unknown request (as the real UVM does), -EFAULT for an unreadable argument.
long uvm_ioctl(kernel::File& file, unsigned long request, void* user_arg) {
  const UvmIoctl* entry = nullptr;
  for (const UvmIoctl& e : kUvmIoctls) {
    if (e.request == request) entry = &e;
  }
  if (!entry) {
    trace::note(trace::Layer::Uvm, "uvm: unknown ioctl {:#x}: -EINVAL", request);
    return -kernel::kEINVAL;
  }
  std::vector<unsigned char> arg(entry->size);
  if (kernel::copy_from_user(arg.data(), user_arg, arg.size()) != 0) return -kernel::kEFAULT;
  std::lock_guard lock(nv_lock());
  UvmFile& u = ufile(file);
  trace::Scope scope(trace::Layer::Uvm, "{}({})", uvm_ioctl_name(request), describe(request, arg.data()));
  NV_STATUS status = NV_OK;
  if (const auto injected = fault::ioctl_status(uvm_ioctl_name(request))) {
    // Fault injection (MINICUDA_FAULT ioctl:NAME@N=NV_ERR_X): the handler does not run.
    trace::note(trace::Layer::Uvm, "fault injection ({}): {}", fault::last_rule(), nv_status_name(*injected));
    status = *injected;
  } else {
    status = (entry->needs_init && !u.initialized) ? NV_ERR_ILLEGAL_ACTION : entry->handler(u, arg.data());
  }
  std::memcpy(arg.data() + entry->status_offset, &status, sizeof status);
  scope.result("{}", nv_status_name(status));
  if (kernel::copy_to_user(user_arg, arg.data(), arg.size()) != 0) return -kernel::kEFAULT;
  return 0;
}

const char* uvm_name(unsigned long request) { return uvm_ioctl_name(request); }

// Contract: mmap() of a uvm fd (uvm_mmap) creates a managed range there (cudaMallocManaged).
// -EBADFD before UVM_INITIALIZE, -EINVAL for a mapping that is not read-write, -ENOMEM when
// there is no VRAM for it.
long uvm_mmap(kernel::File& file, kernel::Vma& vma) {
  std::lock_guard lock(nv_lock());
  UvmFile& u = ufile(file);
  if (!u.initialized) return -kernel::kEBADFD;
  return uvm_managed_mmap(&u, vma);
}

const kernel::FileOperations kUvmFops = {"nvidia-uvm", uvm_open, uvm_release, uvm_ioctl, uvm_mmap, uvm_name, nullptr};

}  // namespace

void uvm_memory_freed(const RmObject& memory) {
  // RM is freeing an object UVM may still map (a process that frees before UVM_FREE, or exits):
  // drop those PTEs so the GPU can never reach the released pages.
  for (UvmFile* u : uvm_files()) {
    for (auto& [base, range] : u->ranges)
      drop_mappings(range.mappings, [&](const UvmMapping& m) { return m.memory == &memory; });
  }
}

void uvm_register_device() {
  kernel::register_chrdev("/dev/nvidia-uvm", 511, 0, &kUvmFops);
  uvm_managed_init();
}

}  // namespace minicuda::nvidia

namespace minicuda::kernel {
void nvidia_uvm_module_init() { nvidia::uvm_register_device(); }
}  // namespace minicuda::kernel
