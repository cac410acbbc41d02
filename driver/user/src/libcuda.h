// Private to libcuda (driver/user/src): the user-mode driver's state and its helpers.
//
//   errors.cpp    cuGetErrorName/String; to_cu_result(), the one NV_STATUS -> CUresult mapping
//   rmapi.cpp     the only code that makes system calls: RM alloc/free/control ioctls on
//                 /dev/nvidiactl, RM_ALLOC_MEMORY on /dev/nvidia0, the UVM ioctls
//   init.cpp      cuInit: open the control node, find the GPUs, read their properties
//   device.cpp    cuDevice*: answers from what cuInit read (no syscall)
//   context.cpp   primary contexts (retain/release/reset) and the current-context stack
//   pool.cpp      the device-memory pool (2 MiB chunks from the kernel, 512-byte slots) and the
//                 context's GPU virtual-address allocator
//   memory.cpp    cuMemAlloc/Free/GetInfo, pinned host memory, pointer attributes
//
// Locking: driver_mutex() guards every field below; each cu* entry point takes it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda.h"
#include "event_semaphores.h"
#include "fatbinary.h"
#include "minicuda/syscall.h"
#include "minicuda/trace.h"
#include "nv_uapi.h"

namespace minicuda::libcuda {

std::recursive_mutex& driver_mutex();
class HostFunctions;  // host_func.cpp

// --- errors ------------------------------------------------------------------------------------

// The name of a CUresult ("CUDA_ERROR_INVALID_VALUE"), or "CUresult(<n>)".
std::string result_name(CUresult r);
// The end of every entry point: records r as the scope's result and returns it
// (`return done(scope, CUDA_SUCCESS);`; libcudart's done() does the same for a cudaError_t).
// Every entry point that needs the context starts the same way, with the driver lock held for
// the whole call:
//   std::lock_guard lock(driver_mutex());
//   CUcontext ctx = nullptr;
//   if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
inline CUresult done(trace::Scope& scope, CUresult r) {
  if (scope.active()) scope.result("{}", result_name(r));
  return r;
}
// "CU_DEVICE_ATTRIBUTE_WARP_SIZE", from cuda.h's table; the number if unknown.
std::string attribute_name(CUdevice_attribute attribute);
// "CU_POINTER_ATTRIBUTE_MEMORY_TYPE"; the number if unknown.
std::string pointer_attribute_name(CUpointer_attribute attribute);
// The one place an RM status becomes a CUresult.
CUresult to_cu_result(NV_STATUS status);

// --- the kernel interface (rmapi.cpp) ----------------------------------------------------------

// Allocates an RM object with NV_ESC_RM_ALLOC (the 48-byte NVOS64 form, as libcuda does).
// On NV_OK *handle holds the new handle. An ioctl failure (errno) is reported as NV_ERR_GENERIC.
NV_STATUS rm_alloc(NvHandle hClient, NvHandle hParent, NvHandle* handle, NvU32 hClass, void* params,
                   NvU32 params_size);
NV_STATUS rm_free(NvHandle hClient, NvHandle hParent, NvHandle hObject);
NV_STATUS rm_control(NvHandle hClient, NvHandle hObject, NvU32 cmd, void* params, NvU32 params_size);
// NV_ESC_RM_ALLOC_MEMORY of an OS descriptor on the registered /dev/nvidia0.
NV_STATUS rm_alloc_os_descriptor(NvHandle hClient, NvHandle hDevice, NvHandle handle, void* address, uint64_t size);
// One UVM ioctl (raw request number) on a /dev/nvidia-uvm fd; returns the params' rmStatus, or
// NV_ERR_GENERIC if the ioctl itself failed.
// One ioctl, made as NVIDIA's user-mode RM wrapper (nvRmIoctl) makes it: retried while it fails
// with EINTR or EAGAIN. NV_OK when the call went through (the RM status is then in the
// argument); a failed call is an OS error: NV_ERR_NO_MEMORY for ENOMEM, NV_ERR_OPERATING_SYSTEM
// (CUDA_ERROR_OPERATING_SYSTEM) for anything else.
NV_STATUS rm_ioctl(int fd, unsigned long request, void* params);
template <typename Params>
NV_STATUS uvm_call(int uvm_fd, uint64_t request, Params* params) {
  NV_STATUS os = rm_ioctl(uvm_fd, request, params);
  return os != NV_OK ? os : params->rmStatus;
}
// Makes hMemory visible to the GPU at [va, va+size): UVM_CREATE_EXTERNAL_RANGE, then
// UVM_MAP_EXTERNAL_ALLOCATION (read-write-atomic for the GPU with this uuid). On failure the
// range is freed again and the first failing status is returned.
NV_STATUS uvm_map_memory(int uvm_fd, uint64_t va, uint64_t size, const CUuuid& gpu, NvHandle hMemory);
// UVM_MAP_EXTERNAL_ALLOCATION of hMemory at [va, va+size) of an existing range, for the GPU with
// this uuid: read-write-atomic, or read-only. Another GPU's vidmem is a peer mapping there.
NV_STATUS uvm_map_for_gpu(int uvm_fd, uint64_t va, uint64_t size, const CUuuid& gpu, NvHandle hMemory, bool writable);
// UVM_UNMAP_EXTERNAL: the page-table entries of [va, va+size) in that GPU go; the range stays.
NV_STATUS uvm_unmap_for_gpu(int uvm_fd, uint64_t va, uint64_t size, const CUuuid& gpu);
// UVM_FREE of the range at va: the GPU mapping goes.
NV_STATUS uvm_free_range(int uvm_fd, uint64_t va);
// Maps a HOPPER_USERMODE_A object (the doorbell page) for the CPU: a fresh /dev/nvidia0 fd bound
// to the control fd, NV_ESC_RM_MAP_MEMORY, mmap (channel.cpp). Null on failure.
void* map_usermode(NvHandle hSubdevice, NvHandle hUsermode);
// A handle for a new object of this process ("0x5c000001", "0x5c000002", ...).
NvHandle next_handle();

// --- devices (init.cpp, device.cpp) ------------------------------------------------------------

// What cuInit learnt about one GPU (from CARD_INFO and the RM controls).
struct DeviceInfo {
  NvU32 gpu_id = 0;
  NvHandle hDevice = 0, hSubdevice = 0;
  std::string name;
  uint64_t vram_bytes = 0;        // FB RAM_SIZE
  uint64_t total_mem = 0;         // FB HEAP_SIZE: what cuDeviceTotalMem reports
  int major = 0, minor = 0;       // GR SM_VERSION
  int sm_count = 0;               // TPCs x SMs per TPC
  int max_warps_per_sm = 0;
  int stack_scaling_sms = 0;      // GR THREAD_STACK_SCALING_FACTOR: the SMs local memory is sized for
  int memory_bus_width = 0;
  int l2_cache_bytes = 0;
  int copy_engines = 0;
  int pci_domain = 0, pci_bus = 0, pci_device = 0;
  int pci_device_id = 0;
  CUuuid uuid{};
  int node_minor = 0;  // its node is /dev/nvidia<minor> (CARD_INFO)
  int gpu_fd = -1;   // that node, registered to the control fd
};
// The device whose RM device or subdevice object is hObject, or null.
DeviceInfo* device_of_handle(NvHandle hObject);
// The ordinals of CUDA_VISIBLE_DEVICES among `count` GPUs, in the order listed: unset, all of
// them; each entry a decimal ordinal; the list ends at the first entry that is not a valid,
// unlisted ordinal (the entries before it stay visible); empty: none.
std::vector<int> visible_devices(const char* env, int count);

struct Driver {
  bool initialized = false;
  CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
  int ctl_fd = -1;        // /dev/nvidiactl
  NvHandle hClient = 0;   // the process's RM client
  NvHandle next_handle = 0x5c000001;  // the handles libcuda picks for its objects (measured)
  CUmoduleLoadingMode loading_mode = CU_MODULE_LAZY_LOADING;  // CUDA_MODULE_LOADING at cuInit
  std::vector<DeviceInfo> devices;
  std::vector<CUcontext> primary;     // one primary context per device, made by cuInit
  bool launch_blocking = false;       // CUDA_LAUNCH_BLOCKING=1 at cuInit: launches wait
  unsigned max_connections = 8;       // CUDA_DEVICE_MAX_CONNECTIONS at cuInit (1-32): channels per context
  bool memcheck = false;              // MINICUDA_MEMCHECK=1 at cuInit: memcheck mode (memcheck.h)
  std::set<CUlib_st*> libraries;      // loaded libraries (module.cpp); owned
  std::set<CUlinkState_st*> links;    // links in progress (link.cpp); owned
  std::set<CUcontext> created;        // contexts of cuCtxCreate (context.cpp); owned
  // Prebuilt work (prebuilt.cpp), owned: live recordings, and destroyed ones the GPU may still read.
  std::set<CUprebuilt_st*> prebuilt, prebuilt_retired;
  std::shared_ptr<struct VmmState> vmm;  // virtual memory management (vmm.h), made at first use
};
// The driver state of the calling thread's simulated process (libcuda is per process).
Driver& driver();

// CUDA_SUCCESS if cuInit has succeeded, else CUDA_ERROR_NOT_INITIALIZED (or cuInit's failure).
CUresult check_initialized();
// The device for an ordinal, or null (CUDA_ERROR_INVALID_DEVICE).
DeviceInfo* device_info(CUdevice dev);
// Writes an attribute's value; false if the attribute is not one minicuda knows.
bool device_attribute(const DeviceInfo& dev, CUdevice_attribute attribute, int* value);

}  // namespace minicuda::libcuda

