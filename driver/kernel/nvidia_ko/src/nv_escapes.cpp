// The escape handlers of nvidia.ko: the RM object calls (alloc, free, control, alloc-memory,
// CPU mappings) and the nv-level escapes (card info, sys params, register fd).
//
// Contract shared by all: called by nvidia_ioctl() under nv_lock() with a kernel copy of the
// argument whose size the table already checked; they return 0 with the RM status in the
// argument's status field (NV_OK or the NV_ERR_* named below), or -errno where the escape has no
// status field.
#include <sys/mman.h>

#include <cstring>

#include "minicuda/bus.h"
#include "minicuda/trace.h"
#include "nv_escapes.h"

namespace minicuda::nvidia {

namespace {

constexpr NvU32 kMaxAllocParams = 4096;

std::string cls(NvU32 c) {
  const char* n = nv_class_name(c);
  return n ? std::string(n) : fmt::format("{:#x}", c);
}

NvFile* nv_file_of_fd(int fd, kernel::File** out) {
  std::shared_ptr<kernel::File> f = kernel::current().file(fd);
  if (!f || f->fops == nullptr || std::strcmp(f->fops->name, "nvidia") != 0) return nullptr;
  *out = f.get();
  return static_cast<NvFile*>(f->private_data);
}

// The control file RM calls on this node act for: the node itself, or for /dev/nvidia0 the
// control file registered with NV_ESC_REGISTER_FD.
kernel::File* ctl_file(NvFile& nvf, kernel::File& file) { return nvf.kind == NodeKind::Control ? &file : nvf.ctl; }

}  // namespace

// NV_ESC_RM_ALLOC (NVOS21 or NVOS64): allocate an RM object of hClass under hObjectParent.
// Status: NV_ERR_INVALID_CLIENT (unknown or foreign client), NV_ERR_INVALID_CLASS,
// NV_ERR_INVALID_OBJECT_PARENT (unknown parent or illegal parent class), NV_ERR_INVALID_OBJECT_NEW
// (handle in use), NV_ERR_INVALID_PARAM_STRUCT (wrong paramsSize), NV_ERR_INVALID_ADDRESS (params
// pointer unreadable), NV_ERR_INVALID_FLAGS (reserved NVOS64 flags set), NV_ERR_NO_MEMORY, or the
// class's own errors.
long escape_rm_alloc(NvFile& nvf, kernel::File& file, void* arg, uint32_t size) {
  // NVOS21 and NVOS64 share their first 16 bytes and pAllocParms; the size says which it is.
  auto* p21 = static_cast<NVOS21_PARAMETERS*>(arg);
  auto* p64 = static_cast<NVOS64_PARAMETERS*>(arg);
  bool v64 = size == sizeof(NVOS64_PARAMETERS);
  NvU32 params_size = v64 ? p64->paramsSize : p21->paramsSize;
  NvP64 params_ptr = v64 ? p64->pAllocParms : p21->pAllocParms;
  NV_STATUS* status = v64 ? &p64->status : &p21->status;
  trace::Scope scope(trace::Layer::Nvidia, "rm_alloc(hRoot={}, hParent={}, hObject={}, hClass={}, paramsSize={})",
                     hstr(p21->hRoot), hstr(p21->hObjectParent), hstr(p21->hObjectNew), cls(p21->hClass),
                     params_size);
  auto finish = [&](NV_STATUS s) {
    *status = s;
    scope.result("{}{}", nv_status_name(s), s == NV_OK ? fmt::format(", hObject={}", hstr(p21->hObjectNew)) : "");
    return 0L;
  };
  if (v64 && (p64->flags & ~NVOS64_FLAGS_FINN_SERIALIZED)) return finish(NV_ERR_INVALID_FLAGS);
  kernel::File* ctl = ctl_file(nvf, file);
  if (!ctl) return finish(NV_ERR_INVALID_ARGUMENT);
  if (params_size > kMaxAllocParams || (params_size != 0 && params_ptr == 0)) return finish(NV_ERR_INVALID_PARAM_STRUCT);
  std::vector<unsigned char> params(params_size);
  void* user_params = nv_p64_to_ptr<void>(params_ptr);
  if (params_size && kernel::copy_from_user(params.data(), user_params, params_size) != 0) {
    return finish(NV_ERR_INVALID_ADDRESS);
  }
  NvHandle handle = p21->hObjectNew;
  NV_STATUS s = rm_alloc(ctl, p21->hRoot, p21->hObjectParent, &handle, p21->hClass,
                         params_size ? params.data() : nullptr, params_size);
  if (s == NV_OK) {
    p21->hObjectNew = handle;
    if (params_size && kernel::copy_to_user(user_params, params.data(), params_size) != 0) s = NV_ERR_INVALID_ADDRESS;
  }
  return finish(s);
}

// NV_ESC_RM_FREE (NVOS00): free hObjectOld and its subtree; hObjectOld == hRoot frees the client.
// Status: NV_ERR_INVALID_CLIENT, NV_ERR_INVALID_OBJECT_HANDLE, NV_ERR_INVALID_OBJECT_PARENT.
long escape_rm_free(NvFile& nvf, kernel::File& file, void* arg, uint32_t) {
  auto* p = static_cast<NVOS00_PARAMETERS*>(arg);
  trace::Scope scope(trace::Layer::Nvidia, "rm_free(hRoot={}, hParent={}, hObject={})", hstr(p->hRoot),
                     hstr(p->hObjectParent), hstr(p->hObjectOld));
  p->status = rm_free(ctl_file(nvf, file), p->hRoot, p->hObjectParent, p->hObjectOld);
  scope.result("{}", nv_status_name(p->status));
  return 0;
}

// NV_ESC_RM_CONTROL (NVOS54): run control cmd on hObject (rm_control.cpp lists them).
// Status: NV_ERR_INVALID_FLAGS (reserved flags), NV_ERR_INVALID_CLIENT, NV_ERR_INVALID_OBJECT_HANDLE,
// NV_ERR_NOT_SUPPORTED (cmd unknown or not of the object's class), NV_ERR_INVALID_PARAM_STRUCT
// (paramsSize), NV_ERR_INVALID_ADDRESS (params unreadable), or the control's own errors.
long escape_rm_control(NvFile& nvf, kernel::File& file, void* arg, uint32_t) {
  auto* p = static_cast<NVOS54_PARAMETERS*>(arg);
  const char* name = nv_ctrl_cmd_name(p->cmd);
  trace::Scope scope(trace::Layer::Nvidia, "rm_control(hClient={}, hObject={}, cmd={}, paramsSize={})",
                     hstr(p->hClient), hstr(p->hObject), name ? std::string(name) : fmt::format("{:#x}", p->cmd),
                     p->paramsSize);
  if (p->flags & ~(NVOS54_FLAGS_IRQL_RAISED | NVOS54_FLAGS_LOCK_BYPASS | NVOS54_FLAGS_FINN_SERIALIZED)) {
    p->status = NV_ERR_INVALID_FLAGS;
  } else {
    p->status = rm_control(ctl_file(nvf, file), p);
  }
  scope.result("{}", nv_status_name(p->status));
  return 0;
}

// NV_ESC_RM_ALLOC_MEMORY (on /dev/nvidia0): describe user pages to RM as an
// NV01_MEMORY_SYSTEM_OS_DESCRIPTOR and pin them. Status: NV_ERR_INVALID_ARGUMENT (node not
// registered with a control fd), NV_ERR_INVALID_CLASS, NV_ERR_INVALID_ADDRESS (unaligned, or not
// the caller's read-write pages), NV_ERR_INVALID_CLIENT, NV_ERR_INVALID_OBJECT_PARENT,
// NV_ERR_INVALID_OBJECT_NEW.
long escape_rm_alloc_memory(NvFile& nvf, kernel::File& file, void* arg, uint32_t) {
  auto* w = static_cast<nv_ioctl_nvos02_parameters_with_fd*>(arg);
  NVOS02_PARAMETERS* p = &w->params;
  trace::Scope scope(trace::Layer::Nvidia, "rm_alloc_memory(hRoot={}, hParent={}, hObject={}, hClass={}, pMemory={:#x}, limit={:#x})",
                     hstr(p->hRoot), hstr(p->hObjectParent), hstr(p->hObjectNew), cls(p->hClass), p->pMemory, p->limit);
  kernel::File* ctl = ctl_file(nvf, file);
  p->status = ctl ? rm_alloc_os_descriptor(ctl, p) : NV_ERR_INVALID_ARGUMENT;
  scope.result("{}", nv_status_name(p->status));
  return 0;
}

// NV_ESC_RM_MAP_MEMORY: prepare a CPU mapping of a memory object; the caller then mmap()s the
// node named by `fd` at offset 0. Status: NV_ERR_INVALID_ARGUMENT (fd is not an nvidia node of
// this process), NV_ERR_OBJECT_NOT_FOUND (no such memory object of a client this file owns),
// NV_ERR_INVALID_LIMIT (offset/length outside the object), NV_ERR_NOT_SUPPORTED (OS descriptors:
// their pages are already the process's). Freeing the object before the mmap() drops the
// prepared context (nv_memory_freed), so that mmap() fails with -EINVAL.
long escape_rm_map_memory(NvFile&, kernel::File& file, void* arg, uint32_t) {
  auto* w = static_cast<nv_ioctl_nvos33_parameters_with_fd*>(arg);
  NVOS33_PARAMETERS* p = &w->params;
  trace::Scope scope(trace::Layer::Nvidia, "rm_map_memory(hClient={}, hDevice={}, hMemory={}, offset={:#x}, length={:#x}, fd={})",
                     hstr(p->hClient), hstr(p->hDevice), hstr(p->hMemory), p->offset, p->length, w->fd);
  auto finish = [&](NV_STATUS s) {
    p->status = s;
    scope.result("{}", nv_status_name(s));
    return 0L;
  };
  kernel::File* target = nullptr;
  NvFile* tnvf = nv_file_of_fd(w->fd, &target);
  if (!tnvf) return finish(NV_ERR_INVALID_ARGUMENT);
  RmObject* mem = rm_object(&file, p->hClient, p->hMemory,
                            {NV01_MEMORY_LOCAL_USER, NV01_MEMORY_SYSTEM, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, HOPPER_USERMODE_A});
  if (!mem) return finish(NV_ERR_OBJECT_NOT_FOUND);
  if (mem->hclass == NV01_MEMORY_SYSTEM_OS_DESCRIPTOR) return finish(NV_ERR_NOT_SUPPORTED);
  if (p->length == 0 || p->offset % kernel::kPageSize || p->offset + p->length > mem->size ||
      p->offset + p->length < p->offset) {
    return finish(NV_ERR_INVALID_LIMIT);
  }
  // Vidmem (BAR1) and the usermode registers (BAR0) go through /dev/nvidia0; system memory
  // through /dev/nvidiactl.
  bool through_gpu_node = mem->hclass == NV01_MEMORY_LOCAL_USER || mem->hclass == HOPPER_USERMODE_A;
  if (through_gpu_node != (tnvf->kind == NodeKind::Gpu)) return finish(NV_ERR_INVALID_ARGUMENT);
  tnvf->mmap = MmapContext{true, mem->hclass == NV01_MEMORY_LOCAL_USER, mem->phys, mem->memfd, p->offset, p->length, mem};
  p->pLinearAddress = 0;  // the mmap offset to use
  return finish(NV_OK);
}

// NV_ESC_RM_UNMAP_MEMORY: the mapping is going away (the caller munmap()s it itself).
// Status: NV_ERR_OBJECT_NOT_FOUND for a memory object this file's clients do not own.
long escape_rm_unmap_memory(NvFile&, kernel::File& file, void* arg, uint32_t) {
  auto* p = static_cast<NVOS34_PARAMETERS*>(arg);
  trace::Scope scope(trace::Layer::Nvidia, "rm_unmap_memory(hClient={}, hMemory={}, address={:#x})", hstr(p->hClient),
                     hstr(p->hMemory), p->pLinearAddress);
  p->status = rm_memory(&file, p->hClient, p->hMemory) ? NV_OK : NV_ERR_OBJECT_NOT_FOUND;
  scope.result("{}", nv_status_name(p->status));
  return 0;
}

// NV_ESC_CARD_INFO: fill an array of nv_ioctl_card_info_t, one valid entry per GPU.
// -EINVAL if the size is not a whole number of entries.
long escape_card_info(NvFile&, kernel::File&, void* arg, uint32_t size) {
  if (size % sizeof(nv_ioctl_card_info_t) != 0) return -kernel::kEINVAL;
  trace::Scope scope(trace::Layer::Nvidia, "card_info(entries={})", size / sizeof(nv_ioctl_card_info_t));
  std::memset(arg, 0, size);
  auto* cards = static_cast<nv_ioctl_card_info_t*>(arg);
  const size_t entries = size / sizeof(nv_ioctl_card_info_t);
  std::string listed;
  for (int i = 0; i < nv_gpu_count() && static_cast<size_t>(i) < entries; ++i) {
    const gpu::DeviceProperties& props = nv_device(i).properties();
    nv_ioctl_card_info_t& card = cards[i];
    card.valid = NV_TRUE;
    card.pci_info.domain = static_cast<NvU32>(props.pci_domain);
    card.pci_info.bus = static_cast<NvU8>(nv_gpu_bus(i));
    card.pci_info.slot = static_cast<NvU8>(props.pci_device);
    card.pci_info.vendor_id = props.pci_vendor_id;
    card.pci_info.device_id = props.pci_device_id;
    card.gpu_id = nv_gpu_id(i);
    card.fb_size = props.vram_bytes;
    card.minor_number = static_cast<NvU32>(i);
    std::snprintf(reinterpret_cast<char*>(card.dev_name), sizeof card.dev_name, "nvidia%d", i);
    if (scope.active()) {
      listed += fmt::format("{}{:04x}:{:02x}:{:02x}.0 {:04x}:{:04x} minor {}", i == 0 ? "" : "; ", props.pci_domain,
                            nv_gpu_bus(i), props.pci_device, props.pci_vendor_id, props.pci_device_id, i);
    }
  }
  scope.result("{}", listed);
  return 0;
}

// NV_ESC_SYS_PARAMS: user space tells the driver the memory block size (for NUMA onlining).
long escape_sys_params(NvFile&, kernel::File&, void* arg, uint32_t) {
  auto* p = static_cast<nv_ioctl_sys_params_t*>(arg);
  trace::note(trace::Layer::Nvidia, "sys_params(memblock_size={:#x})", p->memblock_size);
  return 0;
}

// NV_ESC_REGISTER_FD (on /dev/nvidia0): bind this GPU node to a control fd of the same process,
// after which RM calls made on the node act for that control file's clients (until that control
// file is closed: nv_release unbinds it).
// -EINVAL if ctl_fd is not an open /dev/nvidiactl of the caller, or the node is already bound.
long escape_register_fd(NvFile& nvf, kernel::File&, void* arg, uint32_t) {
  auto* p = static_cast<nv_ioctl_register_fd_t*>(arg);
  trace::Scope scope(trace::Layer::Nvidia, "register_fd(ctl_fd={})", p->ctl_fd);
  kernel::File* ctl = nullptr;
  NvFile* cnvf = nv_file_of_fd(p->ctl_fd, &ctl);
  if (!cnvf || cnvf->kind != NodeKind::Control || nvf.ctl != nullptr) {
    scope.result("-EINVAL");
    return -kernel::kEINVAL;
  }
  nvf.ctl = ctl;
  scope.result("0");
  return 0;
}

namespace {
// The bus's handler for the usermode page: the write goes to the GPU's BAR0 at that offset.
void usermode_write(void* device, uint64_t offset, uint32_t value) {
  static_cast<gpu::Device*>(device)->usermode_write32(offset, value);
}
}  // namespace

long nv_mmap_context(NvFile& nvf, kernel::Vma& vma) {
  MmapContext ctx = nvf.mmap;
  nvf.mmap.valid = false;  // one mmap per RM_MAP_MEMORY, as the real context is consumed
  if (!ctx.valid || vma.offset != 0 || vma.length > ((ctx.length + kernel::kPageSize - 1) & ~(kernel::kPageSize - 1))) {
    return -kernel::kEINVAL;
  }
  int prot = 0;
  if (vma.prot & kernel::kProtRead) prot |= PROT_READ;
  if (vma.prot & kernel::kProtWrite) prot |= PROT_WRITE;
  if (ctx.memory) nv_select_gpu(ctx.memory->gpu);
  int fd = ctx.vidmem ? nv_device().vram().backing_fd() : ctx.memfd;
  off_t offset = static_cast<off_t>(ctx.vidmem ? ctx.phys + ctx.offset : ctx.offset);
  void* r = mmap(reinterpret_cast<void*>(vma.start), vma.length, prot, MAP_SHARED | MAP_FIXED, fd, offset);
  if (r == MAP_FAILED) return -kernel::kENOMEM;
  // A whole sysmem object mapped from its start: remember where (with UVA, its GPU VA too).
  if (!ctx.vidmem && ctx.offset == 0 && ctx.memory && ctx.memory->hclass == NV01_MEMORY_SYSTEM) ctx.memory->cpu_va = vma.start;
  if (ctx.memory && ctx.memory->hclass == HOPPER_USERMODE_A) {
    // BAR0's usermode registers: the page table now routes the process's stores to the GPU, so
    // a store of a work submit token to NOTIFY_CHANNEL_PENDING rings the doorbell (bus.h). The
    // route goes with the RM object (destruct_usermode).
    bus::map(reinterpret_cast<void*>(vma.start), vma.length, usermode_write, &nv_device(), ctx.memory);
    trace::note(trace::Layer::Nvidia, "mmap: BAR0 usermode registers +{:#x}..+{:#x} -> {:#x} (doorbell at +{:#x})",
                offset, vma.length, vma.start, NVC361_NOTIFY_CHANNEL_PENDING);
    return 0;
  }
  trace::note(trace::Layer::Nvidia, "mmap: {} {:#x}..+{:#x} -> {:#x}", ctx.vidmem ? "BAR1 vidmem" : "sysmem", offset,
              vma.length, vma.start);
  return 0;
}

}  // namespace minicuda::nvidia
