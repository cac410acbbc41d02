// The RM classes that feed the GPU work: channel groups (TSGs), context shares (subcontexts),
// GPFIFO channels, the engine objects inside a channel, and the usermode page with the
// doorbell.
//
// A channel is what the GPU's host interface reads: a ring of 8-byte GPFIFO entries (at
// gpFifoOffset, a GPU VA) and a USERD page (GPGet / GPPut) in system memory the process mapped,
// which with UVA the GPU reaches at the same address. Constructing a channel registers it with
// the device (HostInterface::add_channel); its work-submit token (NVC36F_CTRL_CMD_GPFIFO_GET_
// WORK_SUBMIT_TOKEN) is its channel id. After that, work reaches the GPU with no system call.
#include <cstdio>
#include <sys/mman.h>
#include <unistd.h>

#include "minicuda/bus.h"
#include "minicuda/trace.h"
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {

constexpr uint64_t kUserdBytes = 512;  // one channel's USERD (Nvc56fControl)
NvU32 g_next_chid = 1;                 // guarded by nv_lock()

// Each channel's error notifier, by chid: RM's own mapping of the first page of its hObjectError
// memory (as the real RM maps it in the kernel), so that the fault handler writes the object
// wherever, or whether, the process still has it mapped; and the client (process) that owns the
// channel. Guarded by nv_lock().
struct ErrorNotifier {
  NvNotification* page = nullptr;
  NvHandle client = 0;
};
std::map<uint32_t, ErrorNotifier>& error_notifiers() {
  static auto* notifiers = new std::map<uint32_t, ErrorNotifier>;  // never destroyed (see nv_lock)
  return *notifiers;
}

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

const RmObject* find(RmClient& client, NvHandle handle, NvU32 hclass) {
  auto it = client.objects.find(handle);
  if (it == client.objects.end() || it->second.hclass != hclass) return nullptr;
  return &it->second;
}

}  // namespace

// KEPLER_CHANNEL_GROUP_A: a TSG, the unit the scheduler time-slices. engineType says which
// engine's runlist it joins (graphics/compute or a copy engine).
NV_STATUS construct_channel_group(RmClient& client, RmObject&, void* params) {
  auto* p = static_cast<NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS*>(params);
  if (p == nullptr) return NV_OK;
  bool copy = p->engineType >= NV2080_ENGINE_TYPE_COPY0 &&
              p->engineType < NV2080_ENGINE_TYPE_COPY0 + static_cast<NvU32>(nv_device().properties().async_engine_count);
  if (p->engineType != NV2080_ENGINE_TYPE_GRAPHICS && !copy) return NV_ERR_INVALID_ARGUMENT;
  if (p->hVASpace != 0 && !find(client, p->hVASpace, FERMI_VASPACE_A)) return NV_ERR_INVALID_OBJECT_HANDLE;
  return NV_OK;
}

// FERMI_CONTEXT_SHARE_A: a subcontext (VEID) of a channel group; subctxId is returned.
NV_STATUS construct_context_share(RmClient& client, RmObject&, void* params) {
  auto* p = static_cast<NV_CTXSHARE_ALLOCATION_PARAMETERS*>(params);
  if (p == nullptr) return NV_OK;
  if (p->hVASpace != 0 && !find(client, p->hVASpace, FERMI_VASPACE_A)) return NV_ERR_INVALID_OBJECT_HANDLE;
  if (p->flags > NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC) return NV_ERR_INVALID_ARGUMENT;
  p->subctxId = 0;
  return NV_OK;
}

// A channel made after the GPU faulted one of the client's channels belongs to a context that
// robust-channel recovery has already taken down: it starts with the same error notification, so
// work queued on it (a per-thread stream made after the fault, waiting on the faulted channel)
// ends with the error instead of waiting for ever. (The fuzzer found that hang.) Under nv_lock().
namespace {
void inherit_fault(NvHandle client, NvNotification* fresh) {
  for (const auto& [chid, other] : error_notifiers()) {
    if (other.client != client || other.page == fresh || __atomic_load_n(&other.page->status, __ATOMIC_ACQUIRE) == 0)
      continue;
    std::memcpy(reinterpret_cast<char*>(fresh) + NV_MINICUDA_FAULT_RECORD_OFFSET,
                reinterpret_cast<const char*>(other.page) + NV_MINICUDA_FAULT_RECORD_OFFSET, sizeof(NvMinicudaFaultRecord));
    fresh->timeStamp = other.page->timeStamp;
    fresh->info32 = other.page->info32;
    fresh->info16 = other.page->info16;
    __atomic_store_n(&fresh->status, other.page->status, __ATOMIC_RELEASE);
    return;
  }
}
}  // namespace

