// Virtual memory management across two GPUs, as vectorAddMMAP uses it: one reservation striped
// with chunks of both GPUs' memory, access granted to one GPU only. That GPU reaches the other's
// chunk over the link (Peer PTEs), though the owner maps none of it; the host's view of the chunk
// comes and goes with that mapping.
#include <cuda.h>

#include <vector>

#include "two_gpu_process.h"

__global__ void add_index(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += i;
}

namespace minicuda::testing {
namespace {

constexpr size_t kChunk = 2u << 20;

class MultiGpuVmm : public TwoGpuProcess {
 protected:
  void SetUp() override {
    TwoGpuProcess::SetUp();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  }
  static CUmemGenericAllocationHandle create_on(int device) {
    CUmemAllocationProp p{};
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    CUmemGenericAllocationHandle h = 0;
    EXPECT_EQ(cuMemCreate(&h, kChunk, &p, 0), CUDA_SUCCESS);
    return h;
  }
  // Reserves two chunks' worth, maps GPU 0's chunk then GPU 1's, and lets GPU 0 alone read and
  // write all of it.
  CUdeviceptr map_striped(CUmemGenericAllocationHandle h[2]) {
    CUdeviceptr va = 0;
    EXPECT_EQ(cuMemAddressReserve(&va, 2 * kChunk, 0, 0, 0), CUDA_SUCCESS);
    for (int d = 0; d < 2; ++d) {
      h[d] = create_on(d);
      EXPECT_EQ(cuMemMap(va + d * kChunk, kChunk, 0, h[d], 0), CUDA_SUCCESS);
    }
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 0;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    EXPECT_EQ(cuMemSetAccess(va, 2 * kChunk, &access, 1), CUDA_SUCCESS);
    return va;
  }
  static void unmap_all(CUdeviceptr va, CUmemGenericAllocationHandle h[2]) {
    EXPECT_EQ(cuMemUnmap(va, 2 * kChunk), CUDA_SUCCESS);
    EXPECT_EQ(cuMemRelease(h[0]), CUDA_SUCCESS);
    EXPECT_EQ(cuMemRelease(h[1]), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAddressFree(va, 2 * kChunk), CUDA_SUCCESS);
  }
};

TEST_F(MultiGpuVmm, OneGpuReachesAChunkOfTheOtherThatTheOtherDoesNotMap) {
  CUmemGenericAllocationHandle h[2] = {};
  const CUdeviceptr va = map_striped(h);
  const int n = static_cast<int>(2 * kChunk / sizeof(int));
  std::vector<int> host(n, 1);
  ASSERT_EQ(cudaMemcpy(reinterpret_cast<void*>(va), host.data(), 2 * kChunk, cudaMemcpyHostToDevice), cudaSuccess);
  add_index<<<n / 256, 256>>>(reinterpret_cast<int*>(va), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> back(n, 0);
  ASSERT_EQ(cudaMemcpy(back.data(), reinterpret_cast<void*>(va), 2 * kChunk, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i : {0, n / 2 - 1, n / 2, n - 1}) EXPECT_EQ(back[i], 1 + i) << "at " << i;
  unmap_all(va, h);
}

// The bytes written through GPU 0's peer mapping are GPU 1's memory: mapped again, on its own,
// for GPU 1, the chunk still holds them.
TEST_F(MultiGpuVmm, TheBytesLandInTheOwnersMemory) {
  CUmemGenericAllocationHandle h[2] = {};
  const CUdeviceptr va = map_striped(h);
  ASSERT_EQ(cuMemsetD32(va + kChunk, 0x5a5a5a5a, kChunk / 4), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(cuMemUnmap(va, 2 * kChunk), CUDA_SUCCESS);

  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  CUdeviceptr again = 0;
  ASSERT_EQ(cuMemAddressReserve(&again, kChunk, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(again, kChunk, 0, h[1], 0), CUDA_SUCCESS);
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = 1;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  ASSERT_EQ(cuMemSetAccess(again, kChunk, &access, 1), CUDA_SUCCESS);
  unsigned word = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&word, again + kChunk - 4, sizeof word), CUDA_SUCCESS);
  EXPECT_EQ(word, 0x5a5a5a5au);
  EXPECT_EQ(cuMemUnmap(again, kChunk), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(again, kChunk), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h[0]), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h[1]), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 2 * kChunk), CUDA_SUCCESS);
}

// Unmapping takes the host's view with the peer mapping: the same reservation mapped again works.
TEST_F(MultiGpuVmm, TheReservationMapsAgainAfterAnUnmap) {
  for (int round = 0; round < 3; ++round) {
    CUmemGenericAllocationHandle h[2] = {};
    const CUdeviceptr va = map_striped(h);
    ASSERT_EQ(cuMemsetD32(va, round + 1, 2 * kChunk / 4), CUDA_SUCCESS);
    unsigned word = 0;
    ASSERT_EQ(cuMemcpyDtoH_v2(&word, va + 2 * kChunk - 4, sizeof word), CUDA_SUCCESS);
    EXPECT_EQ(word, static_cast<unsigned>(round + 1));
    unmap_all(va, h);
  }
}

}  // namespace
}  // namespace minicuda::testing
