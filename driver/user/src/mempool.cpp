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
  // By pid, as driver(); guarded by driver_mutex(). Never destroyed: pools stay valid for any
  // teardown that runs at exit, and stay reachable (not leaks) until the process ends.
  static auto* per_process = new std::map<int, MemPools>;
  return (*per_process)[kernel::vdso_getpid()];
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
  if (dptr == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUmemPoolHandle_st* pool = from_pool ? find_mempool(hPool) : current_pool(ctx->device);
  if (pool == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  if (pool->props.location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    trace::note(trace::Layer::Libcuda, "mempool: a pool of host memory: not built in minicuda");
    return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  }
  // Measured: a request of 0 bytes succeeds and hands out no memory (driver_null.allocasync_size0).
  if (bytesize == 0) {
    *dptr = 0;
    return done(scope, CUDA_SUCCESS);
  }
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
  if (dptr == 0) return done(scope, CUDA_SUCCESS);  // measured: driver_null.freeasync_0
  if (CUmemPoolHandle_st* pool = mempool_of_allocation(dptr)) return done(scope, mempool_free(*ctx, *pool, dptr, s));
  // Measured: an allocation of cuMemAlloc is freed too, once the stream's work before it is done
  // (freeasync_of_cudamalloc.*); anything else: CUDA_ERROR_INVALID_VALUE.
  uint64_t start = 0, size = 0, chunk = 0, chunk_size = 0;
  if (!ctx->pool->find(dptr, &start, &size, &chunk, &chunk_size) || start != dptr)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  Channel& ch = channel_of(*ctx, s);
  if (CUresult r = ch.wait(ch.last_fence()); r != CUDA_SUCCESS) return done(scope, *ctx, r);
  trace::note(trace::Layer::Libcuda, "mempool: {:#x} is a cuMemAlloc allocation: freed after its stream's work", dptr);
  return done(scope, ctx->pool->free(dptr));
}

}  // namespace

CUmemPoolHandle_st* find_mempool(CUmemoryPool pool) {
  return pool != nullptr && mempools().pools.count(pool) != 0 && !pool->destroyed ? pool : nullptr;
}

CUmemPoolHandle_st* mempool_of_allocation(uint64_t dptr) {
  for (CUmemPoolHandle_st* pool : mempools().pools) {
    auto seg = pool->segments.upper_bound(dptr);
    if (seg == pool->segments.begin()) continue;
    --seg;
    auto b = seg->second.blocks.find(dptr);
    if (b != seg->second.blocks.end() && b->second.live) return pool;
  }
  return nullptr;
}

CUmemPoolHandle_st* mempool_containing(uint64_t addr) {
  for (CUmemPoolHandle_st* pool : mempools().pools) {
    uint64_t start = 0, size = 0, va = 0, bytes = 0;
    if (pool->ctx != nullptr && mempool_find(*pool->ctx, addr, &start, &size, &va, &bytes)) return pool;
  }
  return nullptr;
}

const std::set<CUmemPoolHandle_st*>& all_mempools() { return mempools().pools; }

void mempool_synchronized(CUctx_st& ctx) {
  for (CUmemPoolHandle_st* pool : mempools().pools)
    if (pool->ctx == &ctx) mempool_release(*pool, pool->release_threshold, ReleaseRule::Threshold, "synchronize");
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
// that is neither a device of this machine nor the host, handle types other than a POSIX fd or
// fabric, nonzero reserved bytes: CUDA_ERROR_INVALID_VALUE (measured, create.*). A host pool is
// made, but minicuda allocates nothing from it (CUDA_ERROR_NOT_SUPPORTED).
CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPoolCreate(pool={}, poolProps={})", static_cast<void*>(pool),
                     static_cast<const void*>(poolProps));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pool == nullptr || poolProps == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const CUmemPoolProps& p = *poolProps;
  if (p.allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const bool host = p.location.type == CU_MEM_LOCATION_TYPE_HOST;
  if (!host && p.location.type != CU_MEM_LOCATION_TYPE_DEVICE) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (!host && device_info(p.location.id) == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const unsigned known = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC;
  if ((static_cast<unsigned>(p.handleTypes) & ~known) != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (unsigned char c : p.reserved)
    if (c != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto* made = new CUmemPoolHandle_st;
  made->device = host ? 0 : p.location.id;
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
  mempool_release(*p, 0, ReleaseRule::Trim, "cuMemPoolDestroy");
  if (p->used == 0 && p->reserved == 0) {
    if (p->ctx != nullptr) mempool_release_segments(*p);
    mempools().pools.erase(p);
    delete p;
  } else {
    // Live allocations keep their pieces; the handle stays only as their owner.
    trace::note(trace::Layer::Libcuda, "mempool: {} B still in use: its pieces stay until freed", p->used);
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
  mempool_release(*p, minBytesToKeep, ReleaseRule::Trim, "cuMemPoolTrimTo");
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

// Contract: *pool = the pool cuMemAllocAsync uses on dev. NULL pool or no such device:
// CUDA_ERROR_INVALID_VALUE (measured, getmempool.dev1).
CUresult cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetMemPool(pool={}, dev={})", static_cast<void*>(pool), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pool == nullptr || device_info(dev) == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pool = current_pool(dev);
  return done(scope, CUDA_SUCCESS);
}

// Contract: makes pool the one cuMemAllocAsync uses on dev. No such device, NULL or unknown pool,
// or a pool of another device: CUDA_ERROR_INVALID_VALUE (measured, setmempool.*).
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceSetMemPool(dev={}, pool={})", dev, static_cast<void*>(pool));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (device_info(dev) == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUmemPoolHandle_st* p = find_mempool(pool);
  if (p == nullptr || p->device != dev) return done(scope, CUDA_ERROR_INVALID_VALUE);
  mempools().current[dev] = p;
  return done(scope, CUDA_SUCCESS);
}
