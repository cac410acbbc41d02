// Occupancy: how many blocks of a kernel one SM holds, and the dynamic shared memory n blocks may
// each use. Thin entry points over libcuda's occupancy calls, for any kernel registered with
// __cudaRegisterFunction - minicuda's own (cu2cxx) and those of a program nvcc built (PTX, whose
// register count is the JIT's allocation). The hardware's rules are nv_occupancy.h's, applied by
// libcuda (driver/user/src/occupancy.cpp); the block-size search of
// cudaOccupancyMaxPotentialBlockSize is the header template over these calls (cuda_runtime.h).
// Values and errors: the H200's (tests/data/h200/probe_api_families.txt, rt.occ*).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: *numBlocks = the blocks of func's kernel one SM holds at once with blockSize threads
// and dynamicSMemSize bytes of dynamic shared memory (0 when one does not fit). flags:
// cudaOccupancyDefault or cudaOccupancyDisableCachingOverride, else cudaErrorInvalidValue; NULL
// numBlocks or blockSize <= 0: cudaErrorInvalidValue; NULL func: cudaErrorInvalidDeviceFunction;
// a host function with no kernel: cudaErrorInvalidResourceHandle; a module that does not load: its
// error (the first call loads func's module).
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart,
                     "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(func={}, blockSize={}, smem={}, flags={})",
                     func, blockSize, dynamicSMemSize, flags);
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                         numBlocks, reinterpret_cast<CUfunction>(kernel), blockSize, dynamicSMemSize, flags)));
}

// Contract: cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags with cudaOccupancyDefault
// (measured: k_simple at 256 threads -> 8, rt.occMaxActive.k_simple.256).
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  trace::Scope scope(trace::Layer::Cudart, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(func={}, blockSize={}, smem={})",
                     func, blockSize, dynamicSMemSize);
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                         numBlocks, reinterpret_cast<CUfunction>(kernel), blockSize, dynamicSMemSize)));
}

namespace {

// The driver's CUlaunchConfig of a runtime configuration; attrs: room for its attributes, which
// have the same layout (both are 8-byte ids and 64-byte values).
CUlaunchConfig driver_config(const cudaLaunchConfig_t& c) {
  CUlaunchConfig d{};
  d.gridDimX = c.gridDim.x, d.gridDimY = c.gridDim.y, d.gridDimZ = c.gridDim.z;
  d.blockDimX = c.blockDim.x, d.blockDimY = c.blockDim.y, d.blockDimZ = c.blockDim.z;
  d.sharedMemBytes = static_cast<unsigned>(c.dynamicSmemBytes);
  d.hStream = reinterpret_cast<CUstream>(c.stream);
  static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute));
  d.attrs = reinterpret_cast<CUlaunchAttribute*>(c.attrs);
  d.numAttrs = c.numAttrs;
  return d;
}

template <class Query>
cudaError_t cluster_query(trace::Scope& scope, int* out, const void* func, const cudaLaunchConfig_t* config,
                          Query query) {
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  if (config == nullptr) return done(scope, to_cuda_error(query(out, reinterpret_cast<CUfunction>(kernel), nullptr)));
  const CUlaunchConfig d = driver_config(*config);
  return done(scope, to_cuda_error(query(out, reinterpret_cast<CUfunction>(kernel), &d)));
}

}  // namespace

// Contract: cuOccupancyMaxPotentialClusterSize for func's kernel. func: as above.
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* clusterSize, const void* func, const cudaLaunchConfig_t* config) {
  trace::Scope scope(trace::Layer::Cudart, "cudaOccupancyMaxPotentialClusterSize(func={}, config={})", func,
                     static_cast<const void*>(config));
  return cluster_query(scope, clusterSize, func, config, cuOccupancyMaxPotentialClusterSize);
}

// Contract: cuOccupancyMaxActiveClusters for func's kernel. func: as above.
cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, const void* func, const cudaLaunchConfig_t* config) {
  trace::Scope scope(trace::Layer::Cudart, "cudaOccupancyMaxActiveClusters(func={}, config={})", func,
                     static_cast<const void*>(config));
  return cluster_query(scope, numClusters, func, config, cuOccupancyMaxActiveClusters);
}

// Contract: cuOccupancyAvailableDynamicSMemPerBlock for func's kernel (measured: 1 block of 128
// threads -> 49152; 32 of 64 -> 7296; a kernel with 4 KiB of static __shared__, 2 of 128 -> 45056;
// 33 of 64, 0 blocks, 2048 threads: cudaErrorInvalidValue). NULL dynamicSmemSize:
// cudaErrorInvalidValue (the H200's runtime crashes). func: as above.
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func, int numBlocks,
                                                      int blockSize) {
  trace::Scope scope(trace::Layer::Cudart, "cudaOccupancyAvailableDynamicSMemPerBlock(func={}, numBlocks={}, blockSize={})",
                     func, numBlocks, blockSize);
  CUkernel kernel = nullptr;
  if (cudaError_t e = context_and_kernel(func, &kernel); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuOccupancyAvailableDynamicSMemPerBlock(
                         dynamicSmemSize, reinterpret_cast<CUfunction>(kernel), numBlocks, blockSize)));
}
