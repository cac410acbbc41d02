// Thread block cluster launches (docs/clusters.md): the errors of the runtime and the driver for
// bad shapes, the size limits with and without the non-portable attribute, a launch that names a
// different shape than the kernel's __cluster_dims__, the cluster function attributes, and the
// cluster occupancy queries over the H200's GPC layout (hw/include/nv_gpc.h). The H200's own
// answers: tests/data/h200/clusters/probe_clusters.txt, compared in full by test_conformance.
#include <cuda.h>
#include <cuda_runtime.h>

#include "kernel_test.h"

namespace {

__global__ void empty_kernel(int* out) {
  if (out != nullptr && threadIdx.x == 0) out[blockIdx.x] = 1;
}

__global__ void __cluster_dims__(2, 1, 1) pair_kernel(int* out) {
  if (out != nullptr && threadIdx.x == 0) out[blockIdx.x] = 1;
}

cudaError_t cluster_launch(const void* kernel, dim3 grid, dim3 block, dim3 cluster, size_t shared = 0) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster.x;
  a.val.clusterDim.y = cluster.y;
  a.val.clusterDim.z = cluster.z;
  cudaLaunchConfig_t c{};
  c.gridDim = grid;
  c.blockDim = block;
  c.dynamicSmemBytes = shared;
  c.attrs = &a;
  c.numAttrs = 1;
  int* none = nullptr;
  void* args[] = {&none};
  const cudaError_t e = cudaLaunchKernelExC(&c, kernel, args);
  EXPECT_EQ(cudaGetLastError(), e);  // the launch's error is also the last error
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // and never sticky
  return e;
}

int active_clusters(const void* kernel, unsigned threads, size_t shared, unsigned cluster) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster;
  a.val.clusterDim.y = a.val.clusterDim.z = 1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(64);
  c.blockDim = dim3(threads);
  c.dynamicSmemBytes = shared;
  c.attrs = &a;
  c.numAttrs = 1;
  int n = -1;
  const cudaError_t e = cudaOccupancyMaxActiveClusters(&n, kernel, &c);
  return e == cudaSuccess ? n : -static_cast<int>(e);
}

}  // namespace

namespace minicuda::kernels_test {
namespace {

class KernelClusterLaunch : public FreshProcess {};

const void* const kEmpty = reinterpret_cast<const void*>(empty_kernel);
const void* const kPair = reinterpret_cast<const void*>(pair_kernel);

TEST_F(KernelClusterLaunch, TheDeviceReportsClusterLaunch) {
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0), cudaSuccess);
  EXPECT_EQ(v, 1);
}

TEST_F(KernelClusterLaunch, ShapesTheLaunchRefuses) {
  EXPECT_EQ(cluster_launch(kEmpty, dim3(4), dim3(32), dim3(2)), cudaSuccess);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(3), dim3(32), dim3(2)), cudaErrorInvalidClusterSize);  // not a multiple
  EXPECT_EQ(cluster_launch(kEmpty, dim3(2, 3), dim3(32), dim3(1, 2)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(1, 1, 3), dim3(32), dim3(1, 1, 2)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(4), dim3(32), dim3(0, 1, 1)), cudaErrorInvalidClusterSize);  // a zero dimension
  EXPECT_EQ(cluster_launch(kEmpty, dim3(6), dim3(32), dim3(3)), cudaSuccess);  // any size up to 8
  EXPECT_EQ(cluster_launch(kEmpty, dim3(4, 4, 4), dim3(32), dim3(2, 2, 2)), cudaSuccess);
}

