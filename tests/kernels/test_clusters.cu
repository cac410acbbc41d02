// Thread block clusters (compute capability 9.0, docs/clusters.md): what a kernel sees of its
// cluster for several shapes, a launch without a cluster as a cluster of one block, the cluster
// barrier's ordering (sync, and arrive/wait split), distributed shared memory (a histogram whose
// bins are spread over the blocks of a cluster, static and dynamic shared memory), __cluster_dims__,
// and misuse that stops the kernel. The launch errors and the occupancy queries are in
// test_cluster_launch.cu. Run again with one and with four SM host threads (CMakeLists.txt): the
// blocks of a cluster must run together whatever the number of host threads.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include <vector>

#include "kernel_test.h"

namespace cg = cooperative_groups;

namespace {

constexpr int kFields = 12;

// Each block writes what it sees of its cluster: through cluster_group and through the built-ins.
__global__ void cluster_view(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned me = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int* o = out + block * kFields;
  if (me == 0) {
    const dim3 idx = __clusterIdx(), rel = __clusterRelativeBlockIdx(), grid = __clusterGridDimInClusters();
    o[0] = static_cast<int>(cluster.block_rank());
    o[1] = static_cast<int>(cluster.num_blocks());
    o[2] = static_cast<int>(cluster.dim_blocks().x * 100 + cluster.dim_blocks().y * 10 + cluster.dim_blocks().z);
    o[3] = static_cast<int>(cluster.block_index().x * 100 + cluster.block_index().y * 10 + cluster.block_index().z);
    o[4] = static_cast<int>(idx.x * 100 + idx.y * 10 + idx.z);
    o[5] = static_cast<int>(rel.x * 100 + rel.y * 10 + rel.z);
    o[6] = static_cast<int>(grid.x * 100 + grid.y * 10 + grid.z);
    o[7] = static_cast<int>(__clusterRelativeBlockRank());
    o[8] = static_cast<int>(__clusterSizeInBlocks());
    o[9] = static_cast<int>(__clusterDimIsSpecified());
    o[10] = static_cast<int>(cluster.num_threads());
  }
  if (me == 1) o[11] = static_cast<int>(cluster.thread_rank());
}

struct Shape {
  dim3 grid, block, cluster;
};

// What a block of `s` must see, worked out here independently of the simulator.
std::vector<int> expected_view(const Shape& s, bool specified) {
  const unsigned blocks = s.grid.x * s.grid.y * s.grid.z, threads = s.block.x * s.block.y * s.block.z;
  const unsigned size = s.cluster.x * s.cluster.y * s.cluster.z;
  std::vector<int> out(blocks * kFields);
  for (unsigned z = 0; z < s.grid.z; ++z)
    for (unsigned y = 0; y < s.grid.y; ++y)
      for (unsigned x = 0; x < s.grid.x; ++x) {
        int* o = &out[(x + s.grid.x * (y + s.grid.y * z)) * kFields];
        const unsigned rx = x % s.cluster.x, ry = y % s.cluster.y, rz = z % s.cluster.z;
        const int rank = static_cast<int>(rx + s.cluster.x * (ry + s.cluster.y * rz));
        const int dims = static_cast<int>(s.cluster.x * 100 + s.cluster.y * 10 + s.cluster.z);
        o[0] = rank;
        o[1] = static_cast<int>(size);
        o[2] = dims;
        o[3] = static_cast<int>(rx * 100 + ry * 10 + rz);
        o[4] = static_cast<int>(x / s.cluster.x * 100 + y / s.cluster.y * 10 + z / s.cluster.z);
        o[5] = o[3];
        o[6] = static_cast<int>(s.grid.x / s.cluster.x * 100 + s.grid.y / s.cluster.y * 10 + s.grid.z / s.cluster.z);
        o[7] = rank;
        o[8] = static_cast<int>(size);
        o[9] = specified ? 1 : 0;
        o[10] = static_cast<int>(size * threads);
        o[11] = static_cast<int>(rank * threads + 1);
      }
  return out;
}

cudaError_t launch_with_cluster(const Shape& s, size_t shared, void (*kernel)(int*), int* out) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = s.cluster.x;
  a.val.clusterDim.y = s.cluster.y;
  a.val.clusterDim.z = s.cluster.z;
  cudaLaunchConfig_t c{};
  c.gridDim = s.grid;
  c.blockDim = s.block;
  c.dynamicSmemBytes = shared;
  c.attrs = &a;
  c.numAttrs = 1;
  return cudaLaunchKernelEx(&c, kernel, out);
}

// A histogram of `in` into `bins` bins spread over the cluster's blocks' dynamic shared memory:
// each thread adds into whichever block holds the bin (map_shared_rank), then each block adds
// its part to the global result.
__global__ void dsmem_histogram(const int* in, int n, int bins, int* out) {
  extern __shared__ int part[];
  cg::cluster_group cluster = cg::this_cluster();
  const int per_block = bins / static_cast<int>(cluster.num_blocks());
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) part[i] = 0;
  cluster.sync();  // every block's part is zeroed (and every block has started) before any adds
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int bin = in[i] % bins;
    atomicAdd(cluster.map_shared_rank(part, bin / per_block) + bin % per_block, 1);
  }
  cluster.sync();  // every add is done before a block reads its part (and before any block exits)
  const int base = static_cast<int>(cluster.block_rank()) * per_block;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) atomicAdd(&out[base + i], part[i]);
}

