// Private to nvidia.ko / nvidia-uvm.ko (driver/kernel/nvidia_ko): the state the two modules share.
//
//   nv.cpp          module init, /dev/nvidiactl and /dev/nvidia0, the ioctl table and dispatcher
//   nv_escapes.cpp  the nv-level escapes (CARD_INFO, SYS_PARAMS, REGISTER_FD) and CPU mappings
//   rm_server.cpp   the resource manager's object tree: clients, handles, legal parents, free
//   rm_classes.cpp  what allocating each class does (device, subdevice, VA space, memory)
//   rm_control.cpp  RM controls (NV_ESC_RM_CONTROL)
//   pma.cpp         the physical memory allocator over VRAM
//   uvm.cpp         /dev/nvidia-uvm: VA ranges and GPU mappings of external allocations
//   nv_smi.cpp      the status file that `minicuda smi` reads (memory, processes, utilisation)
//
// Locking: one global lock, nv_lock(), held by every ioctl, mmap and release of either module
// (the real RM has a global "API lock" too). Everything below is guarded by it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "minicuda/device.h"
#include "minicuda/kernel.h"
#include "minicuda/range_allocator.h"
#include "minicuda/round_up.h"
#include "nv_uapi.h"

namespace minicuda::nvidia {

std::recursive_mutex& nv_lock();

// The driver version RM reports (NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION): the measured H200's (gpu.txt).
inline constexpr const char* kNvDriverVersion = "580.159.04";

// The GPUs this module drives, probed at module init: MINICUDA_DEVICES=N gives N of the preset
// MINICUDA_DEVICE picks (H200 by default), MINICUDA_DEVICES=h200,teaching one GPU per preset
// named; unset, one GPU. GPU i has the node /dev/nvidiaI and device instance i.
int nv_gpu_count();
// Every RM call acts on one GPU, as the real RM finds its pGpu from the object it names: the
// entry points select it (under nv_lock) before anything below runs. nv_device() and nv_pma()
// are the selected GPU's.
void nv_select_gpu(int index);
int nv_selected_gpu();
gpu::Device& nv_device();
gpu::Device& nv_device(int index);
// The GPU's PCI bus (distinct per GPU: the preset's bus for the first, then the next free bus),
// its UUID (the preset's, last byte + index) and its RM gpu id (bus << 8).
int nv_gpu_bus(int index);
const uint8_t* nv_gpu_uuid(int index);
inline NvU32 nv_gpu_id(int index) { return static_cast<NvU32>(nv_gpu_bus(index)) << 8; }
// What the module's trace notes about one GPU start with: "" with a single GPU (so one-GPU
// traces are unchanged), "gpuN: " with several.
std::string nv_gpu_tag(int index);
inline std::string nv_gpu_tag() { return nv_gpu_tag(nv_selected_gpu()); }
// The GPU whose UUID this is, or -1.
int nv_gpu_by_uuid(const uint8_t* uuid);

// --- physical memory allocator (pma.cpp) -----------------------------------------------------

// First-fit allocator over [0, size) of VRAM with 2 MiB granularity (the big-page size: every
// vidmem object can be mapped with 2 MiB PTEs).
class Pma {
 public:
  explicit Pma(uint64_t size);
  // A free range of `size` bytes aligned to `alignment` (both rounded up to 2 MiB), or nullopt.
  std::optional<uint64_t> alloc(uint64_t size, uint64_t alignment);
  // Returns a range given by alloc(); the VRAM's host memory is discarded.
  void free(uint64_t offset, uint64_t size);
  uint64_t free_bytes() const { return ranges_.free_bytes(); }
  uint64_t size() const { return size_; }

