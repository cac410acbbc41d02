// The occupancy helpers built on the hardware's rules (hw/include/nv_occupancy.h): the blocks of
// a kernel one SM holds (cuOccupancyMaxActiveBlocksPerMultiprocessor), the block size that fills
// an SM best (cuOccupancyMaxPotentialBlockSize, the search of cuda_occupancy.h) and the dynamic
// shared memory left to each of n co-resident blocks. A kernel's registers are what its image
// says (a PTX kernel: the JIT's register allocation), its shared memory its static __shared__
// plus the launch's dynamic bytes. No system call.
#include "libcuda.h"
#include "minicuda/ptx/ptx.h"
#include "nv_occupancy.h"

namespace minicuda::libcuda {
namespace {

int device_value(const DeviceInfo& dev, CUdevice_attribute attribute) {
  int v = 0;
  device_attribute(dev, attribute, &v);
  return v;
}

// Blocks of f per SM at this size, 0 when a block cannot run (more threads than a block may
// have, its dynamic shared memory over f's limit), as cuOccupancyMaxActiveBlocksPerMultiprocessor
// answers.
NvU32 blocks_per_sm(const DeviceInfo& dev, const CUfunc_st& f, int block, size_t dynamic) {
  if (block > device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)) return 0;
  if (dynamic > static_cast<size_t>(f.max_dynamic_shared)) return 0;
  return nv_occupancy(sm_limits(dev), static_cast<NvU32>(block), f.image->num_regs, block_shared_bytes(f, dynamic))
      .blocks_per_sm;
}

// cuOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags): api names the entry point in the trace.
CUresult active_blocks(const char* api, int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize,
                       unsigned int flags) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(func={}, blockSize={}, dynamicSMemSize={}, flags={})", api,
                     static_cast<void*>(func), blockSize, dynamicSMemSize, flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (numBlocks == nullptr || blockSize <= 0 || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(func);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  *numBlocks = static_cast<int>(blocks_per_sm(*device_info(ctx->device), *f, blockSize, dynamicSMemSize));
  if (scope.active()) scope.result("CUDA_SUCCESS, *numBlocks={}", *numBlocks);
  return CUDA_SUCCESS;
}

}  // namespace

uint64_t block_shared_bytes(const CUfunc_st& f, size_t dynamic) {
  return (f.ptx != nullptr ? f.ptx->static_shared_bytes : 0) + uint64_t{dynamic};
}

// sm_limits is declared in libcuda.h.
NvSmLimits sm_limits(const DeviceInfo& dev) {
  return NvSmLimits{static_cast<NvU32>(device_value(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE)),
                    static_cast<NvU32>(device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)),
                    static_cast<NvU32>(device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)),
                    static_cast<NvU32>(device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)),
                    static_cast<NvU64>(device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)),
                    static_cast<NvU64>(device_value(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK))};
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *numBlocks = how many blocks of func one SM holds at once with blockSize threads and
// dynamicSMemSize bytes of dynamic shared memory (0 when one does not fit: more threads than a
// block may have, more dynamic shared memory than func allows). NULL numBlocks, blockSize <= 0 or
// flags other than CU_OCCUPANCY_DEFAULT / DISABLE_CACHING_OVERRIDE: CUDA_ERROR_INVALID_VALUE
// (measured for flags 4: probe_api_families.txt drv.occMaxActiveFlags.bad); unknown function:
// CUDA_ERROR_INVALID_HANDLE. The caching override changes nothing here: the simulated SM has no
// L1/shared carveout that would lower the shared memory per SM.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize, unsigned int flags) {
  return active_blocks("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", numBlocks, func, blockSize,
                       dynamicSMemSize, flags);
}

// Contract: cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags with CU_OCCUPANCY_DEFAULT.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
  return active_blocks("cuOccupancyMaxActiveBlocksPerMultiprocessor", numBlocks, func, blockSize, dynamicSMemSize,
                       CU_OCCUPANCY_DEFAULT);
}

