// The stream-ordered allocator's entry points: cuMemAllocAsync / cuMemFreeAsync /
// cuMemAllocFromPoolAsync, the cuMemPool* calls and the device's default and current pools.
// The heap behind them is mempool_alloc.cpp; the rules are in mempool.h.
#include <cstring>
#include <set>

#include "channel.h"
#include "mempool.h"
#include "pool.h"

namespace minicuda::libcuda {

namespace {

// The pools of one simulated process, guarded by driver_mutex().
struct MemPools {
  std::set<CUmemPoolHandle_st*> pools;                 // every live pool, owned
  std::map<CUdevice, CUmemPoolHandle_st*> defaults;    // made at first use, never destroyed
  std::map<CUdevice, CUmemPoolHandle_st*> current;     // cuDeviceSetMemPool's choice
  std::map<CUstream_st*, std::map<const Channel*, uint64_t>> waited;  // event dependencies per stream
};
MemPools& mempools() {
  static std::map<Driver*, MemPools> per_process;  // guarded by driver_mutex()
  return per_process[&driver()];
}

const char* attr_name(CUmemPool_attribute a) {
  switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: return "CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES";
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: return "CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC";
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: return "CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES";
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: return "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD";
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: return "CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT";
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: return "CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH";
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: return "CU_MEMPOOL_ATTR_USED_MEM_CURRENT";
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: return "CU_MEMPOOL_ATTR_USED_MEM_HIGH";
  }
  return "CUmemPool_attribute(?)";
}

// The default pool of dev, made at its first use.
CUmemPoolHandle_st* default_pool(CUdevice dev) {
  MemPools& m = mempools();
  CUmemPoolHandle_st*& p = m.defaults[dev];
  if (p == nullptr) {
    p = new CUmemPoolHandle_st;
    p->device = dev;
    p->is_default = true;
    p->props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p->props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p->props.location.id = dev;
    m.pools.insert(p);
  }
  return p;
}

CUmemPoolHandle_st* current_pool(CUdevice dev) {
  auto it = mempools().current.find(dev);
  return it != mempools().current.end() ? it->second : default_pool(dev);
}

CUresult alloc_async(const char* api, DefaultStream mode, CUdeviceptr* dptr, size_t bytesize, CUmemoryPool hPool,
                     bool from_pool, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dptr={}, bytesize={}, {}hStream={})", api, static_cast<void*>(dptr),
                     bytesize, from_pool ? fmt::format("pool={}, ", static_cast<void*>(hPool)) : std::string(),
                     static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (dptr == nullptr || bytesize == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUmemPoolHandle_st* pool = from_pool ? find_mempool(hPool) : current_pool(ctx->device);
  if (pool == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  uint64_t p = 0;
  if (CUresult r = mempool_allocate(*ctx, *pool, bytesize, s, &p); r != CUDA_SUCCESS) return done(scope, r);
  *dptr = p;
  if (scope.active()) scope.result("CUDA_SUCCESS, *dptr={:#x}", p);
  return CUDA_SUCCESS;
}

CUresult free_async(const char* api, DefaultStream mode, CUdeviceptr dptr, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(dptr={:#x}, hStream={})", api, dptr, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* pool = mempool_of_allocation(dptr);
  if (pool == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, mempool_free(*ctx, *pool, dptr, s));
}

}  // namespace

CUmemPoolHandle_st* find_mempool(CUmemoryPool pool) {
  return pool != nullptr && mempools().pools.count(pool) != 0 && !pool->destroyed ? pool : nullptr;
}

CUmemPoolHandle_st* mempool_of_allocation(uint64_t dptr) {
  for (CUmemPoolHandle_st* pool : mempools().pools) {
    mempool_forget_if_reset(*pool);
    auto chunk = pool->chunks.upper_bound(dptr);
    if (chunk == pool->chunks.begin()) continue;
    --chunk;
    auto b = chunk->second.blocks.find(dptr);
    if (b != chunk->second.blocks.end() && b->second.live) return pool;
  }
  return nullptr;
}

void mempool_synchronized(CUctx_st& ctx) {
  for (CUmemPoolHandle_st* pool : mempools().pools)
    if (pool->ctx == &ctx) mempool_release(*pool, pool->release_threshold, "synchronize");
}

void mempool_stream_waited(CUstream_st* s, const Channel* ch, uint64_t fence) {
  uint64_t& f = mempools().waited[s][ch];
  f = std::max(f, fence);
}

uint64_t mempool_waited_fence(CUstream_st* s, const Channel* ch) {
  MemPools& m = mempools();
  auto it = m.waited.find(s);
  if (it == m.waited.end()) return 0;
  auto f = it->second.find(ch);
  return f == it->second.end() ? 0 : f->second;
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: see cuda_mempool.h. bytesize 0 or NULL dptr: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return alloc_async("cuMemAllocAsync", DefaultStream::Legacy, dptr, bytesize, nullptr, false, hStream);
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return alloc_async("cuMemAllocAsync_ptsz", DefaultStream::PerThread, dptr, bytesize, nullptr, false, hStream);
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
  return alloc_async("cuMemAllocFromPoolAsync", DefaultStream::Legacy, dptr, bytesize, pool, true, hStream);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
  return alloc_async("cuMemAllocFromPoolAsync_ptsz", DefaultStream::PerThread, dptr, bytesize, pool, true, hStream);
}
// Contract: see cuda_mempool.h. A pointer that starts no live pool allocation (0, cuMemAlloc's,
// interior, freed): CUDA_ERROR_INVALID_VALUE.
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return free_async("cuMemFreeAsync", DefaultStream::Legacy, dptr, hStream);
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
  return free_async("cuMemFreeAsync_ptsz", DefaultStream::PerThread, dptr, hStream);
}

// Contract: *pool = a new, empty pool. NULL pool or poolProps, allocType not PINNED, a location
// that is not a device of this machine, unknown handle types, nonzero reserved bytes:
// CUDA_ERROR_INVALID_VALUE (a bad device ordinal: CUDA_ERROR_INVALID_DEVICE).
CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolCreate(pool={}, poolProps={})", static_cast<void*>(pool),
                     static_cast<const void*>(poolProps));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pool == nullptr || poolProps == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const CUmemPoolProps& p = *poolProps;
  if (p.allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (p.location.type != CU_MEM_LOCATION_TYPE_DEVICE) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (device_info(p.location.id) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  const unsigned known = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;
  if ((static_cast<unsigned>(p.handleTypes) & ~known) != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (unsigned char c : p.reserved)
    if (c != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto* made = new CUmemPoolHandle_st;
  made->device = p.location.id;
  made->props = p;
  mempools().pools.insert(made);
  *pool = made;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pool={}", static_cast<void*>(made));
  return CUDA_SUCCESS;
}

// Contract: destroys a pool made by cuMemPoolCreate: its free memory goes back to the kernel;
// allocations still live stay usable until freed. If it was a device's current pool, the
// default pool is current again. NULL or unknown pool: CUDA_ERROR_INVALID_VALUE; a default pool:
// CUDA_ERROR_INVALID_VALUE.
CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolDestroy(pool={})", static_cast<void*>(pool));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || p->is_default) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (auto it = mempools().current.begin(); it != mempools().current.end();)
    it = it->second == p ? mempools().current.erase(it) : std::next(it);
  mempool_release(*p, 0, "cuMemPoolDestroy");
  if (p->used == 0 && p->chunks.empty()) {
    mempools().pools.erase(p);
    delete p;
  } else {
    // Live allocations keep their chunks; the handle stays only as their owner.
    trace::note(trace::Layer::Libcuda, "mempool: {} B still in use: the chunks stay until freed", p->used);
    p->destroyed = true;
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: releases free memory (frees the GPU has passed) until the pool holds at most
// minBytesToKeep. NULL or unknown pool: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolTrimTo(pool={}, minBytesToKeep={})", static_cast<void*>(pool),
                     minBytesToKeep);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  mempool_release(*p, minBytesToKeep, "cuMemPoolTrimTo");
  return done(scope, CUDA_SUCCESS);
}

// Contract: sets a pool attribute from *value (an int for the three REUSE flags, a cuuint64_t for
// the rest). RESERVED_MEM_HIGH and USED_MEM_HIGH take only 0 (a reset to the current value); the
// two _CURRENT ones are read only. NULL pool or value, unknown attribute, a read-only one, a
// nonzero high-water value: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolSetAttribute(pool={}, attr={}, value={})",
                     static_cast<void*>(pool), attr_name(attr), value);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || value == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const int flag = *static_cast<const int*>(value);
  switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: p->follow_event_dependencies = flag != 0; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: p->allow_opportunistic = flag != 0; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: p->allow_internal_dependencies = flag != 0; break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: p->release_threshold = *static_cast<const cuuint64_t*>(value); break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
      if (*static_cast<const cuuint64_t*>(value) != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
      p->reserved_high = p->reserved;
      break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
      if (*static_cast<const cuuint64_t*>(value) != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
      p->used_high = p->used;
      break;
    default: return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: *value = the attribute (an int for the three REUSE flags, a cuuint64_t for the rest).
// NULL pool or value, unknown attribute: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolGetAttribute(pool={}, attr={}, value={})",
                     static_cast<void*>(pool), attr_name(attr), value);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || value == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  mempool_forget_if_reset(*p);
  auto* v64 = static_cast<cuuint64_t*>(value);
  switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: *static_cast<int*>(value) = p->follow_event_dependencies; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: *static_cast<int*>(value) = p->allow_opportunistic; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *static_cast<int*>(value) = p->allow_internal_dependencies; break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *v64 = p->release_threshold; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *v64 = p->reserved; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *v64 = p->reserved_high; break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *v64 = p->used; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *v64 = p->used_high; break;
    default: return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: access of other devices to the pool. Each entry must name a device of this machine
// (else CUDA_ERROR_INVALID_DEVICE) and use a known flag; the owning device always keeps
// read-write access, so an entry for it that asks anything else: CUDA_ERROR_INVALID_DEVICE.
// NULL pool, or NULL map with count > 0: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolSetAccess(pool={}, map={}, count={})", static_cast<void*>(pool),
                     static_cast<const void*>(map), count);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || (map == nullptr && count > 0)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (size_t i = 0; i < count; ++i) {
    const CUmemAccessDesc& d = map[i];
    if (d.location.type != CU_MEM_LOCATION_TYPE_DEVICE) return done(scope, CUDA_ERROR_INVALID_VALUE);
    if (device_info(d.location.id) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
    if (d.flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d.flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        d.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return done(scope, CUDA_ERROR_INVALID_VALUE);
    if (d.location.id == p->device && d.flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return done(scope, CUDA_ERROR_INVALID_DEVICE);
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: *flags = the access location has to the pool's memory: read-write for the owning
// device. NULL arguments or a location that is not a device: CUDA_ERROR_INVALID_VALUE; a device
// this machine does not have: CUDA_ERROR_INVALID_DEVICE.
CUresult cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool memPool, CUmemLocation* location) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolGetAccess(flags={}, memPool={}, location={})",
                     static_cast<void*>(flags), static_cast<void*>(memPool), static_cast<void*>(location));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  CUmemPoolHandle_st* p = find_mempool(memPool);
  if (p == nullptr || flags == nullptr || location == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (location->type != CU_MEM_LOCATION_TYPE_DEVICE) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (device_info(location->id) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  *flags = location->id == p->device ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pool_out = the device's default pool (made at first use, the same handle after).
// NULL pool_out: CUDA_ERROR_INVALID_VALUE; no such device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetDefaultMemPool(pool_out={}, dev={})",
                     static_cast<void*>(pool_out), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pool_out == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (device_info(dev) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  *pool_out = default_pool(dev);
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pool = the pool cuMemAllocAsync uses on dev. NULL pool: CUDA_ERROR_INVALID_VALUE; no
// such device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetMemPool(pool={}, dev={})", static_cast<void*>(pool), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pool == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (device_info(dev) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  *pool = current_pool(dev);
  return done(scope, CUDA_SUCCESS);
}

// Contract: makes pool the one cuMemAllocAsync uses on dev. No such device:
// CUDA_ERROR_INVALID_DEVICE; NULL or unknown pool, or a pool of another device:
// CUDA_ERROR_INVALID_VALUE.
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceSetMemPool(dev={}, pool={})", dev, static_cast<void*>(pool));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (device_info(dev) == nullptr) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || p->device != dev) return done(scope, CUDA_ERROR_INVALID_VALUE);
  mempools().current[dev] = p;
  return done(scope, CUDA_SUCCESS);
}
