// Thread block clusters (compute capability 9.0) in the driver: the cluster shape of a launch and
// its checks, the cluster attributes of a function, and the cluster occupancy queries
// (cuOccupancyMaxPotentialClusterSize, cuOccupancyMaxActiveClusters). Where a cluster may run is
// the GPC layout of hw/include/nv_gpc.h: every block of a cluster on the SMs of one GPC at once.
// No system call. See docs/clusters.md.
#include <algorithm>

#include "libcuda.h"
#include "minicuda/ptx/ptx.h"
#include "nv_gpc.h"
#include "nv_occupancy.h"

namespace minicuda::libcuda {
namespace {

constexpr unsigned kPortableClusterBlocks = 8;   // without NON_PORTABLE_CLUSTER_SIZE_ALLOWED
constexpr unsigned kMaxClusterBlocks = 16;       // with it, on compute capability 9.0

// The shape f reports: set at run time (REQUIRED_CLUSTER_*, an axis not set reads 0, as the H200
// answers), else compiled in (__cluster_dims__, .reqnctapercluster); all 0 when f has none.
void reported_shape(const CUfunc_st& f, unsigned out[3]) {
  const bool set = f.required_cluster[0] != 0 || f.required_cluster[1] != 0 || f.required_cluster[2] != 0;
  for (int i = 0; i < 3; ++i) out[i] = set ? f.required_cluster[i] : f.image->cluster_dims[i];
}

// The shape f must launch with: the reported one, an axis not set being 1; all 0 when f has none.
void required_shape(const CUfunc_st& f, unsigned out[3]) {
  reported_shape(f, out);
  if (out[0] != 0 || out[1] != 0 || out[2] != 0)
    for (int i = 0; i < 3; ++i) out[i] = std::max(1u, out[i]);
}

// Blocks of clusters an SM holds at most, whatever their size: the H200 answers 8 per SM for blocks
// of 32 and of 128 threads, which the occupancy rules alone allow 32 and 16 of
// (tests/data/h200/clusters/probe_clusters.txt, occ.*.t32 and .t128).
constexpr NvU32 kClusterBlocksPerSm = 8;

// Clusters of `blocks` blocks of f resident at once with `threads` threads and `shared` bytes of
// dynamic shared memory per block.
NvU32 active_clusters(const DeviceInfo& dev, const CUfunc_st& f, unsigned threads, size_t shared, unsigned blocks) {
  const NvU32 per_sm = std::min(
      kClusterBlocksPerSm,
      nv_occupancy(sm_limits(dev), threads, f.image->num_regs, block_shared_bytes(f, shared)).blocks_per_sm);
  return nv_max_active_clusters(nv_gpc_layout(static_cast<NvU32>(dev.sm_count)), per_sm, blocks);
}

CUresult refuse(CUresult r, std::string why) {
  trace::note(trace::Layer::Libcuda, "launch refused: {}", why);
  return r;
}

// The configuration an occupancy query describes: its cluster attribute (0x0x0 when none).
CUresult config_cluster(const CUlaunchConfig& config, unsigned cluster[3]) {
  cluster[0] = cluster[1] = cluster[2] = 0;
  if (config.numAttrs != 0 && config.attrs == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    if (config.attrs[i].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) continue;
    cluster[0] = config.attrs[i].value.clusterDim.x;
    cluster[1] = config.attrs[i].value.clusterDim.y;
    cluster[2] = config.attrs[i].value.clusterDim.z;
  }
  return CUDA_SUCCESS;
}

}  // namespace

CUresult cluster_for_launch(CUctx_st& ctx, const CUfunc_st& f, const unsigned grid[3], const unsigned block[3],
                            unsigned shared, const unsigned* requested, unsigned out[3], bool* explicit_cluster) {
  unsigned compiled[3];
  required_shape(f, compiled);
  out[0] = out[1] = out[2] = 1;
  *explicit_cluster = false;
  const unsigned* shape = requested != nullptr ? requested : compiled[0] != 0 ? compiled : nullptr;
  if (shape == nullptr) return CUDA_SUCCESS;  // no cluster
  if (shape[0] == 0 || shape[1] == 0 || shape[2] == 0)
    return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                  fmt::format("cluster {}x{}x{} has a zero dimension", shape[0], shape[1], shape[2]));
  if (requested != nullptr && compiled[0] != 0 &&
      (requested[0] != compiled[0] || requested[1] != compiled[1] || requested[2] != compiled[2]))
    return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                  fmt::format("cluster {}x{}x{} for {}, whose cluster shape is {}x{}x{} (__cluster_dims__)",
                              requested[0], requested[1], requested[2], f.image->name, compiled[0], compiled[1],
                              compiled[2]));
  const char* axis = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (grid[i] % shape[i] != 0)
      return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                    fmt::format("grid {} = {} is not a multiple of the cluster's {}", axis[i], grid[i], shape[i]));
  }
  const uint64_t blocks = uint64_t{shape[0]} * shape[1] * shape[2];
  const unsigned limit = f.non_portable_cluster != 0 ? kMaxClusterBlocks : kPortableClusterBlocks;
  if (blocks > limit)
    return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                  fmt::format("a cluster of {} blocks > {}{}", blocks, limit,
                              f.non_portable_cluster != 0 ? ""
                                                          : " (more need cudaFuncAttributeNonPortableClusterSizeAllowed)"));
  const DeviceInfo& dev = *device_info(ctx.device);
  const unsigned threads = block[0] * block[1] * block[2];
  if (active_clusters(dev, f, threads, shared, static_cast<unsigned>(blocks)) == 0)
    return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                  fmt::format("the {} blocks of a cluster cannot be resident at once on the SMs of one GPC", blocks));
  for (int i = 0; i < 3; ++i) out[i] = shape[i];
  *explicit_cluster = true;
  return CUDA_SUCCESS;
}

