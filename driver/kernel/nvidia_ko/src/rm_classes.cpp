// What allocating each RM class does, and where each may live in the tree.
//
// The legal parents follow the open driver's resource_list.h. Classes minicuda does not model
// are not in the table, so allocating them fails with NV_ERR_INVALID_CLASS, as RM answers for
// a class the GPU does not support.
#include <sys/mman.h>
#include <unistd.h>

#include "minicuda/trace.h"
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {

std::string mib(uint64_t bytes) {
  if (bytes % (1ull << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} B", bytes);
}

// NV01_DEVICE_0: the GPU as a whole. deviceId is the device instance from GPU_GET_ID_INFO_V2
// (rm_alloc checked it and set object.gpu from it).
NV_STATUS construct_device(RmClient& client, RmObject& object, void*) {
  for (const auto& [h, o] : client.objects) {
    if (o.hclass == NV01_DEVICE_0 && o.gpu == object.gpu) return NV_ERR_STATE_IN_USE;  // one per GPU per client
  }
  return NV_OK;
}

// NV20_SUBDEVICE_0: one GPU of the device (SLI had several; always 0 here).
NV_STATUS construct_subdevice(RmClient&, RmObject&, void* params) {
  auto* p = static_cast<NV2080_ALLOC_PARAMETERS*>(params);
  if (p && p->subDeviceId != 0) return NV_ERR_INVALID_ARGUMENT;
  return NV_OK;
}

// The UVA windows the GPU's VA spaces use; guarded by nv_lock(). Every simulated process has a
// VA space of its own, but they all live in one host process, so each takes a window no other
// live VA space has: the MMU's first window (0x58...), then further ones it reserves on demand.
std::map<uint64_t, bool>& windows_in_use(int gpu) {
  static auto* windows = new std::map<int, std::map<uint64_t, bool>>;  // never destroyed (see nv_lock)
  return (*windows)[gpu];
}

// FERMI_VASPACE_A: a GPU virtual address space. Its range is a UVA window of the device's MMU,
// reserved in the host; the page table is the device's.
NV_STATUS construct_vaspace(RmClient&, RmObject& object, void* params) {
  gpu::Mmu& mmu = nv_device().mmu();
  auto& windows = windows_in_use(object.gpu);
  windows.try_emplace(mmu.uva_base(), false);
  uint64_t base = 0;
  for (auto& [window, used] : windows) {
    if (!used) {
      base = window;
      break;
    }
  }
  if (base == 0) base = mmu.add_window();
  windows[base] = true;
  object.va_base = base;
  object.va_size = mmu.uva_size();
  if (auto* p = static_cast<NV_VASPACE_ALLOCATION_PARAMETERS*>(params)) {
    p->vaBase = object.va_base;
    p->vaSize = object.va_size;
    p->vaStartInternal = object.va_base;
    p->vaLimitInternal = object.va_base + object.va_size - 1;
    p->bigPageSize = static_cast<NvU32>(gpu::kBigPage);
  }
  trace::note(trace::Layer::Nvidia, "{}rm: VA space {:#x}..+{} GiB, big pages 2 MiB", nv_gpu_tag(), object.va_base, object.va_size >> 30);
  return NV_OK;
}

void destruct_vaspace(RmObject& object) { windows_in_use(object.gpu)[object.va_base] = false; }

// guarded by nv_lock(): references on shared video memory, by (GPU, VRAM offset).
std::map<std::pair<int, uint64_t>, int>& vidmem_refs() {
  static auto* refs = new std::map<std::pair<int, uint64_t>, int>;  // never destroyed (see nv_lock)
  return *refs;
}

// NV01_MEMORY_LOCAL_USER: video memory. The PMA picks the VRAM; the GPU VA mapping is made
// later, by nvidia-uvm (UVM_MAP_EXTERNAL_ALLOCATION), as libcuda does it.
NV_STATUS construct_vidmem(RmClient&, RmObject& object, void* params) {
  auto* p = static_cast<NV_MEMORY_ALLOCATION_PARAMS*>(params);
  if (p->size == 0) return NV_ERR_INVALID_ARGUMENT;
  if (p->alignment & (p->alignment - 1)) return NV_ERR_INVALID_ARGUMENT;
  uint64_t size = round_up(p->size, gpu::kBigPage);
  if (size < p->size) return NV_ERR_NO_MEMORY;  // wrapped: larger than any VRAM
  std::optional<uint64_t> offset = nv_pma().alloc(size, p->alignment);
  if (!offset) {
    trace::note(trace::Layer::Nvidia, "{}vidmem: no {} run free (PMA has {} MiB free)", nv_gpu_tag(), mib(size), nv_pma().free_bytes() >> 20);
    return NV_ERR_NO_MEMORY;
  }
  object.size = size;
  object.phys = *offset;
  vidmem_refs()[{object.gpu, *offset}] = 1;
  p->size = size;
  p->offset = *offset;
  p->limit = size - 1;
  p->attr = nv_field_num(NVOS32_ATTR_LOCATION_SHIFT, NVOS32_ATTR_LOCATION_MASK, NVOS32_ATTR_LOCATION_VIDMEM) |
            nv_field_num(NVOS32_ATTR_PAGE_SIZE_SHIFT, NVOS32_ATTR_PAGE_SIZE_MASK, NVOS32_ATTR_PAGE_SIZE_HUGE);
  trace::note(trace::Layer::Nvidia, "{}vidmem: {} at VRAM+{:#x} (PMA: {} MiB free)", nv_gpu_tag(), mib(size), *offset,
              nv_pma().free_bytes() >> 20);
  return NV_OK;
}

void destruct_vidmem(RmObject& object) {
  uvm_memory_freed(object);
  vidmem_unref(object.gpu, object.phys, object.size);
}

// NV01_MEMORY_SYSTEM: system memory RM allocates itself (pushbuffers, semaphores); a process
// reaches it through RM_MAP_MEMORY + mmap of /dev/nvidiactl.
NV_STATUS construct_sysmem(RmClient&, RmObject& object, void* params) {
  auto* p = static_cast<NV_MEMORY_ALLOCATION_PARAMS*>(params);
  if (p->size == 0 || p->size > (64ull << 30)) return p->size == 0 ? NV_ERR_INVALID_ARGUMENT : NV_ERR_NO_MEMORY;
  uint64_t size = round_up(p->size, kernel::kPageSize);
  int fd = memfd_create("minicuda-sysmem", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0) {
    if (fd >= 0) close(fd);
    return NV_ERR_NO_MEMORY;
  }
  object.size = size;
  object.memfd = fd;
  p->size = size;
  p->limit = size - 1;
  trace::note(trace::Layer::Nvidia, "sysmem: {} B of system pages", size);
  return NV_OK;
}

void destruct_sysmem(RmObject& object) {
  uvm_memory_freed(object);
  if (object.memfd >= 0) close(object.memfd);
}

// NV01_MEMORY_SYSTEM_OS_DESCRIPTOR: user pages described to RM (made by RM_ALLOC_MEMORY only).
void destruct_os_descriptor(RmObject& object) {
  uvm_memory_freed(object);
  if (object.process) object.process->mm().set_pinned(object.phys, object.size, false);
}

const std::vector<RmClass>& table() {
  static const std::vector<RmClass> classes = {
      {NV01_DEVICE_0, {NV01_ROOT_CLIENT}, sizeof(NV0080_ALLOC_PARAMETERS), false, construct_device, nullptr},
      {NV20_SUBDEVICE_0, {NV01_DEVICE_0}, sizeof(NV2080_ALLOC_PARAMETERS), false, construct_subdevice, nullptr},
      {FERMI_VASPACE_A, {NV01_DEVICE_0, NV20_SUBDEVICE_0}, sizeof(NV_VASPACE_ALLOCATION_PARAMETERS), false,
       construct_vaspace, destruct_vaspace},
      {NV01_MEMORY_LOCAL_USER, {NV01_DEVICE_0, NV20_SUBDEVICE_0}, sizeof(NV_MEMORY_ALLOCATION_PARAMS), true,
       construct_vidmem, destruct_vidmem},
      {NV01_MEMORY_SYSTEM, {NV01_DEVICE_0}, sizeof(NV_MEMORY_ALLOCATION_PARAMS), true, construct_sysmem,
       destruct_sysmem},
      // Work submission (rm_channel.cpp).
      {KEPLER_CHANNEL_GROUP_A, {NV01_DEVICE_0}, sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS), false,
       construct_channel_group, nullptr},
      {FERMI_CONTEXT_SHARE_A, {KEPLER_CHANNEL_GROUP_A}, sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS), false,
       construct_context_share, nullptr},
      {HOPPER_CHANNEL_GPFIFO_A, {KEPLER_CHANNEL_GROUP_A}, sizeof(NV_CHANNEL_ALLOC_PARAMS), true, construct_channel,
       destruct_channel},
      {HOPPER_COMPUTE_A, {HOPPER_CHANNEL_GPFIFO_A}, sizeof(NV_GR_ALLOCATION_PARAMETERS), false,
       construct_engine_object, nullptr},
      {HOPPER_DMA_COPY_A, {HOPPER_CHANNEL_GPFIFO_A}, sizeof(NVB0B5_ALLOCATION_PARAMETERS), false,
       construct_engine_object, nullptr},
      {HOPPER_USERMODE_A, {NV20_SUBDEVICE_0}, sizeof(NV_HOPPER_USERMODE_A_PARAMS), false, construct_usermode,
       destruct_usermode},
      // Only through NV_ESC_RM_ALLOC_MEMORY (rm_alloc_os_descriptor); RM_ALLOC refuses it.
      {NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, {NV01_DEVICE_0}, 0, false, nullptr, destruct_os_descriptor},
  };
  return classes;
}

}  // namespace