struct NvSmLimits;
namespace minicuda::libcuda {
// One SM's limits (nv_occupancy.h) as the device's attributes give them (occupancy.cpp).
NvSmLimits sm_limits(const DeviceInfo& dev);
}  // namespace minicuda::libcuda

// --- contexts (context.cpp) --------------------------------------------------------------------

namespace minicuda::libcuda {
class Pool;
class Channel;
// What cuStreamSetAttribute stored for a stream: hints the simulated GPU does not act on.
struct StreamAttributes {
  CUaccessPolicyWindow window{};  // all zero: no window
  CUsynchronizationPolicy sync_policy = CU_SYNC_POLICY_AUTO;
};
}

// The struct behind CUcontext (declared opaque in cuda.h).
struct CUctx_st {
  CUdevice device = 0;
  bool active = false;          // resources built (a primary context can be retained but reset)
  int retain_count = 0;
  unsigned flags = 0;
  // RM / UVM objects of the context
  NvHandle hVaSpace = 0;
  int uvm_fd = -1, uvm_mm_fd = -1;
  uint64_t va_base = 0, va_size = 0;
  minicuda::libcuda::Pool* pool = nullptr;  // owned: made by build(), deleted by teardown()
  // The context's own device memory (context_memory.h): VRAM objects mapped below the pool.
  struct OwnBuffer {
    uint64_t va = 0, bytes = 0;
    NvHandle hMemory = 0;
  };
  std::vector<OwnBuffer> own_memory;
  // Pinned host allocations: host address -> (size, RM handle)
  // cuMemHostRegister's ranges are kept here too: the user's [start, start+size) inside the
  // pinned pages [pages, pages+page_bytes) that the OS descriptor and the GPU mapping cover.
  struct HostAlloc {
    uint64_t size = 0;
    NvHandle hMemory = 0;
    unsigned flags = 0;       // CU_MEMHOSTALLOC_* (cuMemHostAlloc) or CU_MEMHOSTREGISTER_* (registered)
    bool registered = false;  // made by cuMemHostRegister (so freed by cuMemHostUnregister only)
    uint64_t pages = 0, page_bytes = 0;
  };
  std::map<uint64_t, HostAlloc> host_allocs;
  // Managed allocations (cuMemAllocManaged; managed.cpp): base -> what was asked for.
  struct ManagedAlloc {
    uint64_t size = 0;      // bytes requested
    uint64_t mapped = 0;    // bytes of the uvm fd's mapping (whole pages)
    unsigned flags = 0;     // CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST, then what attach set
  };
  std::map<uint64_t, ManagedAlloc> managed;
  // Work submission (channel.h): the doorbell page, the context's channel, and the pinned
  // staging buffer that pageable copies go through.
  NvHandle hUsermode = 0;
  volatile uint32_t* doorbell = nullptr;
  // The context's own channel: the NULL stream's work, synchronous copies, kernel code records.
  minicuda::libcuda::Channel* channel = nullptr;  // owned: made by build(), deleted by teardown()
  // The pool that created streams map onto, round-robin (channels.cpp): made one by one as
  // streams need them, up to CUDA_DEVICE_MAX_CONNECTIONS - 1. Owned.
  std::vector<minicuda::libcuda::Channel*> stream_channels;
  unsigned streams_made = 0;
  // The legacy NULL stream's ordering (channels.cpp): per stream channel, the fence of it that
  // the context's channel already waits for, and the context channel's fence it waits for.
  std::map<const minicuda::libcuda::Channel*, uint64_t> null_waits_for, waits_for_null;
  void* staging = nullptr;
  HostAlloc staging_alloc;
  // Set when the GPU reported a fault on the context's channel: from then on every call that
  // needs the context returns it, until the primary context is reset (see sticky_error()).
  CUresult sticky = CUDA_SUCCESS;
  // Streams and events made in this context (stream.cpp); owned, freed by teardown().
  std::set<CUstream_st*> streams;
  std::set<CUevent_st*> events;
  // The semaphores the events release (event_semaphores.h): slots taken by live events.
  minicuda::libcuda::EventSemaphores event_semaphores;
  // Each host thread's per-thread default stream (CU_STREAM_PER_THREAD), made at its first use;
  // also in `streams`, which owns it.
  std::map<std::thread::id, CUstream_st*> per_thread_streams;
  // The thread that runs host functions (host_func.cpp); made at the first one, owned.
  minicuda::libcuda::HostFunctions* host_functions = nullptr;
  uint64_t epoch = 0;  // which build() of the context this is (kernel code records belong to one)
  // cuCtxSetLimit / cuCtxSetCacheConfig (ctx_config.cpp): the H200's defaults
  // (probe_api_families.txt rt.getLimit.*), by CUlimit.
  static constexpr std::array<size_t, CU_LIMIT_MAX> kDefaultLimits = {1024,  8650752,  8388608, 0,      2048,
                                                                      64,    11796480, 232448,  0,      0};
  std::array<size_t, CU_LIMIT_MAX> limits = kDefaultLimits;
  // The device malloc heap (device_heap.cpp): allocated at the first launch of a context build
  // (epoch), cudaLimitMallocHeapSize bytes; stale when its epoch is not the context's.
  struct DeviceHeap {
    uint64_t epoch = 0;
    CUdeviceptr va = 0;
    uint64_t bytes = 0;
  } device_heap;
  CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
  std::set<CUctx_st*> peers;  // contexts cuCtxEnablePeerAccess let this one reach (peer.cpp)
  minicuda::libcuda::StreamAttributes null_stream_attributes;  // the NULL stream's (stream_attributes.cpp)
};