TEST_F(KernelClusterLaunch, MoreThanEightBlocksNeedTheNonPortableAttribute) {
  EXPECT_EQ(cluster_launch(kEmpty, dim3(18), dim3(32), dim3(9)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(4, 4), dim3(32), dim3(4, 4)), cudaErrorInvalidClusterSize);
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), cudaSuccess);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(18), dim3(32), dim3(9)), cudaSuccess);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(4, 4), dim3(32), dim3(4, 4)), cudaSuccess);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(16), dim3(1024), dim3(16)), cudaSuccess);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(17), dim3(32), dim3(17)), cudaErrorInvalidClusterSize);  // over 16
  EXPECT_EQ(cluster_launch(kEmpty, dim3(32), dim3(32), dim3(32)), cudaErrorInvalidClusterSize);
  // Any value is taken and read back; nonzero allows (the H200: func.plain.set.nonPortable2, M1).
  EXPECT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeNonPortableClusterSizeAllowed, 2), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeNonPortableClusterSizeAllowed, -1), cudaSuccess);
  cudaFuncAttributes attrs{};
  ASSERT_EQ(cudaFuncGetAttributes(&attrs, kEmpty), cudaSuccess);
  EXPECT_EQ(attrs.nonPortableClusterSizeAllowed, -1);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(18), dim3(32), dim3(9)), cudaSuccess);
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeNonPortableClusterSizeAllowed, 0), cudaSuccess);
  EXPECT_EQ(cluster_launch(kEmpty, dim3(18), dim3(32), dim3(9)), cudaErrorInvalidClusterSize);
}

TEST_F(KernelClusterLaunch, AKernelCompiledForAShapeTakesNoOther) {
  EXPECT_EQ(cluster_launch(kPair, dim3(4, 2), dim3(32), dim3(2)), cudaSuccess);
  EXPECT_EQ(cluster_launch(kPair, dim3(4, 2), dim3(32), dim3(4)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cluster_launch(kPair, dim3(4, 2), dim3(32), dim3(1)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cluster_launch(kPair, dim3(4, 2), dim3(32), dim3(1, 2)), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cudaFuncSetAttribute(kPair, cudaFuncAttributeRequiredClusterWidth, 4), cudaErrorInvalidValue);
}

TEST_F(KernelClusterLaunch, TheFunctionAttributes) {
  cudaFuncAttributes a{};
  ASSERT_EQ(cudaFuncGetAttributes(&a, kEmpty), cudaSuccess);
  EXPECT_EQ(a.requiredClusterWidth, 0);
  EXPECT_EQ(a.clusterDimMustBeSet, 0);
  EXPECT_EQ(a.nonPortableClusterSizeAllowed, 0);
  ASSERT_EQ(cudaFuncGetAttributes(&a, kPair), cudaSuccess);
  EXPECT_EQ(a.requiredClusterWidth * 100 + a.requiredClusterHeight * 10 + a.requiredClusterDepth, 211);
  EXPECT_EQ(a.clusterDimMustBeSet, 1);
  EXPECT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeClusterDimMustBeSet, 1), cudaErrorInvalidValue);
  // A width set alone reads back with the other axes 0 (as the H200 answers); launches take them as 1.
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeRequiredClusterWidth, 2), cudaSuccess);
  ASSERT_EQ(cudaFuncGetAttributes(&a, kEmpty), cudaSuccess);
  EXPECT_EQ(a.requiredClusterWidth * 100 + a.requiredClusterHeight * 10 + a.requiredClusterDepth, 200);
  EXPECT_EQ(a.clusterDimMustBeSet, 0);
  int* none = nullptr;
  void* args[] = {&none};
  EXPECT_EQ(cudaLaunchKernel(kEmpty, dim3(4), dim3(32), args), cudaSuccess);
  EXPECT_EQ(cudaLaunchKernel(kEmpty, dim3(3), dim3(32), args), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeRequiredClusterWidth, 0), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeClusterSchedulingPolicyPreference, 2), cudaSuccess);
  ASSERT_EQ(cudaFuncGetAttributes(&a, kEmpty), cudaSuccess);
  EXPECT_EQ(a.clusterSchedulingPolicyPreference, 2);
  // The driver's view of the same kernel.
  cudaFunction_t f = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&f, kPair), cudaSuccess);
  int v = -1;
  ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, reinterpret_cast<CUfunction>(f)),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 2);
}