void vidmem_ref(int gpu, uint64_t phys) { ++vidmem_refs()[{gpu, phys}]; }

void vidmem_unref(int gpu, uint64_t phys, uint64_t size) {
  auto it = vidmem_refs().find({gpu, phys});
  if (it != vidmem_refs().end() && --it->second > 0) return;
  if (it != vidmem_refs().end()) vidmem_refs().erase(it);
  nv_select_gpu(gpu);
  nv_pma().free(phys, size);
}

const RmClass* rm_class(NvU32 hclass) {
  for (const RmClass& c : table()) {
    if (c.hclass == hclass) return &c;
  }
  return nullptr;
}

NV_STATUS rm_alloc_os_descriptor(kernel::File* file, NVOS02_PARAMETERS* p) {
  if (p->hClass != NV01_MEMORY_SYSTEM_OS_DESCRIPTOR) return NV_ERR_INVALID_CLASS;
  uint64_t addr = p->pMemory;
  uint64_t size = p->limit + 1;
  if (p->limit == ~0ull || addr % kernel::kPageSize != 0) return NV_ERR_INVALID_ADDRESS;
  size = round_up(size, kernel::kPageSize);
  // The pages must be the caller's: mapped, readable and writable.
  // The pages are those of the process the control file belongs to.
  if (file->process == nullptr) return NV_ERR_INVALID_ARGUMENT;
  kernel::AddressSpace& mm = file->process->mm();
  if (!mm.is_mapped(addr, size, kernel::kProtRead | kernel::kProtWrite)) return NV_ERR_INVALID_ADDRESS;
  RmClient* client = rm_client(file, p->hRoot);
  if (!client) return NV_ERR_INVALID_CLIENT;
  auto parent = client->objects.find(p->hObjectParent);
  if (parent == client->objects.end()) return NV_ERR_INVALID_OBJECT_PARENT;
  if (parent->second.hclass != NV01_DEVICE_0) return NV_ERR_INVALID_OBJECT_PARENT;
  NvHandle handle = p->hObjectNew;
  if (handle == 0 || client->objects.count(handle)) return NV_ERR_INVALID_OBJECT_NEW;
  if (!mm.set_pinned(addr, size, true)) return NV_ERR_INVALID_ADDRESS;
  RmObject object;
  object.handle = handle;
  object.hclass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
  object.parent = p->hObjectParent;
  object.size = size;
  object.phys = addr;
  object.process = file->process;
  object.gpu = parent->second.gpu;
  client->objects[handle] = object;
  parent->second.children.push_back(handle);
  trace::note(trace::Layer::Nvidia, "os descriptor: pin {} pages at {:#x}", size / kernel::kPageSize, addr);
  return NV_OK;
}

}  // namespace minicuda::nvidia
