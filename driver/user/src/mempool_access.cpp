// Access of other devices to a memory pool (cuMemPoolSetAccess / cuMemPoolGetAccess).
//
// A pool's memory lives in its owner's VRAM and is mapped in the owner's page table. Granting
// another device access maps every piece the pool holds into that device's page table as well,
// at the same address (UVA): UVM_MAP_EXTERNAL_ALLOCATION of the piece's RM memory for the peer
// GPU, which nvidia-uvm writes as Peer PTEs (read-only for READ). Pieces mapped later get the same
// mappings (mempool_map_for_peers, called as the pool grows); a piece given back takes them along
// (its UVM_FREE drops every GPU's mapping, the peers' first). Taking access away (NONE) is
// UVM_UNMAP_EXTERNAL for that GPU: its kernels then fault on the memory, as the real GPU's do.
#include <cstring>

#include "mempool.h"

namespace minicuda::libcuda {

namespace {

const char* access_name(CUmemAccess_flags f) {
  switch (f) {
    case CU_MEM_ACCESS_FLAGS_PROT_NONE: return "NONE";
    case CU_MEM_ACCESS_FLAGS_PROT_READ: return "READ";
    case CU_MEM_ACCESS_FLAGS_PROT_READWRITE: return "READWRITE";
    default: return "?";
  }
}

CUmemAccess_flags peer_access_of(const CUmemPoolHandle_st& pool, CUdevice dev) {
  auto it = pool.peer_access.find(dev);
  return it == pool.peer_access.end() ? CU_MEM_ACCESS_FLAGS_PROT_NONE : it->second;
}

// Can dev reach the owner's memory at all (cuDeviceCanAccessPeer: GPUs of one architecture)?
bool peer_capable(CUdevice owner, CUdevice dev) {
  const DeviceInfo* a = device_info(owner);
  const DeviceInfo* b = device_info(dev);
  return a != nullptr && b != nullptr && owner != dev && a->major == b->major && a->minor == b->minor;
}

// Calls fn(va, hMemory) for every piece the pool has mapped.
template <typename Fn>
NV_STATUS each_piece(CUmemPoolHandle_st& pool, Fn fn) {
  for (auto& [va, seg] : pool.segments)
    for (auto& [piece, hMemory] : seg.pieces)
      if (NV_STATUS s = fn(piece, hMemory); s != NV_OK) return s;
  return NV_OK;
}

// Changes dev's access to the pool from its current value to `to`: the old PTEs of every piece go
// from dev's page table, the new ones are written. If a mapping fails, dev is left with no access
// (every piece unmapped for it) and the failure is returned.
CUresult change_access(CUmemPoolHandle_st& pool, CUdevice dev, CUmemAccess_flags to) {
  const CUmemAccess_flags from = peer_access_of(pool, dev);
  if (from == to) return CUDA_SUCCESS;
  const CUuuid& uuid = device_info(dev)->uuid;
  uint64_t pieces = 0;
  for (auto& [va, seg] : pool.segments) pieces += seg.pieces.size();
  trace::note(trace::Layer::Libcuda, "mempool: device {}'s access {} -> {}: {} piece{} of 32 MiB {} gpu{}'s page table",
              dev, access_name(from), access_name(to), pieces, pieces == 1 ? "" : "s",
              to == CU_MEM_ACCESS_FLAGS_PROT_NONE ? "unmapped from" : "mapped into", dev);
  if (pool.ctx == nullptr) {  // nothing mapped yet: later pieces follow the table
    if (to == CU_MEM_ACCESS_FLAGS_PROT_NONE) pool.peer_access.erase(dev);
    else pool.peer_access[dev] = to;
    return CUDA_SUCCESS;
  }
  const int uvm_fd = pool.ctx->uvm_fd;
  NV_STATUS s = NV_OK;
  if (from != CU_MEM_ACCESS_FLAGS_PROT_NONE)
    s = each_piece(pool, [&](uint64_t piece, NvHandle) {
      return uvm_unmap_for_gpu(uvm_fd, piece, kMemPoolPieceBytes, uuid);
    });
  pool.peer_access.erase(dev);
  if (s == NV_OK && to != CU_MEM_ACCESS_FLAGS_PROT_NONE) {
    s = each_piece(pool, [&](uint64_t piece, NvHandle hMemory) {
      return uvm_map_for_gpu(uvm_fd, piece, kMemPoolPieceBytes, uuid, hMemory, to == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    });
    if (s == NV_OK) {
      pool.peer_access[dev] = to;
    } else {
      // Take back the pieces that were mapped (an unmap of a piece that was not answers NV_OK).
      each_piece(pool, [&](uint64_t piece, NvHandle) {
        uvm_unmap_for_gpu(uvm_fd, piece, kMemPoolPieceBytes, uuid);
        return NV_OK;
      });
    }
  }
  return s == NV_OK ? CUDA_SUCCESS : to_cu_result(s);
}

}  // namespace

CUresult mempool_map_for_peers(CUmemPoolHandle_st& pool, uint64_t piece, NvHandle hMemory) {
  for (const auto& [dev, flags] : pool.peer_access) {
    trace::note(trace::Layer::Libcuda, "mempool: device {} has {} access: map the new piece at {:#x} into gpu{}'s page table",
                dev, access_name(flags), piece, dev);
    NV_STATUS s = uvm_map_for_gpu(pool.ctx->uvm_fd, piece, kMemPoolPieceBytes, device_info(dev)->uuid, hMemory,
                                  flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    if (s != NV_OK) return to_cu_result(s);  // the caller's UVM_FREE of the piece drops what was mapped
  }
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: sets the access of the devices map[0..count) names to the pool's memory, in order
// (a later entry for a device wins): NONE, READ (kernels of the device may read it) or READWRITE.
// Every piece the pool holds, and every piece it maps later, is mapped into (or out of) the page
// table of each device whose access changes. The owner always has READWRITE. Measured
// (access.set_*): a flag that is not NONE, READ or READWRITE: CUDA_ERROR_INVALID_VALUE; a host
// location: CUDA_ERROR_NOT_SUPPORTED; another location type: CUDA_ERROR_INVALID_VALUE; a device
// this machine lacks: CUDA_ERROR_INVALID_DEVICE; the owner asking READ: CUDA_ERROR_NOT_SUPPORTED,
// NONE: CUDA_ERROR_INVALID_DEVICE. count 0 (even with a NULL map): CUDA_SUCCESS. NULL pool, or
// NULL map with count > 0: CUDA_ERROR_INVALID_VALUE. Every entry is checked before any applies.
// Peer access (cuCtxEnablePeerAccess) is neither needed nor changed: the CUDA programming guide
// says a pool's accessibility does not follow it and is set by this call alone. The two devices
// must be able to reach each other (cuDeviceCanAccessPeer), else CUDA_ERROR_INVALID_DEVICE (the
// guide's answer for devices that are not peer capable; not measurable on the one-H200 machine).
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolSetAccess(pool={}, map={}, count={})", static_cast<void*>(pool),
                     static_cast<const void*>(map), count);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || (map == nullptr && count > 0)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const bool host_pool = p->props.location.type == CU_MEM_LOCATION_TYPE_HOST;
  for (size_t i = 0; i < count; ++i) {
    const CUmemAccessDesc& d = map[i];
    if (d.flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d.flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        d.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return done(scope, CUDA_ERROR_INVALID_VALUE);
    if (d.location.type == CU_MEM_LOCATION_TYPE_HOST) return done(scope, CUDA_ERROR_NOT_SUPPORTED);
    if (d.location.type != CU_MEM_LOCATION_TYPE_DEVICE) return done(scope, CUDA_ERROR_INVALID_VALUE);
    if (device_info(d.location.id) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
    const bool owner = !host_pool && d.location.id == p->device;
    if (owner && d.flags == CU_MEM_ACCESS_FLAGS_PROT_READ) return done(scope, CUDA_ERROR_NOT_SUPPORTED);
    if (owner && d.flags == CU_MEM_ACCESS_FLAGS_PROT_NONE) return done(scope, CUDA_ERROR_INVALID_DEVICE);
    if (!owner && host_pool) {
      trace::note(trace::Layer::Libcuda, "mempool: device access to a pool of host memory: not built in minicuda");
      return done(scope, CUDA_ERROR_NOT_SUPPORTED);
    }
    if (!owner && !peer_capable(p->device, d.location.id)) {
      trace::note(trace::Layer::Libcuda, "mempool: device {} cannot reach device {}'s memory (cuDeviceCanAccessPeer 0)",
                  d.location.id, p->device);
      return done(scope, CUDA_ERROR_INVALID_DEVICE);
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const CUmemAccessDesc& d = map[i];
    if (host_pool || d.location.id == p->device) continue;  // the owner keeps READWRITE
    if (CUresult r = change_access(*p, d.location.id, d.flags); r != CUDA_SUCCESS) return done(scope, r);
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: *flags = the access location has to the pool's memory: READWRITE for the owning
// device, NONE for the host (measured, access.get_*), what cuMemPoolSetAccess last set for
// another device (NONE before). A device this machine lacks or another location type, NULL
// arguments: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool memPool, CUmemLocation* location) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolGetAccess(flags={}, memPool={}, location={})",
                     static_cast<void*>(flags), static_cast<void*>(memPool), static_cast<void*>(location));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(memPool);
  if (p == nullptr || flags == nullptr || location == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (location->type == CU_MEM_LOCATION_TYPE_HOST) {
    *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    return done(scope, CUDA_SUCCESS);
  }
  if (location->type != CU_MEM_LOCATION_TYPE_DEVICE || device_info(location->id) == nullptr)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  const bool owner = p->props.location.type != CU_MEM_LOCATION_TYPE_HOST && location->id == p->device;
  *flags = owner ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : peer_access_of(*p, location->id);
  if (scope.active()) scope.result("CUDA_SUCCESS, *flags={}", access_name(*flags));
  return CUDA_SUCCESS;
}
