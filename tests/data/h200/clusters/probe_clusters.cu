// Thread block clusters probe for CUDA 13 on an H200 (compute capability 9.0): how the runtime and
// the driver answer cluster launches and cluster attributes (good and bad), what a kernel sees of
// its cluster, and distributed shared memory. Recorded into probe_clusters.txt; tests/conformance
// builds it unchanged against minicuda and compares every answer.
//
// Build: nvcc -arch=sm_90 -o probe_clusters probe_clusters.cu -lcuda
// Each line: key = value; error codes print as "<int> <name>".
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace cg = cooperative_groups;

#define RT(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", std::string(key).c_str(), (int)e_, cudaGetErrorName(e_)); fflush(stdout); } while (0)
#define DRV(key, expr) do { CUresult r_ = (expr); const char* n_ = nullptr; cuGetErrorName(r_, &n_); printf("%s = %d %s\n", std::string(key).c_str(), (int)r_, n_ ? n_ : "?"); fflush(stdout); } while (0)
#define VAL(key, fmt, v) do { printf("%s = " fmt "\n", std::string(key).c_str(), v); fflush(stdout); } while (0)

// What one block saw of its cluster: 16 values per block.
constexpr int kFields = 16;

__global__ void plain(int* out) {
  if (out != nullptr && threadIdx.x == 0) out[blockIdx.x] = 1;
}

__global__ void __cluster_dims__(2, 1, 1) dims2(int* out) {
  if (out != nullptr && threadIdx.x == 0) out[blockIdx.x] = 1;
}

__global__ void __cluster_dims__(2, 2, 1) dims22(int* out) {
  if (out != nullptr && threadIdx.x == 0) out[blockIdx.x] = 1;
}

// Each block records its cluster as the group API and the built-ins give it.
__global__ void record(int* out, unsigned* sm) {
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned long long block =
      blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    int* o = out + block * kFields;
    dim3 cd = __clusterDim(), ci = __clusterIdx(), cr = __clusterRelativeBlockIdx(), cg3 = __clusterGridDimInClusters();
    o[0] = cluster.block_rank();
    o[1] = cluster.num_blocks();
    o[2] = cluster.dim_blocks().x * 100 + cluster.dim_blocks().y * 10 + cluster.dim_blocks().z;
    o[3] = cluster.block_index().x * 100 + cluster.block_index().y * 10 + cluster.block_index().z;
    o[4] = cd.x * 100 + cd.y * 10 + cd.z;
    o[5] = ci.x * 100 + ci.y * 10 + ci.z;
    o[6] = cr.x * 100 + cr.y * 10 + cr.z;
    o[7] = cg3.x * 100 + cg3.y * 10 + cg3.z;
    o[8] = __clusterRelativeBlockRank();
    o[9] = __clusterSizeInBlocks();
    o[10] = __clusterDimIsSpecified();
    o[11] = cluster.num_threads();
    o[12] = cluster.dim_threads().x * 100 + cluster.dim_threads().y * 10 + cluster.dim_threads().z;
    o[13] = -1;
    o[14] = -1;
    o[15] = -1;
    if (sm != nullptr) sm[block] = 1;
  }
  // thread_rank of the block's last thread, and of its thread (1,0,0).
  const unsigned last = blockDim.x * blockDim.y * blockDim.z - 1;
  const unsigned me = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  if (me == last) out[block * kFields + 13] = cluster.thread_rank();
  if (me == 1) out[block * kFields + 14] = cluster.thread_rank();
  if (me == 1) out[block * kFields + 15] = cluster.thread_index().x * 100 + cluster.thread_index().y * 10 + cluster.thread_index().z;
}

// A histogram over a cluster's distributed shared memory: the bins are split over the blocks of the
// cluster; each block counts its part of the input into whichever block holds the bin.
__global__ void histogram(const int* in, int n, int bins, int* out) {
  extern __shared__ int part[];
  cg::cluster_group cluster = cg::this_cluster();
  const int per_block = bins / (int)cluster.num_blocks();
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) part[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int bin = in[i] % bins;
    int* remote = cluster.map_shared_rank(part, bin / per_block);
    atomicAdd(remote + bin % per_block, 1);
  }
  cluster.sync();
  const int base = (int)cluster.block_rank() * per_block;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) atomicAdd(&out[base + i], part[i]);
}