// Rounds of: each block writes the round into its static shared word; cluster.sync(); every
// thread 0 reads each other block's word, which must hold this round; cluster.sync() again (no
// block may write the next round while another still reads this one). Counts wrong reads.
__global__ void sync_rounds(int* errors) {
  __shared__ int word;
  cg::cluster_group cluster = cg::this_cluster();
  for (int round = 1; round <= 20; ++round) {
    if (threadIdx.x == 0) word = round * 100 + static_cast<int>(cluster.block_rank());
    cluster.sync();
    if (threadIdx.x == 0) {
      for (unsigned r = 0; r < cluster.num_blocks(); ++r)
        if (*cluster.map_shared_rank(&word, r) != round * 100 + static_cast<int>(r)) atomicAdd(errors, 1);
    }
    cluster.sync();
  }
}

// The split barrier: arrive, work that needs no other block, wait, then read the next block's word.
// query_shared_rank names the owner of each mapped address; __isClusterShared says it is shared.
__global__ void split_arrive_wait(int* out) {
  __shared__ int word;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  if (threadIdx.x == 0) word = 1000 + static_cast<int>(rank);
  cluster.barrier_arrive();
  int local = 0;
  for (int i = 0; i < 100; ++i) local += i;  // independent work between arrive and wait
  cluster.barrier_wait();
  if (threadIdx.x == 0) {
    int* next = cluster.map_shared_rank(&word, (rank + 1) % size);
    const unsigned block = blockIdx.x;
    out[block * 4 + 0] = *next;
    out[block * 4 + 1] = static_cast<int>(cluster.query_shared_rank(next));
    out[block * 4 + 2] = static_cast<int>(__isClusterShared(next));
    out[block * 4 + 3] = local;
  }
  cluster.sync();
}

// Compiled for clusters of two: the launch needs no attribute.
__global__ void __cluster_dims__(2, 1, 1) pairs(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int word;
  if (threadIdx.x == 0) word = static_cast<int>(blockIdx.x);
  cluster.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = *cluster.map_shared_rank(&word, cluster.block_rank() ^ 1u);
  cluster.sync();
}

// A cooperative grid of clusters: each block reads the next rank's shared word through the cluster,
// then, after the grid barrier, every block sums what the whole grid wrote.
__global__ void cooperative_clusters(int* slots, int* sums) {
  __shared__ int word;
  cg::grid_group grid = cg::this_grid();
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) word = static_cast<int>(blockIdx.x) * 10;
  cluster.sync();
  if (threadIdx.x == 0)
    slots[blockIdx.x] = *cluster.map_shared_rank(&word, (cluster.block_rank() + 1) % cluster.num_blocks());
  cluster.sync();  // no block leaves while another reads its word
  grid.sync();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += slots[b];
    sums[blockIdx.x] = sum;
  }
}

// Misuse: a rank outside the cluster.
__global__ void map_outside(int* out) {
  __shared__ int word;
  cg::cluster_group cluster = cg::this_cluster();
  word = 1;
  out[0] = *cluster.map_shared_rank(&word, cluster.num_blocks());
}

}  // namespace

namespace minicuda::kernels_test {
namespace {

class KernelClusters : public FreshProcess {};

TEST_F(KernelClusters, EveryBlockSeesItsClusterForSeveralShapes) {
  const Shape shapes[] = {
      {dim3(4), dim3(8), dim3(2)},
      {dim3(4, 2, 2), dim3(4, 2), dim3(2, 2, 1)},
      {dim3(2, 4, 2), dim3(2, 2, 2), dim3(1, 2, 2)},
      {dim3(8), dim3(32), dim3(8)},
      {dim3(6, 2), dim3(16), dim3(3, 1, 1)},
      {dim3(3), dim3(32), dim3(1)},
  };
  for (const Shape& s : shapes) {
    const unsigned blocks = s.grid.x * s.grid.y * s.grid.z;
    DeviceArray<int> out(blocks * kFields, 0xff);
    ASSERT_EQ(launch_with_cluster(s, 0, cluster_view, out.get()), cudaSuccess);
    EXPECT_EQ(out.read(), expected_view(s, true))
        << "cluster " << s.cluster.x << "x" << s.cluster.y << "x" << s.cluster.z;
  }
}

TEST_F(KernelClusters, ALaunchWithoutAClusterIsAClusterOfOneBlock) {
  const Shape s{dim3(3, 2), dim3(4, 2), dim3(1)};
  DeviceArray<int> out(6 * kFields, 0xff);
  cluster_view<<<s.grid, s.block>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(out.read(), expected_view(s, false));
  DeviceArray<int> errors(1);
  sync_rounds<<<5, 64>>>(errors.get());  // sync and map_shared_rank(p, 0) with one block
  EXPECT_EQ(errors.read(), std::vector<int>{0});
}

TEST_F(KernelClusters, DistributedSharedMemoryHistogramMatchesTheHost) {
  const int n = 50000, bins = 256;
  std::vector<int> in(n), expect(bins, 0);
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 7919 + (i >> 3)) % 1000;
    ++expect[in[i] % bins];
  }
  DeviceArray<int> d_in(in);
  for (unsigned size : {1u, 2u, 4u, 8u, 16u}) {
    if (size == 16) {
      ASSERT_EQ(cudaFuncSetAttribute(dsmem_histogram, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), cudaSuccess);
    }
    DeviceArray<int> out(bins);
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = size;
    a.val.clusterDim.y = a.val.clusterDim.z = 1;
    cudaLaunchConfig_t c{};
    c.gridDim = dim3(32);
    c.blockDim = dim3(128);
    c.dynamicSmemBytes = bins / size * sizeof(int);
    c.attrs = &a;
    c.numAttrs = 1;
    ASSERT_EQ(cudaLaunchKernelEx(&c, dsmem_histogram, static_cast<const int*>(d_in.get()), n, bins, out.get()),
              cudaSuccess);
    EXPECT_EQ(out.read(), expect) << "clusters of " << size;
  }
}