namespace minicuda::libcuda {
struct JitModule;
}
namespace minicuda::ptx {
struct CompiledKernel;
}

// A kernel as libcuda knows it: its image in a loaded library and, per context, where its code
// record sits in the GPU's memory. A CUkernel is usable wherever a CUfunction is (cuLaunchKernel
// takes both), so both handles point at one of these.
struct CUfunc_st {
  static constexpr uint32_t kMagic = 0x4B524E4C;  // "KRNL"
  uint32_t magic = kMagic;
  const minicuda::fatbin::KernelImage* image = nullptr;
  CUlib_st* library = nullptr;
  int max_dynamic_shared = 48 << 10;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  int carveout = -1;                  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
  CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;  // cuFuncSetCacheConfig (recorded)
  int non_portable_cluster = 0;       // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
  int cluster_policy = 0;             // CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE (recorded)
  unsigned required_cluster[3] = {0, 0, 0};  // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_* set at run time (0: none)
  // A PTX kernel (its image has no host entry): what the JIT made of it (owned by the library's
  // JitModule, jit.h); null for a C++ kernel.
  const minicuda::ptx::CompiledKernel* ptx = nullptr;
  struct Loaded {
    uint64_t epoch = 0;    // the context's build the record belongs to
    uint64_t code_va = 0;  // its GPU address
    std::shared_ptr<const void> sass;  // a PTX kernel's program, its symbols bound for the context
  };
  std::map<CUctx_st*, Loaded> loaded;
};
struct CUkern_st : CUfunc_st {};
struct CUlib_st {
  static constexpr uint32_t kMagic = 0x4C494252;  // "LIBR"
  uint32_t magic = kMagic;
  const minicuda::fatbin::ModuleImage* module = nullptr;
  // Under lazy loading an image that is not a fatbinary minicuda can run still loads; the error
  // its parse gave (CUDA_ERROR_INVALID_IMAGE, ...) is what cuLibraryGetKernel returns.
  CUresult image_error = CUDA_SUCCESS;
  std::vector<std::unique_ptr<CUkern_st>> kernels;
  // Made by cuModuleLoad* (a CUmodule handle) rather than cuLibraryLoad*.
  bool is_module = false;
  // A module from PTX: the JIT's result and the images made of it (`module` points into it).
  std::shared_ptr<minicuda::libcuda::JitModule> jit;
  // The module's __device__ and __constant__ variables in each context (module_globals.cpp).
  struct Globals {
    uint64_t epoch = 0;                // the context's build the segment belongs to
    std::vector<CUdeviceptr> address;  // per VariableImage of the module
  };
  std::map<CUctx_st*, Globals> globals;
};