// HOPPER_CHANNEL_GPFIFO_A. Checks: gpFifoEntries a power of two (2..65536) and gpFifoOffset 8-byte
// aligned (NV_ERR_INVALID_ARGUMENT); hUserdMemory[0] a CPU-mapped NV01_MEMORY_SYSTEM object of the
// client with room for USERD at userdOffset[0] (NV_ERR_INVALID_OBJECT_HANDLE / NV_ERR_INVALID_STATE
// when not mapped / NV_ERR_INVALID_LIMIT); hContextShare, if given, a FERMI_CONTEXT_SHARE_A
// (NV_ERR_INVALID_OBJECT_HANDLE). Returns the channel id in cid.
NV_STATUS construct_channel(RmClient& client, RmObject& object, void* params) {
  auto* p = static_cast<NV_CHANNEL_ALLOC_PARAMS*>(params);
  if (!power_of_two(p->gpFifoEntries) || p->gpFifoEntries < 2 || p->gpFifoEntries > 65536 || p->gpFifoOffset % 8 != 0) {
    return NV_ERR_INVALID_ARGUMENT;
  }
  if (p->hContextShare != 0 && !find(client, p->hContextShare, FERMI_CONTEXT_SHARE_A)) return NV_ERR_INVALID_OBJECT_HANDLE;
  const RmObject* notifier = nullptr;
  if (p->hObjectError != 0) {
    notifier = find(client, p->hObjectError, NV01_MEMORY_SYSTEM);
    if (notifier == nullptr) return NV_ERR_INVALID_OBJECT_HANDLE;
    if (notifier->cpu_va == 0) return NV_ERR_INVALID_STATE;
  }
  const RmObject* userd = find(client, p->hUserdMemory[0], NV01_MEMORY_SYSTEM);
  if (userd == nullptr) return NV_ERR_INVALID_OBJECT_HANDLE;
  if (userd->cpu_va == 0) return NV_ERR_INVALID_STATE;
  // Written so that a huge userdOffset cannot wrap around and pass (USERD before the object).
  uint64_t userd_offset = p->userdOffset[0];
  if (userd_offset % kUserdBytes != 0 || userd_offset > userd->size || userd->size - userd_offset < kUserdBytes) {
    return NV_ERR_INVALID_LIMIT;
  }
  NvNotification* notifier_page = nullptr;
  if (notifier != nullptr) {
    void* m = mmap(nullptr, kernel::kPageSize, PROT_READ | PROT_WRITE, MAP_SHARED, notifier->memfd, 0);
    if (m == MAP_FAILED) return NV_ERR_NO_MEMORY;
    notifier_page = static_cast<NvNotification*>(m);
  }
  object.chid = g_next_chid++;
  gpu::ChannelConfig config{};
  config.chid = object.chid;
  config.token = object.chid;
  config.gpfifo_va = p->gpFifoOffset;
  config.gpfifo_entries = p->gpFifoEntries;
  config.inline_only = (p->flags & NVOS04_FLAGS_MINICUDA_INLINE) != 0;
  config.userd_va = userd->cpu_va + p->userdOffset[0];
  nv_device().host().add_channel(config);
  if (notifier_page != nullptr) {
    error_notifiers()[object.chid] = ErrorNotifier{notifier_page, client.handle};
    inherit_fault(client.handle, notifier_page);
  }
  p->cid = object.chid;
  trace::note(trace::Layer::Nvidia, "{}channel {}: GPFIFO {:#x} x {} entries, USERD {:#x}, token {}", nv_gpu_tag(), object.chid,
              config.gpfifo_va, config.gpfifo_entries, config.userd_va, config.token);
  return NV_OK;
}

void destruct_channel(RmObject& object) {
  nv_device().host().remove_channel(object.chid);
  if (auto it = error_notifiers().find(object.chid); it != error_notifiers().end()) {
    munmap(it->second.page, kernel::kPageSize);
    error_notifiers().erase(it);
  }
}