TEST_F(KernelClusterLaunch, TheDriverChecksTheSame) {
  cudaFunction_t rf = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&rf, kEmpty), cudaSuccess);
  auto f = reinterpret_cast<CUfunction>(rf);
  int* none = nullptr;
  void* args[] = {&none};
  auto ex = [&](unsigned grid, unsigned cluster) {
    CUlaunchAttribute a{};
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = cluster;
    a.value.clusterDim.y = a.value.clusterDim.z = 1;
    CUlaunchConfig c{};
    c.gridDimX = grid, c.gridDimY = c.gridDimZ = 1;
    c.blockDimX = 32, c.blockDimY = c.blockDimZ = 1;
    c.attrs = &a;
    c.numAttrs = 1;
    const CUresult r = cuLaunchKernelEx(&c, f, args, nullptr);
    EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    return r;
  };
  EXPECT_EQ(ex(4, 2), CUDA_SUCCESS);
  EXPECT_EQ(ex(3, 2), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  EXPECT_EQ(ex(16, 16), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  EXPECT_EQ(ex(4, 0), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  ASSERT_EQ(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), CUDA_SUCCESS);
  EXPECT_EQ(ex(16, 16), CUDA_SUCCESS);
  EXPECT_EQ(ex(32, 32), CUDA_ERROR_INVALID_CLUSTER_SIZE);
}

// The model (nv_gpc.h): the H200's GPCs of 18, 18, 18, 18, 18, 18, 16 and 8 SMs; a GPC holds whole
// clusters only, each cluster's blocks on different SMs, and an SM at most 8 blocks of clusters.
// Every figure here is the H200's own answer (probe_clusters.txt, occ.*).
TEST_F(KernelClusterLaunch, OccupancyCountsWholeClustersPerGpc) {
  EXPECT_EQ(active_clusters(kEmpty, 32, 0, 1), 1056);  // 8 blocks per SM, not the 32 of a plain launch
  EXPECT_EQ(active_clusters(kEmpty, 128, 0, 2), 528);
  EXPECT_EQ(active_clusters(kEmpty, 1024, 0, 1), 264);  // two such blocks per SM
  EXPECT_EQ(active_clusters(kEmpty, 1024, 0, 8), 30);
  EXPECT_EQ(active_clusters(kEmpty, 32, 0, 16), -static_cast<int>(cudaErrorInvalidClusterSize));
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024), cudaSuccess);
  // One block per SM: clusters of 2 -> 9 * 6 + 8 + 4 = 66; of 16 -> one in each GPC of 18 SMs.
  EXPECT_EQ(active_clusters(kEmpty, 1024, 200 * 1024, 2), 66);
  EXPECT_EQ(active_clusters(kEmpty, 1024, 200 * 1024, 4), 30);
  EXPECT_EQ(active_clusters(kEmpty, 1024, 200 * 1024, 8), 15);
  EXPECT_EQ(active_clusters(kEmpty, 1024, 200 * 1024, 16), -static_cast<int>(cudaErrorInvalidClusterSize));
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), cudaSuccess);
  EXPECT_EQ(active_clusters(kEmpty, 1024, 200 * 1024, 16), 7);
  EXPECT_EQ(active_clusters(kEmpty, 1024, 0, 16), 14);
  EXPECT_EQ(active_clusters(kEmpty, 32, 0, 32), 0);  // no GPC holds it: 0, not an error
  ASSERT_EQ(cudaFuncSetAttribute(kEmpty, cudaFuncAttributeMaxDynamicSharedMemorySize, 0), cudaSuccess);
  int size = -1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(64);
  c.blockDim = dim3(128);
  ASSERT_EQ(cudaOccupancyMaxPotentialClusterSize(&size, kEmpty, &c), cudaSuccess);
  EXPECT_EQ(size, 16);
  ASSERT_EQ(cudaOccupancyMaxPotentialClusterSize(&size, kPair, &c), cudaSuccess);
  EXPECT_EQ(size, 8);
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(nullptr, kEmpty, &c), cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&size, kEmpty, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace minicuda::kernels_test