// A CUmodule is a CUlib_st (reinterpret_cast both ways; cuModuleLoad* sets is_module): CUmod_st
// is only the handle's name.
struct CUmod_st;

// A stream: an ordered queue of work on one channel of the context's pool (channels.cpp), in
// submission order; it remembers the fence of its last work there, to wait for it alone.
struct CUstream_st {
  CUctx_st* ctx = nullptr;
  minicuda::libcuda::StreamAttributes attributes;  // cuStreamSetAttribute (stream_attributes.cpp)
  minicuda::libcuda::Channel* channel = nullptr;  // from the context's pool (channels.cpp)
  unsigned flags = 0;       // CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING
  int priority = 0;         // within cuCtxGetStreamPriorityRange (recorded; the GPU model has one runlist)
  uint64_t last_fence = 0;  // fence of the stream's last submission on its channel (0: none yet)
};

// An event: a point in a stream, recorded as a timestamped semaphore release
// (Channel::release_timestamped) into its slot of the context channel's semaphore page.
struct CUevent_st {
  CUctx_st* ctx = nullptr;
  unsigned flags = 0;
  uint32_t slot = 0;        // its semaphore (EventSemaphores)
  minicuda::libcuda::Channel* channel = nullptr;  // the channel of its last record
  uint64_t fence = 0;       // that record's fence on it (0: never recorded)
};