TEST_F(KernelClusters, ClusterSyncOrdersEveryRound) {
  for (unsigned size : {2u, 4u, 8u}) {
    DeviceArray<int> errors(1);
    ASSERT_EQ(launch_with_cluster({dim3(16), dim3(96), dim3(size)}, 0, sync_rounds, errors.get()), cudaSuccess);
    EXPECT_EQ(errors.read(), std::vector<int>{0}) << "clusters of " << size;
  }
}

TEST_F(KernelClusters, SplitArriveAndWait) {
  const unsigned size = 4, blocks = 8;
  DeviceArray<int> out(blocks * 4, 0xff);
  ASSERT_EQ(launch_with_cluster({dim3(blocks), dim3(64), dim3(size)}, 0, split_arrive_wait, out.get()), cudaSuccess);
  std::vector<int> expect;
  for (unsigned b = 0; b < blocks; ++b) {
    const unsigned next = (b % size + 1) % size;
    expect.insert(expect.end(), {1000 + static_cast<int>(next), static_cast<int>(next), 1, 4950});
  }
  EXPECT_EQ(out.read(), expect);
}

TEST_F(KernelClusters, ClusterDimsGiveTheShapeWithoutAnAttribute) {
  cudaFuncAttributes attr{};
  ASSERT_EQ(cudaFuncGetAttributes(&attr, pairs), cudaSuccess);
  EXPECT_EQ(attr.requiredClusterWidth, 2);
  EXPECT_EQ(attr.requiredClusterHeight, 1);
  EXPECT_EQ(attr.requiredClusterDepth, 1);
  DeviceArray<int> out(6, 0xff);
  pairs<<<6, 32>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(out.read(), (std::vector<int>{1, 0, 3, 2, 5, 4}));
  pairs<<<5, 32>>>(out.get());  // not a whole number of pairs
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidClusterSize);
}

// The H200 launches a cooperative grid of clusters (probe_clusters.txt, plain.ex.c2.cooperative).
TEST_F(KernelClusters, ACooperativeGridOfClustersHasBothBarriers) {
  const unsigned blocks = 8, size = 4;
  DeviceArray<int> slots(blocks, 0xff), sums(blocks, 0xff);
  cudaLaunchAttribute a[2] = {};
  a[0].id = cudaLaunchAttributeClusterDimension;
  a[0].val.clusterDim.x = size;
  a[0].val.clusterDim.y = a[0].val.clusterDim.z = 1;
  a[1].id = cudaLaunchAttributeCooperative;
  a[1].val.cooperative = 1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(blocks);
  c.blockDim = dim3(64);
  c.attrs = a;
  c.numAttrs = 2;
  ASSERT_EQ(cudaLaunchKernelEx(&c, cooperative_clusters, slots.get(), sums.get()), cudaSuccess);
  std::vector<int> expect_slots;
  for (unsigned b = 0; b < blocks; ++b) expect_slots.push_back(static_cast<int>(b / size * size + (b + 1) % size) * 10);
  EXPECT_EQ(slots.read(), expect_slots);
  EXPECT_EQ(sums.read(), std::vector<int>(blocks, 10 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7)));
}

TEST_F(KernelClusters, MappingARankOutsideTheClusterStopsTheKernel) {
  DeviceArray<int> out(1);
  // Queued, or (CUDA_LAUNCH_BLOCKING=1) already run and failed; either way the error is sticky.
  const cudaError_t launched = launch_with_cluster({dim3(2), dim3(32), dim3(2)}, 0, map_outside, out.get());
  EXPECT_TRUE(launched == cudaSuccess || launched == cudaErrorLaunchFailure) << launched;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

}  // namespace
}  // namespace minicuda::kernels_test