 private:
  uint64_t size_;
  RangeAllocator ranges_;  // offsets into VRAM
};
Pma& nv_pma();

// --- per-file state ---------------------------------------------------------------------------

enum class NodeKind { Control, Gpu };

struct RmObject;

// What RM_MAP_MEMORY prepared for the next mmap() of a file (the real nv_alloc_mapping_context).
struct MmapContext {
  bool valid = false;
  bool vidmem = false;
  uint64_t phys = 0;      // VRAM offset (vidmem)
  int memfd = -1;         // backing of a sysmem object
  uint64_t offset = 0;    // offset into the object
  uint64_t length = 0;
  RmObject* memory = nullptr;  // the object; the context dies with it (nv_memory_freed)
};

// file.private_data of /dev/nvidiactl and /dev/nvidia0 (nv_linux_file_private_t).
struct NvFile {
  NodeKind kind = NodeKind::Control;
  int gpu = 0;                  // /dev/nvidiaN: N
  kernel::File* ctl = nullptr;  // /dev/nvidia0 after NV_ESC_REGISTER_FD: the control file
  MmapContext mmap;
  // /dev/nvidiactl bound to an exported object (NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD,
  // rm_export.cpp): the video memory it shares, which the fd keeps alive until it is closed.
  struct Exported {
    bool valid = false;
    int gpu = 0;
    uint64_t phys = 0, size = 0;
  } exported;
};

// --- the resource manager (rm_server.cpp, rm_classes.cpp) -------------------------------------

struct RmObject {
  NvHandle handle = 0;
  NvU32 hclass = 0;
  NvHandle parent = 0;
  std::vector<NvHandle> children;
  int gpu = 0;  // the GPU it belongs to: its NV01_DEVICE_0's device instance (0 for the client)
  // Memory objects (0x3E, 0x40, 0x71)
  uint64_t size = 0;
  uint64_t phys = 0;         // VRAM offset (0x40) or host address (0x71)
  int memfd = -1;            // 0x3E: the system pages RM allocated
  // FERMI_VASPACE_A
  uint64_t va_base = 0, va_size = 0;
  // NV01_MEMORY_SYSTEM_OS_DESCRIPTOR: the process whose pages it pins
  kernel::Process* process = nullptr;
  // NV01_MEMORY_SYSTEM: where the owner mmapped it (0 = not mapped). With UVA the GPU reaches it
  // at the same address, so this is also its GPU VA once UVM maps it.
  uint64_t cpu_va = 0;
  // HOPPER_CHANNEL_GPFIFO_A: the channel id and work-submit token (the same number here)
  uint32_t chid = 0;
};

struct RmClient {
  NvHandle handle = 0;
  kernel::File* owner = nullptr;  // the /dev/nvidiactl file it was allocated on
  int pid = 0;
  std::map<NvHandle, RmObject> objects;  // includes the client object itself (class 0x41)
  NvU32 next_unique = 0;
};

// Every RM client, by handle (the status file lists them as the GPU's processes).
const std::map<NvHandle, RmClient>& rm_clients();
// The client with this handle if `file` owns it, else null (a client is private to its file).
RmClient* rm_client(kernel::File* file, NvHandle hClient);
// A memory object (0x3E, 0x40 or 0x71) of a client that `file` owns; null otherwise.
const RmObject* rm_memory(kernel::File* file, NvHandle hClient, NvHandle hMemory);
// Any object of a client that `file` owns, of one of the classes given; null otherwise.
RmObject* rm_object(kernel::File* file, NvHandle hClient, NvHandle hObject, std::initializer_list<NvU32> classes);
// Does control class `ctrl_class` (cmd >> 16) apply to objects of class `hclass`? A family's
// controls apply to its later classes (NVC36F_CTRL_* on a HOPPER_CHANNEL_GPFIFO_A).
bool rm_control_applies(NvU32 ctrl_class, NvU32 hclass);

// The channel classes (rm_channel.cpp): constructors and destructors for the class table.
NV_STATUS construct_channel_group(RmClient& client, RmObject& object, void* params);
NV_STATUS construct_context_share(RmClient& client, RmObject& object, void* params);
NV_STATUS construct_channel(RmClient& client, RmObject& object, void* params);
void destruct_channel(RmObject& object);
// The device's fault handler: writes the faulting channel's error notifier (rm_channel.cpp).
void nv_channel_fault(const gpu::ChannelFault& fault);
NV_STATUS construct_engine_object(RmClient& client, RmObject& object, void* params);
NV_STATUS construct_usermode(RmClient& client, RmObject& object, void* params);
void destruct_usermode(RmObject& object);

NV_STATUS rm_alloc(kernel::File* file, NvHandle hClient, NvHandle hParent, NvHandle* hObject, NvU32 hClass,
                   void* params, NvU32 params_size);
NV_STATUS rm_free(kernel::File* file, NvHandle hClient, NvHandle hParent, NvHandle hObject);
NV_STATUS rm_alloc_os_descriptor(kernel::File* file, NVOS02_PARAMETERS* p);
NV_STATUS rm_control(kernel::File* file, NVOS54_PARAMETERS* p);
// Frees every client allocated through a control file (its release).
void rm_free_file_clients(kernel::File* file);

// Class behaviour (rm_classes.cpp).
struct RmClass {
  NvU32 hclass;
  std::vector<NvU32> parents;  // legal parent classes (resource_list.h)
  NvU32 params_size;           // expected pAllocParms size; 0 = none accepted
  bool params_required;
  NV_STATUS (*construct)(RmClient& client, RmObject& object, void* params);
  void (*destruct)(RmObject& object);
};
const RmClass* rm_class(NvU32 hclass);

// Video memory shared by several objects (an object and its imports, an export fd): each holds
// one reference; construct_vidmem makes the first, the last vidmem_unref frees it (rm_classes.cpp).
void vidmem_ref(int gpu, uint64_t phys);
void vidmem_unref(int gpu, uint64_t phys, uint64_t size);
// The RM controls of rm_export.cpp: bind a memory object to an fd of /dev/nvidiactl, and dup the
// object bound to an fd into a client (NV0000_CTRL_CMD_OS_UNIX_EXPORT/IMPORT_*).
NV_STATUS rm_export_object_to_fd(kernel::File* file, RmClient& client, void* params, NvU32 size);
NV_STATUS rm_import_object_from_fd(kernel::File* file, RmClient& client, void* params, NvU32 size);
// Inserts `object` (handle, class, parent, gpu and memory fields set) into client under its parent
// (rm_server.cpp): NV_ERR_INVALID_OBJECT_PARENT or NV_ERR_INVALID_OBJECT_NEW when it cannot go there.
NV_STATUS rm_insert_object(RmClient& client, const RmObject& object);
// An export fd is closed: its reference on the shared memory goes (nv.cpp's release).
void rm_export_released(NvFile& file);

// Called by RM before a memory object goes away: UVM removes GPU mappings that still use it.
void uvm_memory_freed(const RmObject& memory);
// Called by RM before any object goes away: mmap contexts prepared for it are dropped, so a later
// mmap() cannot reach memory RM has released (nv.cpp).
void nv_memory_freed(const RmObject& object);

// The status file of `minicuda smi` (nv_smi.cpp, minicuda/gpu_status.h): starts the thread that
// rewrites it, once per process, unless MINICUDA_SMI=0. Called under nv_lock() when a client is made.
void nv_smi_start();

// Module init of the two modules (called by kernel::boot()).
void nv_register_devices();
void uvm_register_device();

// Formats a handle for the trace ("0xc1d00001").
std::string hstr(NvHandle h);

}  // namespace minicuda::nvidia