bool cluster_attribute(const CUfunc_st& f, CUfunction_attribute attrib, int* value) {
  unsigned shape[3];
  reported_shape(f, shape);
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *value = f.image->cluster_dims[0] != 0 ? 1 : 0; return true;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *value = static_cast<int>(shape[0]); return true;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *value = static_cast<int>(shape[1]); return true;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *value = static_cast<int>(shape[2]); return true;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *value = f.non_portable_cluster; return true;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *value = f.cluster_policy; return true;
    default: return false;
  }
}

bool set_cluster_attribute(CUfunc_st& f, CUfunction_attribute attrib, int value, CUresult* result) {
  *result = CUDA_SUCCESS;
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:  // any value; nonzero allows (H200 recording)
      f.non_portable_cluster = value;
      return true;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      if (value >= CU_CLUSTER_SCHEDULING_POLICY_DEFAULT && value <= CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING)
        f.cluster_policy = value;
      else *result = CUDA_ERROR_INVALID_VALUE;
      return true;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
      if (f.image->cluster_dims[0] != 0) {  // compiled in: fixed
        trace::note(trace::Layer::Libcuda, "{} was compiled with its cluster shape; it cannot be set", f.image->name);
        *result = CUDA_ERROR_INVALID_VALUE;
        return true;
      }
      if (value < 0) {
        *result = CUDA_ERROR_INVALID_VALUE;
        return true;
      }
      const int axis = attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH;
      f.required_cluster[axis] = static_cast<unsigned>(value);
      return true;
    }
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *result = CUDA_ERROR_INVALID_VALUE; return true;  // read-only
    default: return false;
  }
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {

// The two queries: validates config and func, then `answer` with the device and the function.
template <class Answer>
CUresult cluster_query(const char* api, int* out, CUfunction func, const CUlaunchConfig* config, Answer answer) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(func={}, config={})", api, static_cast<void*>(func),
                     static_cast<const void*>(config));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (out == nullptr || config == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(func);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  unsigned cluster[3];
  if (CUresult r = config_cluster(*config, cluster); r != CUDA_SUCCESS) return done(scope, r);
  const CUresult r = answer(*device_info(ctx->device), *f, cluster, out);
  if (r == CUDA_SUCCESS && scope.active()) scope.result("CUDA_SUCCESS, *out={}", *out);
  return done(scope, r);
}

}  // namespace

// Contract: see cuda_launch.h.
CUresult cuOccupancyMaxPotentialClusterSize(int* clusterSize, CUfunction func, const CUlaunchConfig* config) {
  return cluster_query("cuOccupancyMaxPotentialClusterSize", clusterSize, func, config,
                       [&](const DeviceInfo& dev, const CUfunc_st& f, const unsigned*, int* out) {
                         const unsigned threads = config->blockDimX * config->blockDimY * config->blockDimZ;
                         const unsigned limit =
                             f.non_portable_cluster != 0 ? kMaxClusterBlocks : kPortableClusterBlocks;
                         *out = 0;
                         for (unsigned s = limit; s >= 1; --s) {
                           if (active_clusters(dev, f, threads, config->sharedMemBytes, s) > 0) {
                             *out = static_cast<int>(s);
                             break;
                           }
                         }
                         return CUDA_SUCCESS;
                       });
}

// Contract: see cuda_launch.h.
CUresult cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func, const CUlaunchConfig* config) {
  return cluster_query("cuOccupancyMaxActiveClusters", numClusters, func, config,
                       [&](const DeviceInfo& dev, const CUfunc_st& f, const unsigned* cluster, int* out) {
                         unsigned shape[3];
                         required_shape(f, shape);
                         if (cluster[0] != 0) shape[0] = cluster[0], shape[1] = cluster[1], shape[2] = cluster[2];
                         if (shape[0] == 0) shape[0] = shape[1] = shape[2] = 1;
                         const unsigned threads = config->blockDimX * config->blockDimY * config->blockDimZ;
                         const unsigned blocks = shape[0] * shape[1] * shape[2];
                         if (blocks == 0) return CUDA_ERROR_INVALID_VALUE;
                         // Past the portable size without the attribute: refused. With it, a size
                         // no GPC holds is 0 clusters, not an error (as the H200 answers for 32).
                         if (f.non_portable_cluster == 0 && blocks > kPortableClusterBlocks)
                           return CUDA_ERROR_INVALID_CLUSTER_SIZE;
                         *out = static_cast<int>(active_clusters(dev, f, threads, config->sharedMemBytes, blocks));
                         return CUDA_SUCCESS;
                       });
}
