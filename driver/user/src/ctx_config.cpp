// Context configuration: the limits (cuCtxSetLimit/GetLimit), the cache and shared-memory bank
// preferences, the primary context's flags, per-function cache preference, and the profiler
// markers. All of it is state libcuda keeps in the context (no system call), as the values
// matter to the GPU only when a launch needs them; the rules and defaults are the H200's
// (tests/data/h200/probe_api_families.txt).
#include "libcuda.h"

namespace minicuda::libcuda {
namespace {

constexpr const char* kLimitNames[CU_LIMIT_MAX] = {
    "CU_LIMIT_STACK_SIZE",        "CU_LIMIT_PRINTF_FIFO_SIZE",
    "CU_LIMIT_MALLOC_HEAP_SIZE",  "CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH",
    "CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT", "CU_LIMIT_MAX_L2_FETCH_GRANULARITY",
    "CU_LIMIT_PERSISTING_L2_CACHE_SIZE", "CU_LIMIT_SHMEM_SIZE",
    "CU_LIMIT_CIG_ENABLED",       "CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED"};
std::string limit_name(CUlimit limit) {
  int l = static_cast<int>(limit);
  return l >= 0 && l < CU_LIMIT_MAX ? kLimitNames[l] : std::to_string(l);
}

// The H200's set-aside for persisting L2 lines: at most 45 MiB (3/4 of its 60 MiB L2), granted
// in twelfths of that (3.75 MiB).
constexpr size_t kPersistingL2Max = 47185920, kPersistingL2Step = kPersistingL2Max / 12;
// The documented ceiling of local memory per thread.
constexpr size_t kMaxStackBytes = 512 << 10;

// The value a settable limit takes for `value`, as the H200 rounds it; false if out of range.
bool adjust_limit(CUlimit limit, size_t value, size_t* out) {
  switch (limit) {
    case CU_LIMIT_STACK_SIZE:  // 16-byte steps: 1 -> 16, 1000 -> 1008; 1 MiB is refused
      if (value > kMaxStackBytes) return false;
      *out = (value + 15) & ~size_t{15};
      return true;
    case CU_LIMIT_PRINTF_FIFO_SIZE:  // at least 512 KiB: 0, 1 and 1000 all give 524288
      *out = value < (512u << 10) ? (512u << 10) : value;
      return true;
    case CU_LIMIT_MALLOC_HEAP_SIZE:  // at least 4 MiB, in 64 KiB steps: 5 MiB + 1 -> 5 MiB + 64 KiB
      *out = value < (4u << 20) ? (4u << 20) : (value + 0xFFFF) & ~size_t{0xFFFF};
      return true;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
      *out = value;
      return true;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:  // 0..128 kept as given; 256 refused
      if (value > 128) return false;
      *out = value;
      return true;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:  // 1 MiB -> 3932160
      if (value > kPersistingL2Max) return false;
      *out = (value + kPersistingL2Step - 1) / kPersistingL2Step * kPersistingL2Step;
      return true;
    default:
      return false;
  }
}

}  // namespace
}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: sets a limit of the current context, rounded as on the H200 (see adjust_limit).
// Unknown limit: CUDA_ERROR_INVALID_VALUE; CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: CUDA_ERROR_UNSUPPORTED_LIMIT
// (CUDA 13 has no device-side synchronisation); the query-only SHMEM_SIZE and CIG limits:
// CUDA_ERROR_NOT_PERMITTED; a value out of range: CUDA_ERROR_INVALID_VALUE, the limit unchanged.
CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxSetLimit(limit={}, value={})", limit_name(limit), value);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (limit < 0 || limit >= CU_LIMIT_MAX) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) return done(scope, CUDA_ERROR_UNSUPPORTED_LIMIT);
  if (limit >= CU_LIMIT_SHMEM_SIZE) return done(scope, CUDA_ERROR_NOT_PERMITTED);
  size_t adjusted = 0;
  if (!adjust_limit(limit, value, &adjusted)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (limit == CU_LIMIT_MALLOC_HEAP_SIZE) {  // fixed once a kernel has used the heap (device_heap.cpp)
    if (CUresult r = device_heap_resize(*ctx, adjusted); r != CUDA_SUCCESS) return done(scope, r);
  }
  ctx->limits[limit] = adjusted;
  if (adjusted != value) trace::note(trace::Layer::Libcuda, "limit: {} rounded to {}", value, adjusted);
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pvalue = the limit's value in the current context (defaults: stack 1024, printf FIFO
// 8650752, heap 8388608, pending launches 2048, L2 fetch granularity 64, persisting L2 11796480,
// shared memory 232448). NULL pvalue or unknown limit: CUDA_ERROR_INVALID_VALUE;
// CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: CUDA_ERROR_UNSUPPORTED_LIMIT.
CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetLimit(pvalue={}, limit={})", static_cast<void*>(pvalue),
                     limit_name(limit));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pvalue == nullptr || limit < 0 || limit >= CU_LIMIT_MAX) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH) return done(scope, CUDA_ERROR_UNSUPPORTED_LIMIT);
  *pvalue = ctx->limits[limit];
  if (scope.active()) scope.result("CUDA_SUCCESS, *pvalue={}", *pvalue);
  return CUDA_SUCCESS;
}