namespace minicuda::libcuda {

// Reads a module file (module_load.cpp): CUDA_ERROR_FILE_NOT_FOUND (missing),
// CUDA_ERROR_OUT_OF_MEMORY (unreadable: a directory), else the bytes with a NUL after them.
CUresult read_image_file(const char* path, std::string* out);
// A live CUfunction/CUkernel of this process, or null (launch.cpp).
CUfunc_st* find_function(const void* handle);
// The shared memory one block of f holds with `dynamic` bytes of dynamic shared memory: that plus
// f's static __shared__ (a PTX kernel's, as the JIT laid it out; 0 for a C++ kernel, whose static
// shared memory is not measured). What the occupancy rules charge a block (occupancy.cpp).
uint64_t block_shared_bytes(const CUfunc_st& f, size_t dynamic);
// Thread block clusters (cluster.cpp). The cluster shape of a launch of f: `requested` (the
// CLUSTER_DIMENSION attribute, or null when the launch gives none) or the shape f was compiled
// with; *out = 1x1x1 and *explicit_cluster = false for a launch without a cluster. Checks the shape
// against the grid, the size limits (8, or 16 with NON_PORTABLE_CLUSTER_SIZE_ALLOWED), f's compiled
// shape and whether a cluster's blocks fit on one GPC at once; the reason of a refusal goes to the trace.
CUresult cluster_for_launch(CUctx_st& ctx, const CUfunc_st& f, const unsigned grid[3], const unsigned block[3],
                            unsigned shared, const unsigned* requested, unsigned out[3], bool* explicit_cluster);
// cuFuncGetAttribute / cuFuncSetAttribute of the cluster attributes (10 .. 15); false: not one of them.
bool cluster_attribute(const CUfunc_st& f, CUfunction_attribute attrib, int* value);
bool set_cluster_attribute(CUfunc_st& f, CUfunction_attribute attrib, int value, CUresult* result);
// *code_va = the GPU address of f's code record in ctx, uploading it there at first use
// (module.cpp), after the variables of every loaded library (load_globals). CUDA_SUCCESS;
// CUDA_ERROR_OUT_OF_MEMORY when the context's code segment is full; or load_globals' error.
CUresult function_code(CUctx_st& ctx, CUfunc_st& f, uint64_t* code_va);
// Loads lib's variables into ctx once per context build (module_globals.cpp): the global segment
// and the constant bank allocated in device memory, the static initializers copied in by the copy
// engine, and each variable's slot set to its device address. CUDA_SUCCESS, or the allocation's or
// copy's error. Kernel code reaches a variable through its one slot, so a module's variables can
// be live in one context of a process at a time: while another live context of the process
// (another GPU's) holds them, CUDA_ERROR_NOT_SUPPORTED, with a trace note that says so. (Another
// simulated process that loads them takes the slots over: its kernels then see its storage.)
CUresult load_globals(CUctx_st& ctx, CUlib_st& lib);
// The context's device malloc heap for a launch of f (device_heap.cpp): *va and *bytes of the heap
// that constant bank 4 gives the grid (0 and 0: none). The heap is allocated from the pool and
// formatted (through the copy engine) at the first launch of a kernel whose module uses it
// (fatbin::kModuleUsesDeviceHeap); from then on every launch in the context build gets it.
// CUDA_SUCCESS, or the allocation's or copy's error.
CUresult device_heap_for_launch(CUctx_st& ctx, const CUfunc_st& f, uint64_t* va, uint64_t* bytes);
// cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, bytes)'s part in the heap: CUDA_SUCCESS when the size
// may still change (no heap yet, or one no kernel has used: it is freed, and the next launch
// allocates the new size); otherwise the H200's error for a heap in use.
CUresult device_heap_resize(CUctx_st& ctx, uint64_t bytes);

// A context was built (its epoch is live) or torn down: which contexts may hold variables' slots
// (module_globals.cpp).
void globals_context_built(uint64_t epoch);
void globals_context_torn_down(uint64_t epoch);

// The calling thread's current context, or null.
CUcontext current_context();
// CUDA_SUCCESS and *ctx = the current, active context; else CUDA_ERROR_INVALID_CONTEXT, or the
// context's sticky error once the GPU has faulted on it (*ctx is not set then).
CUresult require_context(CUcontext* ctx);
// The context's sticky error: CUDA_SUCCESS until its channel's error notifier reports a fault,
// then CUDA_ERROR_ILLEGAL_ADDRESS (700) for good - as the real driver poisons a context after an
// MMU fault (probe_sticky.txt) - until the primary context is reset.
CUresult sticky_error(CUctx_st& ctx);
// What stream handle 0 means in a call, and which stream the synchronous copies and memsets use:
// the legacy default stream (the plain entry points) or the calling thread's per-thread default
// stream (the _ptsz and _ptds entry points, which a program compiled with
// CUDA_API_PER_THREAD_DEFAULT_STREAM calls: cuda.h section 6). libcudart passes the same mode
// (its DefaultStream) and calls the matching entry point by name.
enum class DefaultStream { Legacy, PerThread };
// *out = the stream hStream names in ctx; nullptr for the legacy default stream (CU_STREAM_LEGACY,
// and 0 when mode is Legacy); the calling thread's per-thread stream for CU_STREAM_PER_THREAD (and
// 0 when mode is PerThread), made at its first use: the error of making its channel, if any. Not
// a live stream of ctx: CUDA_ERROR_INVALID_HANDLE.
CUresult resolve_stream(CUctx_st& ctx, CUstream hStream, CUstream_st** out, DefaultStream mode = DefaultStream::Legacy);
// --- managed memory (managed.cpp) -------------------------------------------------------------
// Is [addr, addr+n) inside one managed allocation of an active context?
bool is_managed(uint64_t addr, uint64_t n);
// The managed allocation of ctx holding addr: *start and *size (requested bytes). False if none.
bool find_managed(CUctx_st& ctx, uint64_t addr, uint64_t* start, uint64_t* size);
// cuMemFree_v2 of a managed allocation's base: UVM_FREE and munmap. CUDA_ERROR_INVALID_VALUE if
// dptr is not the base of one.
CUresult free_managed(CUctx_st& ctx, uint64_t dptr);
// A copy or memset with managed memory on a side: done by the CPU once the context's queued work
// is done, touching the pages as the CPU does (a page on the GPU faults back to the host). Bad
// memory on the other side: CUDA_ERROR_INVALID_VALUE.
CUresult managed_copy(CUctx_st& ctx, uint64_t dst, uint64_t src, uint64_t n);
CUresult managed_memset(CUctx_st& ctx, uint64_t dst, uint32_t value, uint32_t bytes, uint64_t n);

// Frees every stream and event of ctx (context teardown).
void free_streams_and_events(CUctx_st& ctx);

// --- the context's channels (channels.cpp) ---------------------------------------------------
// The channel stream s's work goes to: its pool channel, or the context's own for the NULL
// stream (null s).
minicuda::libcuda::Channel& channel_of(CUctx_st& ctx, CUstream_st* s);
// Gives a new stream its channel from the pool (making the channel at the pool slot's first
// use: RM objects, so ioctls). The error of the channel's creation, if any.
CUresult assign_channel(CUctx_st& ctx, CUstream_st& s);
// Before work is queued on s: appends to s's channel the acquires of the legacy NULL stream's
// rule - the NULL stream waits for the work queued on every blocking stream, a blocking stream
// waits for the work queued on the NULL stream (non-blocking streams: nothing).
void order_with_null_stream(CUctx_st& ctx, CUstream_st* s);
// After work was submitted to s's channel with fence: the stream's last work.
void submitted(CUstream_st* s, uint64_t fence);
// Waits for the work queued on every channel of the context; the first error (a fault).
CUresult wait_all(CUctx_st& ctx);
// A channel of the context the GPU stopped (its error notifier is set), or null.
minicuda::libcuda::Channel* faulted_channel(CUctx_st& ctx);
// done() for a call that worked on ctx's channels: a failure that a GPU fault explains (a
// channel's error notifier is set: the wait saw the fault) is returned as the context's sticky
// error.
inline CUresult done(trace::Scope& scope, CUctx_st& ctx, CUresult r) {
  if (r != CUDA_SUCCESS && faulted_channel(ctx) != nullptr) r = sticky_error(ctx);
  return done(scope, r);
}
// Frees the pool's channels (context teardown, after waiting for their work).
void destroy_stream_channels(CUctx_st& ctx);
// Runs the host functions still queued (their streams' work finishing first) and stops the
// context's host-function thread (context teardown; host_func.cpp).
void stop_host_functions(CUctx_st& ctx);
// Is the calling thread running a host function? (The CUDA API is off limits there.)
bool in_host_function();
// The primary context of a device (whether or not active).
CUcontext primary_context(CUdevice dev);
// Is ctx a context this driver made?
bool valid_context(CUcontext ctx);

// --- several GPUs (peer.cpp) ------------------------------------------------------------------
// The active context whose device allocation holds [p, p+n), or null.
CUctx_st* owner_context(uint64_t p, uint64_t n);
// Copies n bytes from src_ctx's device memory to dst_ctx's, staged through host memory; the
// destination side is ordered after dst_stream (null: the NULL stream).
CUresult copy_between(CUctx_st& dst_ctx, uint64_t dst, CUctx_st& src_ctx, uint64_t src, uint64_t n,
                      CUstream_st* dst_stream);
// cuMemcpy's UVA rule: when dst or src is another device's allocation, copies through
// copy_between (stream: ctx's stream, for ctx's side), sets *r and returns true; else false.
bool copy_across_devices(CUctx_st& ctx, uint64_t dst, uint64_t src, uint64_t n, CUstream_st* stream, CUresult* r);
// The context whose device memory [p, p+n) is: ctx if ctx reaches it (its own or managed
// memory), else the active context that owns it (UVA), else null (host memory, or nothing).
CUctx_st* device_owner(CUctx_st& ctx, uint64_t p, uint64_t n);
// A copy asked for in ctx's stream whose device sides are dst_owner's and src_owner's memory (null:
// a host side). Both ctx's or host: copy() in stream. Else, as the real driver finds the owner of
// a pointer through UVA: after the stream's work so far, on the owning contexts (copy_between for
// two devices), complete on return.
CUresult copy_uva(CUctx_st& ctx, uint64_t dst, CUctx_st* dst_owner, uint64_t src, CUctx_st* src_owner, uint64_t n,
                  CUstream_st* stream, bool async);

// Pins `size` bytes of fresh anonymous memory for the GPU (mmap, RM_ALLOC_MEMORY of an OS
// descriptor, UVM map at the same address). The context's cuMemHostAlloc and staging buffer.
CUresult pin_host_memory(CUctx_st& ctx, uint64_t size, void** host, CUctx_st::HostAlloc* alloc);
// The size of a context's pinned staging buffer for pageable copies.
inline constexpr uint64_t kStagingBytes = 2ull << 20;
// Undoes pin_host_memory.
void unpin_host_memory(CUctx_st& ctx, void* host, const CUctx_st::HostAlloc& alloc);

}  // namespace minicuda::libcuda
