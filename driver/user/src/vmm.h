// Private to libcuda: virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, sharing as a file descriptor).
//
// The API splits what cuMemAlloc does in one step into three objects:
//   an allocation   video memory with no address: one NV01_MEMORY_LOCAL_USER object (RM_ALLOC),
//                   named by a CUmemGenericAllocationHandle (vmm.cpp)
//   a reservation   a range of the context's GPU VA space mapped to nothing, taken from the
//                   pool's VA allocator: libcuda's bookkeeping, no system call (vmm_map.cpp)
//   a mapping       [offset, offset + size) of an allocation at an address of a reservation:
//                   cuMemMap only records it; cuMemSetAccess makes the UVM range
//                   (UVM_CREATE_EXTERNAL_RANGE) and writes the page-table entries
//                   (UVM_MAP_EXTERNAL_ALLOCATION), read-only or read-write; until then the GPU
//                   faults on it; cuMemUnmap frees the range (UVM_FREE) (vmm_map.cpp)
// That is the H200's sequence (tests/data/h200/vmm/out/vmm_trace.txt): cuMemCreate is one
// RM_ALLOC, cuMemAddressReserve and cuMemMap make no system call.
// An allocation lives while a handle or a mapping refers to it: cuMemRelease drops a handle's
// reference, cuMemUnmap a mapping's; the last one frees the RM object (RM_FREE).
// Sharing (vmm_share.cpp): cuMemExportToShareableHandle opens /dev/nvidiactl and binds the RM
// object to that new fd; importing it dups the object into the process's client again, a new
// allocation of the same memory.
// Locking: every structure here is the process's and guarded by driver_mutex().
#pragma once

#include <cstdint>
#include <map>
#include <set>

#include "libcuda.h"

namespace minicuda::libcuda {

// The granularity of sizes, offsets and addresses (cuMemGetAllocationGranularity, both options).
inline constexpr uint64_t kVmmGranularity = 2ull << 20;

// What a CUmemGenericAllocationHandle names (its value is this struct's address).
struct VmmAllocation {
  CUdevice device = 0;
  uint64_t size = 0;
  CUmemAllocationProp prop{};  // as created (or, imported, as exported)
  NvHandle hMemory = 0;        // the NV01_MEMORY_LOCAL_USER object, under the device
  int handles = 0;             // references: cuMemCreate / Retain / Import, dropped by cuMemRelease
  int mappings = 0;            // live mappings of it
};

// A mapping of cuMemMap: [va, va + size) shows [offset, offset + size) of alloc.
struct VmmMapping {
  uint64_t size = 0;
  VmmAllocation* alloc = nullptr;
  uint64_t offset = 0;
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;  // the owning device's (cuMemSetAccess)
  bool uvm_range = false;  // UVM_CREATE_EXTERNAL_RANGE done (at the first cuMemSetAccess)
};

// A reservation of cuMemAddressReserve, in the VA space of ctx.
struct VmmReservation {
  uint64_t size = 0;
  CUctx_st* ctx = nullptr;
};

// What an export fd shares, as the importer needs it: the allocation's device, size and
// properties (the kernel knows only the memory).
struct VmmExport {
  CUdevice device = 0;
  uint64_t size = 0;
  CUmemAllocationProp prop{};
};

struct VmmState {
  std::set<VmmAllocation*> allocations;             // owned
  std::map<uint64_t, VmmReservation> reservations;  // by start address
  std::map<uint64_t, VmmMapping> mappings;          // by start address
  std::map<int, VmmExport> exports;                 // by fd (vmm_share.cpp)
};

// The process's VMM state (made at first use).
VmmState& vmm_state();
// The live allocation a handle names, or null (a made-up or released handle).
VmmAllocation* find_allocation(CUmemGenericAllocationHandle handle);
// Drops one reference (a handle's or a mapping's); the last frees the RM object.
void drop_reference(VmmAllocation* alloc);
// The mapping containing addr, or null; *start = its address.
VmmMapping* find_mapping(uint64_t addr, uint64_t* start);
// Is [addr, addr + n) device memory of ctx that VMM mappings with access cover without a gap?
// (copies through the copy engine: copy.cpp's classify()).
bool vmm_covers(const CUctx_st& ctx, uint64_t addr, uint64_t n);
// What the pointer queries report for an address inside a mapping (measured, vmm_trace.txt
// mapped-noaccess / mapped-rw): the reservation as the range, the mapping as the mapping.
struct VmmPointer {
  CUctx_st* ctx = nullptr;
  uint64_t reservation = 0, reservation_size = 0;
  uint64_t mapping = 0, mapping_size = 0;
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
};
bool vmm_pointer(uint64_t addr, VmmPointer* out);
// Context teardown: its reservations and mappings go (the VA space goes with the context).
void vmm_context_torn_down(CUctx_st& ctx);

}  // namespace minicuda::libcuda