// Ordering over the cluster barrier: block r writes its rank into its shared word, arrives, waits,
// then reads every other block's word (all must be visible), and records whether query_shared_rank
// names the owner of each mapped pointer.
__global__ void ordering(int* out) {
  __shared__ int word;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) word = 1000 + (int)rank;
  cluster.barrier_arrive();
  cluster.barrier_wait();
  if (threadIdx.x == 0) {
    int sum = 0, owners = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) {
      int* p = cluster.map_shared_rank(&word, (int)r);
      sum += *p;
      owners += cluster.query_shared_rank(p) == r ? 1 : 0;
    }
    out[blockIdx.x * 3 + 0] = sum;
    out[blockIdx.x * 3 + 1] = owners;
    out[blockIdx.x * 3 + 2] = __isClusterShared(&word) ? 1 : 0;
  }
  cluster.sync();  // no block leaves while another may still read its shared memory
}

static int* g_out = nullptr;
static unsigned* g_sm = nullptr;

static cudaLaunchConfig_t config(dim3 grid, dim3 block, size_t shared, cudaLaunchAttribute* attrs, unsigned n) {
  cudaLaunchConfig_t c{};
  c.gridDim = grid;
  c.blockDim = block;
  c.dynamicSmemBytes = shared;
  c.attrs = attrs;
  c.numAttrs = n;
  return c;
}

static cudaLaunchAttribute cluster_attr(unsigned x, unsigned y, unsigned z) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = x;
  a.val.clusterDim.y = y;
  a.val.clusterDim.z = z;
  return a;
}

// Launches `record` over grid/block with a cluster shape and prints the return, the last error and
// the synchronisation's answer.
static cudaError_t launch_record(const std::string& key, dim3 grid, dim3 block, dim3 cluster, size_t shared = 0) {
  cudaLaunchAttribute a = cluster_attr(cluster.x, cluster.y, cluster.z);
  cudaLaunchConfig_t c = config(grid, block, shared, &a, 1);
  cudaError_t e = cudaLaunchKernelEx(&c, record, g_out, g_sm);
  printf("%s = %d %s\n", key.c_str(), (int)e, cudaGetErrorName(e));
  RT(key + ".getlast", cudaGetLastError());
  RT(key + ".sync", cudaDeviceSynchronize());
  return e;
}

static void print_func_attrs(const std::string& key, const void* f) {
  cudaFuncAttributes a{};
  RT(key + ".get", cudaFuncGetAttributes(&a, f));
  VAL(key + ".requiredCluster", "%d", a.requiredClusterWidth * 100 + a.requiredClusterHeight * 10 + a.requiredClusterDepth);
  VAL(key + ".clusterDimMustBeSet", "%d", a.clusterDimMustBeSet);
  VAL(key + ".nonPortableClusterSizeAllowed", "%d", a.nonPortableClusterSizeAllowed);
  VAL(key + ".clusterSchedulingPolicyPreference", "%d", a.clusterSchedulingPolicyPreference);
}

static void print_record(const std::string& key, unsigned blocks) {
  static int host[64 * kFields];
  cudaMemcpy(host, g_out, blocks * kFields * sizeof(int), cudaMemcpyDeviceToHost);
  for (unsigned b = 0; b < blocks; ++b) {
    std::string line;
    for (int f = 0; f < kFields; ++f) line += (f ? " " : "") + std::to_string(host[b * kFields + f]);
    printf("%s.block%u = %s\n", key.c_str(), b, line.c_str());
  }
}