// Contract: *blockSize = the block size (a multiple of the warp size, or the limit itself) at
// which most threads of func are resident on one SM, the largest such size on a tie, searching
// down from min(1024, blockSizeLimit if > 0) and stopping at full occupancy; *minGridSize = the
// blocks that fill every SM at that size. The dynamic shared memory per block is
// blockSizeToDynamicSMemSize(size) when given, else dynamicSMemSize. NULL outputs or flags other
// than CU_OCCUPANCY_DEFAULT / DISABLE_CACHING_OVERRIDE: CUDA_ERROR_INVALID_VALUE; unknown func:
// CUDA_ERROR_INVALID_HANDLE. A kernel that fits at no size: both 0.
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags) {
  trace::Scope scope(trace::Layer::Libcuda,
                     "cuOccupancyMaxPotentialBlockSizeWithFlags(func={}, dynamicSMemSize={}, blockSizeLimit={}, flags={})",
                     static_cast<void*>(func), dynamicSMemSize, blockSizeLimit, flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (minGridSize == nullptr || blockSize == nullptr || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(func);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  const DeviceInfo& dev = *device_info(ctx->device);
  const int warp = device_value(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  const int threads_per_sm = device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  int max_block = device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (blockSizeLimit > 0 && blockSizeLimit < max_block) max_block = blockSizeLimit;
  int best_block = 0, best_blocks = 0, best_threads = 0;
  for (int aligned = (max_block + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
    const int size = aligned < max_block ? aligned : max_block;
    const size_t dynamic = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(size) : dynamicSMemSize;
    const int blocks = static_cast<int>(blocks_per_sm(dev, *f, size, dynamic));
    if (blocks * size > best_threads) {
      best_block = size;
      best_blocks = blocks;
      best_threads = blocks * size;
    }
    if (best_threads == threads_per_sm) break;
  }
  *blockSize = best_block;
  *minGridSize = best_blocks * dev.sm_count;
  if (scope.active()) scope.result("CUDA_SUCCESS, *minGridSize={}, *blockSize={}", *minGridSize, *blockSize);
  return CUDA_SUCCESS;
}

// Contract: cuOccupancyMaxPotentialBlockSizeWithFlags with CU_OCCUPANCY_DEFAULT.
CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
                                          int blockSizeLimit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                                                   dynamicSMemSize, blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}

// Contract: *dynamicSmemSize = the dynamic shared memory each of numBlocks blocks of blockSize
// threads may use on one SM: the SM's shared memory split numBlocks ways, in 128-byte units, at
// most func's MAX_DYNAMIC_SHARED_SIZE_BYTES (measured: 1 block -> 49152, 32 blocks of 64 threads
// -> 7296; the per-block reservation is not subtracted). numBlocks or blockSize not positive,
// blockSize over 1024, or more blocks than fit on an SM (33 of 64 threads): CUDA_ERROR_INVALID_VALUE;
// NULL output: CUDA_ERROR_INVALID_VALUE (the H200's libcuda crashes); unknown func:
// CUDA_ERROR_INVALID_HANDLE.
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, CUfunction func, int numBlocks,
                                                 int blockSize) {
  trace::Scope scope(trace::Layer::Libcuda, "cuOccupancyAvailableDynamicSMemPerBlock(func={}, numBlocks={}, blockSize={})",
                     static_cast<void*>(func), numBlocks, blockSize);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (dynamicSmemSize == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(func);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  const DeviceInfo& dev = *device_info(ctx->device);
  if (numBlocks <= 0 || blockSize <= 0 || blockSize > device_value(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK))
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (static_cast<int>(blocks_per_sm(dev, *f, blockSize, 0)) < numBlocks) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const NvU64 per_sm = sm_limits(dev).shared_per_sm;
  NvU64 share = per_sm / static_cast<NvU64>(numBlocks) / 128 * 128;
  if (share > static_cast<NvU64>(f->max_dynamic_shared)) share = static_cast<NvU64>(f->max_dynamic_shared);
  *dynamicSmemSize = share;
  if (scope.active()) scope.result("CUDA_SUCCESS, *dynamicSmemSize={}", share);
  return CUDA_SUCCESS;
}
