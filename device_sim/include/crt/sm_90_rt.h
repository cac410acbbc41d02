// crt/sm_90_rt.h: the thread block cluster built-ins of compute capability 9.0, as the toolkit's
// crt/sm_90_rt.h names them: the running block's cluster (its shape, its index in the grid, the
// block's index and rank in it), the cluster barrier's arrive and wait, and distributed shared
// memory (another block's address of a __shared__ variable). A launch without a cluster is a
// cluster of one block. Kernel code only; the SM's side is device_sim/src/sm_cluster.cpp.
#ifndef __SM_90_RT_H__
#define __SM_90_RT_H__

#include "minicuda/isa.h"
#include "vector_types.h"

namespace minicuda::detail {
inline dim3 cluster_dim3(const unsigned (&v)[3]) { return dim3(v[0], v[1], v[2]); }
}  // namespace minicuda::detail

// Does the shared memory of some block of the cluster hold ptr?
inline unsigned __isClusterShared(const void* ptr) {
  const minicuda::gpu::isa::ClusterInfo c = minicuda::gpu::isa::cluster_info();
  return minicuda::gpu::isa::cluster_shared_rank(ptr) < c.size ? 1u : 0u;
}
// The address of the same shared byte as ptr in the block of rank target_block_rank.
inline void* __cluster_map_shared_rank(const void* ptr, unsigned target_block_rank) {
  return minicuda::gpu::isa::cluster_map_shared(ptr, target_block_rank);
}
// The rank of the block whose shared memory holds ptr.
inline unsigned __cluster_query_shared_rank(const void* ptr) { return minicuda::gpu::isa::cluster_shared_rank(ptr); }
// Did the launch name a cluster shape (a launch attribute or __cluster_dims__)?
inline unsigned __clusterDimIsSpecified() { return minicuda::gpu::isa::cluster_info().is_explicit ? 1u : 0u; }
inline dim3 __clusterDim() { return minicuda::detail::cluster_dim3(minicuda::gpu::isa::cluster_info().dim); }
inline dim3 __clusterRelativeBlockIdx() {
  return minicuda::detail::cluster_dim3(minicuda::gpu::isa::cluster_info().relative);
}
inline dim3 __clusterGridDimInClusters() { return minicuda::detail::cluster_dim3(minicuda::gpu::isa::cluster_info().grid); }
inline dim3 __clusterIdx() { return minicuda::detail::cluster_dim3(minicuda::gpu::isa::cluster_info().index); }
inline unsigned __clusterRelativeBlockRank() { return minicuda::gpu::isa::cluster_info().rank; }
inline unsigned __clusterSizeInBlocks() { return minicuda::gpu::isa::cluster_info().size; }
// The cluster barrier: every thread of every block of the cluster arrives, then waits. The relaxed
// arrival orders no memory here either way (the simulated SM's memory is the host's).
inline void __cluster_barrier_arrive() { minicuda::gpu::isa::cluster_arrive(); }
inline void __cluster_barrier_arrive_relaxed() { minicuda::gpu::isa::cluster_arrive(); }
inline void __cluster_barrier_wait() { minicuda::gpu::isa::cluster_wait(); }

#endif /* __SM_90_RT_H__ */