int main() {
  int v = -1;
  RT("attr.clusterLaunch.rc", cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0));
  VAL("attr.clusterLaunch", "%d", v);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  VAL("prop.clusterLaunch", "%d", prop.clusterLaunch);
  VAL("prop.multiProcessorCount", "%d", prop.multiProcessorCount);
  cudaMalloc(&g_out, 64 * kFields * sizeof(int) * 16);
  cudaMalloc(&g_sm, 4096 * sizeof(unsigned));

  // --- function attributes ---
  print_func_attrs("func.plain", (const void*)plain);
  print_func_attrs("func.dims2", (const void*)dims2);
  print_func_attrs("func.dims22", (const void*)dims22);
  RT("func.plain.set.requiredWidth2", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeRequiredClusterWidth, 2));
  RT("func.plain.set.mustBeSet1", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeClusterDimMustBeSet, 1));
  RT("func.plain.set.policy1", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeClusterSchedulingPolicyPreference, 1));
  RT("func.plain.set.policy2", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeClusterSchedulingPolicyPreference, 2));
  RT("func.plain.set.policy0", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeClusterSchedulingPolicyPreference, 0));
  RT("func.plain.set.nonPortable2", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 2));
  RT("func.plain.set.nonPortableM1", cudaFuncSetAttribute((const void*)plain, cudaFuncAttributeNonPortableClusterSizeAllowed, -1));
  RT("func.dims2.set.nonPortable1", cudaFuncSetAttribute((const void*)dims2, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  RT("func.dims2.set.requiredWidth4", cudaFuncSetAttribute((const void*)dims2, cudaFuncAttributeRequiredClusterWidth, 4));
  print_func_attrs("func.plain.after", (const void*)plain);
  print_func_attrs("func.dims2.after", (const void*)dims2);
  RT("func.dims2.set.nonPortable0", cudaFuncSetAttribute((const void*)dims2, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));

  // --- what a kernel sees ---
  RT("see.none.launch", (record<<<dim3(2, 1, 1), dim3(4, 2, 1)>>>(g_out, nullptr), cudaGetLastError()));
  RT("see.none.sync", cudaDeviceSynchronize());
  print_record("see.none", 2);
  launch_record("see.c2", dim3(4, 1, 1), dim3(8, 1, 1), dim3(2, 1, 1));
  print_record("see.c2", 4);
  launch_record("see.c221", dim3(4, 2, 2), dim3(4, 2, 1), dim3(2, 2, 1));
  print_record("see.c221", 16);
  launch_record("see.c122", dim3(2, 4, 2), dim3(2, 2, 2), dim3(1, 2, 2));
  print_record("see.c122", 16);
  launch_record("see.c111", dim3(3, 1, 1), dim3(32, 1, 1), dim3(1, 1, 1));
  print_record("see.c111", 3);
  launch_record("see.c8", dim3(8, 1, 1), dim3(32, 1, 1), dim3(8, 1, 1));
  print_record("see.c8", 8);

  // --- cluster shapes the launch refuses or takes ---
  launch_record("shape.c2.grid3", dim3(3, 1, 1), dim3(32, 1, 1), dim3(2, 1, 1));
  launch_record("shape.c12.grid23", dim3(2, 3, 1), dim3(32, 1, 1), dim3(1, 2, 1));
  launch_record("shape.c112.grid113", dim3(1, 1, 3), dim3(32, 1, 1), dim3(1, 1, 2));
  launch_record("shape.c0", dim3(4, 1, 1), dim3(32, 1, 1), dim3(0, 1, 1));
  launch_record("shape.c010", dim3(4, 1, 1), dim3(32, 1, 1), dim3(1, 0, 1));
  launch_record("shape.c3.grid6", dim3(6, 1, 1), dim3(32, 1, 1), dim3(3, 1, 1));
  launch_record("shape.c222", dim3(4, 4, 4), dim3(32, 1, 1), dim3(2, 2, 2));
  launch_record("shape.c9", dim3(18, 1, 1), dim3(32, 1, 1), dim3(9, 1, 1));
  launch_record("shape.c16", dim3(16, 1, 1), dim3(32, 1, 1), dim3(16, 1, 1));
  launch_record("shape.c441", dim3(4, 4, 1), dim3(32, 1, 1), dim3(4, 4, 1));
  launch_record("shape.c32", dim3(32, 1, 1), dim3(32, 1, 1), dim3(32, 1, 1));
  RT("shape.nonPortable1", cudaFuncSetAttribute((const void*)record, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  launch_record("shape.np.c9", dim3(18, 1, 1), dim3(32, 1, 1), dim3(9, 1, 1));
  launch_record("shape.np.c12", dim3(12, 1, 1), dim3(32, 1, 1), dim3(12, 1, 1));
  launch_record("shape.np.c16", dim3(16, 1, 1), dim3(32, 1, 1), dim3(16, 1, 1));
  launch_record("shape.np.c441", dim3(4, 4, 1), dim3(32, 1, 1), dim3(4, 4, 1));
  launch_record("shape.np.c17", dim3(17, 1, 1), dim3(32, 1, 1), dim3(17, 1, 1));
  launch_record("shape.np.c32", dim3(32, 1, 1), dim3(32, 1, 1), dim3(32, 1, 1));
  // Blocks that fill an SM each (1024 threads, most of an SM's shared memory).
  RT("shape.maxShared", cudaFuncSetAttribute((const void*)record, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  launch_record("shape.np.full.c16", dim3(16, 1, 1), dim3(1024, 1, 1), dim3(16, 1, 1), 200 * 1024);
  launch_record("shape.np.full.c8", dim3(8, 1, 1), dim3(1024, 1, 1), dim3(8, 1, 1), 200 * 1024);
  launch_record("shape.np.full.c16.grid160", dim3(160, 1, 1), dim3(1024, 1, 1), dim3(16, 1, 1), 200 * 1024);
  launch_record("shape.np.c16.grid128", dim3(128, 1, 1), dim3(1024, 1, 1), dim3(16, 1, 1), 200 * 1024);
  RT("shape.nonPortable0", cudaFuncSetAttribute((const void*)record, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
  RT("shape.maxShared0", cudaFuncSetAttribute((const void*)record, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));

  // --- compile-time cluster dims ---
  RT("dims2.chevron.grid4", (dims2<<<4, 32>>>(g_out), cudaGetLastError()));
  RT("dims2.chevron.grid4.sync", cudaDeviceSynchronize());
  RT("dims2.chevron.grid3", (dims2<<<3, 32>>>(g_out), cudaGetLastError()));
  RT("dims2.chevron.grid3.sync", cudaDeviceSynchronize());
  RT("dims22.chevron.grid22", (dims22<<<dim3(2, 2), 32>>>(g_out), cudaGetLastError()));
  RT("dims22.chevron.grid21", (dims22<<<dim3(2, 1), 32>>>(g_out), cudaGetLastError()));
  RT("dims22.chevron.grid21.sync", cudaDeviceSynchronize());
  {
    const dim3 shapes[] = {dim3(2, 1, 1), dim3(4, 1, 1), dim3(1, 1, 1), dim3(1, 2, 1)};
    const char* names[] = {"c2", "c4", "c1", "c12"};
    for (int i = 0; i < 4; ++i) {
      cudaLaunchAttribute a = cluster_attr(shapes[i].x, shapes[i].y, shapes[i].z);
      cudaLaunchConfig_t c = config(dim3(4, 2, 1), dim3(32), 0, &a, 1);
      RT(std::string("dims2.ex.") + names[i], cudaLaunchKernelEx(&c, dims2, g_out));
      RT(std::string("dims2.ex.") + names[i] + ".getlast", cudaGetLastError());
      RT(std::string("dims2.ex.") + names[i] + ".sync", cudaDeviceSynchronize());
    }
    void* args[] = {&g_out};
    RT("dims2.cooperative", cudaLaunchCooperativeKernel((const void*)dims2, dim3(4), dim3(32), args, 0, nullptr));
    RT("dims2.cooperative.getlast", cudaGetLastError());
    RT("dims2.cooperative.sync", cudaDeviceSynchronize());
  }
  {  // cluster and cooperative together
    cudaLaunchAttribute a[2] = {cluster_attr(2, 1, 1), {}};
    a[1].id = cudaLaunchAttributeCooperative;
    a[1].val.cooperative = 1;
    cudaLaunchConfig_t c = config(dim3(4), dim3(32), 0, a, 2);
    RT("plain.ex.c2.cooperative", cudaLaunchKernelEx(&c, plain, g_out));
    RT("plain.ex.c2.cooperative.getlast", cudaGetLastError());
    RT("plain.ex.c2.cooperative.sync", cudaDeviceSynchronize());
  }

  // --- occupancy ---
  {
    const unsigned threads[] = {32, 128, 1024};
    const size_t shared[] = {0, 0, 0};
    for (int np = 0; np < 2; ++np) {
      RT("occ.np" + std::to_string(np), cudaFuncSetAttribute((const void*)record, cudaFuncAttributeNonPortableClusterSizeAllowed, np));
      for (int i = 0; i < 3; ++i) {
        cudaLaunchConfig_t c = config(dim3(64), dim3(threads[i]), shared[i], nullptr, 0);
        int n = -1;
        std::string key = "occ.np" + std::to_string(np) + ".t" + std::to_string(threads[i]);
        RT(key + ".maxPotential.rc", cudaOccupancyMaxPotentialClusterSize(&n, (const void*)record, &c));
        VAL(key + ".maxPotential", "%d", n);
        const unsigned sizes[] = {1, 2, 4, 8, 16, 32};
        for (unsigned s : sizes) {
          cudaLaunchAttribute a = cluster_attr(s, 1, 1);
          cudaLaunchConfig_t cc = config(dim3(64), dim3(threads[i]), shared[i], &a, 1);
          n = -1;
          RT(key + ".active.c" + std::to_string(s) + ".rc", cudaOccupancyMaxActiveClusters(&n, (const void*)record, &cc));
          VAL(key + ".active.c" + std::to_string(s), "%d", n);
        }
      }
    }
    RT("occ.maxShared", cudaFuncSetAttribute((const void*)record, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    for (int np = 0; np < 2; ++np) {
      cudaFuncSetAttribute((const void*)record, cudaFuncAttributeNonPortableClusterSizeAllowed, np);
      cudaLaunchConfig_t c = config(dim3(64), dim3(1024), 200 * 1024, nullptr, 0);
      int n = -1;
      std::string key = "occ.np" + std::to_string(np) + ".full";
      RT(key + ".maxPotential.rc", cudaOccupancyMaxPotentialClusterSize(&n, (const void*)record, &c));
      VAL(key + ".maxPotential", "%d", n);
      const unsigned sizes[] = {1, 2, 4, 8, 16};
      for (unsigned s : sizes) {
        cudaLaunchAttribute a = cluster_attr(s, 1, 1);
        cudaLaunchConfig_t cc = config(dim3(64), dim3(1024), 200 * 1024, &a, 1);
        n = -1;
        RT(key + ".active.c" + std::to_string(s) + ".rc", cudaOccupancyMaxActiveClusters(&n, (const void*)record, &cc));
        VAL(key + ".active.c" + std::to_string(s), "%d", n);
      }
    }
    cudaFuncSetAttribute((const void*)record, cudaFuncAttributeNonPortableClusterSizeAllowed, 0);
    cudaFuncSetAttribute((const void*)record, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
    int n = -1;
    cudaLaunchConfig_t c = config(dim3(64), dim3(128), 0, nullptr, 0);
    RT("occ.dims2.maxPotential.rc", cudaOccupancyMaxPotentialClusterSize(&n, (const void*)dims2, &c));
    VAL("occ.dims2.maxPotential", "%d", n);
    n = -1;
    RT("occ.dims2.active.rc", cudaOccupancyMaxActiveClusters(&n, (const void*)dims2, &c));
    VAL("occ.dims2.active", "%d", n);
    RT("occ.null.rc", cudaOccupancyMaxActiveClusters(nullptr, (const void*)record, &c));
    RT("occ.nullconfig.rc", cudaOccupancyMaxActiveClusters(&n, (const void*)record, nullptr));
    cudaLaunchAttribute a = cluster_attr(3, 1, 1);
    cudaLaunchConfig_t c3 = config(dim3(64), dim3(128), 0, &a, 1);
    n = -1;
    RT("occ.c3.grid64.rc", cudaOccupancyMaxActiveClusters(&n, (const void*)record, &c3));
    VAL("occ.c3.grid64", "%d", n);
  }

  // --- the driver API ---
  {
    CUfunction f = nullptr, f2 = nullptr;
    RT("drv.getFunc", cudaGetFuncBySymbol((cudaFunction_t*)&f, (const void*)record));
    RT("drv.getFunc2", cudaGetFuncBySymbol((cudaFunction_t*)&f2, (const void*)dims2));
    const CUfunction_attribute attrs[] = {CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                                          CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
                                          CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                                          CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE};
    for (CUfunction_attribute a : attrs) {
      int x = -1;
      DRV("drv.record.attr" + std::to_string((int)a) + ".rc", cuFuncGetAttribute(&x, a, f));
      VAL("drv.record.attr" + std::to_string((int)a), "%d", x);
      x = -1;
      DRV("drv.dims2.attr" + std::to_string((int)a) + ".rc", cuFuncGetAttribute(&x, a, f2));
      VAL("drv.dims2.attr" + std::to_string((int)a), "%d", x);
    }
    DRV("drv.set.nonPortable1", cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    DRV("drv.set.requiredWidth2", cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 2));
    DRV("drv.set.mustBeSet", cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, 1));
    void* args[] = {&g_out, &g_sm};
    auto ex = [&](const std::string& key, CUfunction fn, unsigned gx, unsigned cx, unsigned cy) {
      CUlaunchAttribute a{};
      a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      a.value.clusterDim.x = cx;
      a.value.clusterDim.y = cy;
      a.value.clusterDim.z = 1;
      CUlaunchConfig c{};
      c.gridDimX = gx, c.gridDimY = 1, c.gridDimZ = 1;
      c.blockDimX = 32, c.blockDimY = 1, c.blockDimZ = 1;
      c.attrs = &a;
      c.numAttrs = 1;
      DRV(key, cuLaunchKernelEx(&c, fn, args, nullptr));
      DRV(key + ".sync", cuCtxSynchronize());
    };
    ex("drv.ex.c2", f, 4, 2, 1);
    ex("drv.ex.c2.grid3", f, 3, 2, 1);
    ex("drv.ex.c12", f, 4, 1, 2);
    ex("drv.ex.np.c16", f, 16, 16, 1);
    ex("drv.ex.np.c32", f, 32, 32, 1);
    DRV("drv.set.nonPortable0", cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 0));
    ex("drv.ex.c16", f, 16, 16, 1);
    ex("drv.ex.c0", f, 4, 0, 1);
    ex("drv.dims2.ex.c4", f2, 4, 4, 1);
    ex("drv.dims2.ex.c2", f2, 4, 2, 1);
    DRV("drv.dims2.launch.grid3", cuLaunchKernel(f2, 3, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
    DRV("drv.dims2.launch.grid3.sync", cuCtxSynchronize());
    DRV("drv.dims2.launch.grid4", cuLaunchKernel(f2, 4, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
    DRV("drv.dims2.launch.grid4.sync", cuCtxSynchronize());
  }

  // --- distributed shared memory ---
  {
    const int n = 1 << 16, bins = 256;
    static int host_in[1 << 16];
    int expect[256] = {}, got[256] = {};
    for (int i = 0; i < n; ++i) {
      host_in[i] = (i * 7919 + (i >> 3)) % 1000;
      ++expect[host_in[i] % bins];
    }
    int *in = nullptr, *out = nullptr;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, bins * sizeof(int));
    cudaMemcpy(in, host_in, n * sizeof(int), cudaMemcpyHostToDevice);
    const unsigned sizes[] = {1, 2, 4, 8};
    for (unsigned s : sizes) {
      cudaMemset(out, 0, bins * sizeof(int));
      cudaLaunchAttribute a = cluster_attr(s, 1, 1);
      cudaLaunchConfig_t c = config(dim3(16), dim3(128), bins / s * sizeof(int), &a, 1);
      std::string key = "dsmem.hist.c" + std::to_string(s);
      RT(key, cudaLaunchKernelEx(&c, histogram, (const int*)in, n, bins, out));
      RT(key + ".sync", cudaDeviceSynchronize());
      cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
      VAL(key + ".equal", "%d", memcmp(got, expect, sizeof got) == 0 ? 1 : 0);
    }
    const unsigned osizes[] = {1, 2, 4, 8};
    for (unsigned s : osizes) {
      cudaLaunchAttribute a = cluster_attr(s, 1, 1);
      cudaLaunchConfig_t c = config(dim3(8), dim3(64), 0, &a, 1);
      std::string key = "dsmem.order.c" + std::to_string(s);
      cudaMemset(g_out, 0, 64 * sizeof(int));
      RT(key, cudaLaunchKernelEx(&c, ordering, g_out));
      RT(key + ".sync", cudaDeviceSynchronize());
      int h[24];
      cudaMemcpy(h, g_out, sizeof h, cudaMemcpyDeviceToHost);
      std::string line;
      for (int i = 0; i < 24; ++i) line += (i ? " " : "") + std::to_string(h[i]);
      printf("%s.out = %s\n", key.c_str(), line.c_str());
    }
    cudaFree(in);
    cudaFree(out);
  }
  RT("end.sync", cudaDeviceSynchronize());
  return 0;
}
