// Private to nvidia.ko / nvidia-uvm.ko (driver/nvidia_ko): the state the two modules share.
//
//   nv.cpp          module init, /dev/nvidiactl and /dev/nvidia0, the ioctl table and dispatcher
//   nv_escapes.cpp  the nv-level escapes (CARD_INFO, SYS_PARAMS, REGISTER_FD) and CPU mappings
//   rm_server.cpp   the resource manager's object tree: clients, handles, legal parents, free
//   rm_classes.cpp  what allocating each class does (device, subdevice, VA space, memory)
//   rm_control.cpp  RM controls (NV_ESC_RM_CONTROL)
//   pma.cpp         the physical memory allocator over VRAM
//   uvm.cpp         /dev/nvidia-uvm: VA ranges and GPU mappings of external allocations
//
// Locking: one global lock, nv_lock(), held by every ioctl, mmap and release of either module
// (the real RM has a global "API lock" too). Everything below is guarded by it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "minicuda/device.h"
#include "minicuda/kernel.h"
#include "nv_uapi.h"

namespace minicuda::nvidia {

std::recursive_mutex& nv_lock();

// The GPU this module drives (probed at module init; MINICUDA_DEVICE picks the preset).
gpu::Device& nv_device();

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
  uint64_t free_bytes() const { return free_bytes_; }
  uint64_t size() const { return size_; }

 private:
  uint64_t size_;
  uint64_t free_bytes_;
  std::map<uint64_t, uint64_t> free_;  // offset -> length, coalesced
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
  const RmObject* memory = nullptr;  // the object; the context dies with it (nv_memory_freed)
};

// file.private_data of /dev/nvidiactl and /dev/nvidia0 (nv_linux_file_private_t).
struct NvFile {
  NodeKind kind = NodeKind::Control;
  kernel::File* ctl = nullptr;  // /dev/nvidia0 after NV_ESC_REGISTER_FD: the control file
  MmapContext mmap;
};

// --- the resource manager (rm_server.cpp, rm_classes.cpp) -------------------------------------

struct RmObject {
  NvHandle handle = 0;
  NvU32 hclass = 0;
  NvHandle parent = 0;
  std::vector<NvHandle> children;
  // Memory objects (0x3E, 0x40, 0x71)
  uint64_t size = 0;
  uint64_t phys = 0;         // VRAM offset (0x40) or host address (0x71)
  int memfd = -1;            // 0x3E: the system pages RM allocated
  // FERMI_VASPACE_A
  uint64_t va_base = 0, va_size = 0;
  // NV01_MEMORY_SYSTEM_OS_DESCRIPTOR: the process whose pages it pins
  kernel::Process* process = nullptr;
};

struct RmClient {
  NvHandle handle = 0;
  kernel::File* owner = nullptr;  // the /dev/nvidiactl file it was allocated on
  int pid = 0;
  std::map<NvHandle, RmObject> objects;  // includes the client object itself (class 0x41)
  NvU32 next_unique = 0;
};

// The client with this handle if `file` owns it, else null (a client is private to its file).
RmClient* rm_client(kernel::File* file, NvHandle hClient);
// A memory object (0x3E, 0x40 or 0x71) of a client that `file` owns; null otherwise.
const RmObject* rm_memory(kernel::File* file, NvHandle hClient, NvHandle hMemory);

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

// Called by RM before a memory object goes away: UVM removes GPU mappings that still use it.
void uvm_memory_freed(const RmObject& memory);
// Called by RM before any object goes away: mmap contexts prepared for it are dropped, so a later
// mmap() cannot reach memory RM has released (nv.cpp).
void nv_memory_freed(const RmObject& object);

// Module init of the two modules (called by kernel::boot()).
void nv_register_devices();
void uvm_register_device();

// Formats a handle for the trace ("0xc1d00001").
std::string hstr(NvHandle h);

}  // namespace minicuda::nvidia