// The GPU's fault interrupt (HostInterface's fault handler, on the device's thread): robust
// channel recovery writes the channel's error notifier, which the process polls.
void nv_channel_fault(const gpu::ChannelFault& fault) {
  std::lock_guard lock(nv_lock());
  uint32_t xid = ROBUST_CHANNEL_GR_EXCEPTION;
  if (fault.kind == gpu::FaultKind::MmuUnmapped || fault.kind == gpu::FaultKind::MmuReadOnly)
    xid = ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT;
  if (fault.kind == gpu::FaultKind::EccUncorrectable) xid = ROBUST_CHANNEL_CONTAINED_ERROR;
  trace::note(trace::Layer::Nvidia, "{}NVRM: Xid {}: channel {}: {}", nv_gpu_tag(), xid, fault.chid, fault.what);
  auto it = error_notifiers().find(fault.chid);
  if (it == error_notifiers().end()) return;
  // Recovery takes down the faulting process's other channels too, as RM resets a context whose
  // channel faulted: each gets the same notification, so work waiting on any of them (an acquire
  // of the faulted channel's fence that will never come) ends with the error.
  const NvHandle owner = it->second.client;
  for (auto& [chid, notifier] : error_notifiers()) {
    if (notifier.client != owner) continue;
    NvNotification* n = notifier.page;
    if (chid != fault.chid && __atomic_load_n(&n->status, __ATOMIC_ACQUIRE) != 0) continue;  // its own fault first
    auto* record = reinterpret_cast<NvMinicudaFaultRecord*>(reinterpret_cast<char*>(n) + NV_MINICUDA_FAULT_RECORD_OFFSET);
    record->address = fault.va;
    record->xid = xid;
    record->smException = fault.kind == gpu::FaultKind::SmException ? fault.sm_exception : 0;
    record->write = fault.access == gpu::Access::Write;
    std::snprintf(record->what, sizeof record->what, "%s", fault.what.c_str());
    n->timeStamp = nv_device().now_ns();
    n->info32 = xid;
    n->info16 = record->smException;
    __atomic_store_n(&n->status, NV_CHANNELGPFIFO_NOTIFICATION_STATUS_ERROR, __ATOMIC_RELEASE);
  }
}

// HOPPER_COMPUTE_A / HOPPER_DMA_COPY_A: an engine's class instantiated in a channel, so that
// SET_OBJECT can bind it to a subchannel.
NV_STATUS construct_engine_object(RmClient&, RmObject& object, void* params) {
  if (object.hclass == HOPPER_DMA_COPY_A && params != nullptr) {
    auto* p = static_cast<NVB0B5_ALLOCATION_PARAMETERS*>(params);
    if (p->version != NVB0B5_ALLOCATION_PARAMETERS_VERSION_1) return NV_ERR_INVALID_ARGUMENT;
    if (p->engineType < NV2080_ENGINE_TYPE_COPY0 ||
        p->engineType >= NV2080_ENGINE_TYPE_COPY0 + static_cast<NvU32>(nv_device().properties().async_engine_count)) {
      return NV_ERR_INVALID_ARGUMENT;
    }
  }
  return NV_OK;
}

// HOPPER_USERMODE_A: the 64 KiB usermode register page whose NOTIFY_CHANNEL_PENDING (0x90) is
// the doorbell; the process maps it with RM_MAP_MEMORY + mmap of /dev/nvidia0, and the mmap
// routes the page's stores over the bus to the GPU (nv_mmap_context, minicuda/bus.h): the token
// stored there names the channel the host interface is to run, as on the real GPU. The memfd
// holds the bytes the stores leave in the page.
NV_STATUS construct_usermode(RmClient&, RmObject& object, void*) {
  int fd = memfd_create("minicuda-usermode", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, NVC361_NV_USERMODE__SIZE) != 0) {
    if (fd >= 0) close(fd);
    return NV_ERR_NO_MEMORY;
  }
  object.memfd = fd;
  object.size = NVC361_NV_USERMODE__SIZE;
  return NV_OK;
}

void destruct_usermode(RmObject& object) {
  bus::unmap_owner(&object);  // its mappings no longer reach the GPU
  if (object.memfd >= 0) close(object.memfd);
}

}  // namespace minicuda::nvidia