// Contract: records the context's preferred split of L1 and shared memory. Not a CUfunc_cache
// value: CUDA_ERROR_INVALID_VALUE. The simulated SM's shared memory does not change with it.
CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxSetCacheConfig(config={})", static_cast<int>(config));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  ctx->cache_config = config;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pconfig = the context's cache preference (CU_FUNC_CACHE_PREFER_NONE at first).
// NULL: CUDA_ERROR_INVALID_VALUE.
CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetCacheConfig(pconfig={})", static_cast<void*>(pconfig));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pconfig == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pconfig = ctx->cache_config;
  return done(scope, CUDA_SUCCESS);
}

// Contract: Hopper's shared memory has 4-byte banks only: any CUsharedconfig value is accepted
// and changes nothing (measured: the bank size reads back as four bytes); other values:
// CUDA_ERROR_INVALID_VALUE.
CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxSetSharedMemConfig(config={})", static_cast<int>(config));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE || config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE. NULL: CUDA_ERROR_INVALID_VALUE.
CUresult cuCtxGetSharedMemConfig(CUsharedconfig* pConfig) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetSharedMemConfig(pConfig={})", static_cast<void*>(pConfig));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pConfig == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *flags = the current context's flags with CU_CTX_MAP_HOST set (mapping host memory
// is always on; measured 0x8 for a primary context made with flags 0). NULL:
// CUDA_ERROR_INVALID_VALUE.
CUresult cuCtxGetFlags(unsigned int* flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetFlags(flags={})", static_cast<void*>(flags));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (flags == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *flags = ctx->flags | CU_CTX_MAP_HOST;
  if (scope.active()) scope.result("CUDA_SUCCESS, *flags={:#x}", *flags);
  return CUDA_SUCCESS;
}

// Contract: sets the flags of dev's primary context, active or not (the scheduling policy is
// the host side's, so it may change at any time). flags: at most one CU_CTX_SCHED_* value (SPIN,
// YIELD, BLOCKING_SYNC or AUTO), plus CU_CTX_MAP_HOST and CU_CTX_LMEM_RESIZE_TO_MAX; anything
// else (two policies, other bits): CUDA_ERROR_INVALID_VALUE. Bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDevicePrimaryCtxSetFlags_v2(dev={}, flags={:#x})", dev, flags);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (!device_info(dev)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  const unsigned sched = flags & CU_CTX_SCHED_MASK;
  const bool one_policy = sched == CU_CTX_SCHED_AUTO || sched == CU_CTX_SCHED_SPIN ||
                          sched == CU_CTX_SCHED_YIELD || sched == CU_CTX_SCHED_BLOCKING_SYNC;
  if (!one_policy || (flags & ~unsigned{CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX}) != 0)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  primary_context(dev)->flags = flags;
  return done(scope, CUDA_SUCCESS);
}

// Contract: records hfunc's cache preference. Not a live function: CUDA_ERROR_INVALID_HANDLE;
// not a CUfunc_cache value: CUDA_ERROR_INVALID_VALUE.
CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  trace::Scope scope(trace::Layer::Libcuda, "cuFuncSetCacheConfig(hfunc={}, config={})", static_cast<void*>(hfunc),
                     static_cast<int>(config));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUfunc_st* f = find_function(hfunc);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  f->cache_config = config;
  return done(scope, CUDA_SUCCESS);
}

// Contract: as cuCtxSetSharedMemConfig, for one function: accepted, no effect on Hopper.
CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config) {
  trace::Scope scope(trace::Layer::Libcuda, "cuFuncSetSharedMemConfig(hfunc={}, config={})",
                     static_cast<void*>(hfunc), static_cast<int>(config));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (find_function(hfunc) == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE || config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, CUDA_SUCCESS);
}

// Contract: marks the start of the region a profiler collects; the trace shows the marker.
// CUDA_SUCCESS in a context, also when collection is already on (measured).
CUresult cuProfilerStart(void) {
  trace::Scope scope(trace::Layer::Libcuda, "cuProfilerStart()");
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  trace::note(trace::Layer::Libcuda, "profiler: collection on");
  return done(scope, CUDA_SUCCESS);
}

// Contract: marks the end of the profiled region; as cuProfilerStart.
CUresult cuProfilerStop(void) {
  trace::Scope scope(trace::Layer::Libcuda, "cuProfilerStop()");
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  trace::note(trace::Layer::Libcuda, "profiler: collection off");
  return done(scope, CUDA_SUCCESS);
}
