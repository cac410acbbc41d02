// The stream-ordered allocator's answers to bad input, runtime and driver API, as the H200 gave
// them (tests/data/h200/mempool/probe_mempool.txt; each key is named beside its check).
#include <cstring>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

class MemPoolErrors : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
    props_.allocType = cudaMemAllocationTypePinned;
    props_.location = {cudaMemLocationTypeDevice, 0};
    ASSERT_EQ(cudaMemPoolCreate(&pool_, &props_), cudaSuccess);
  }
  cudaMemPoolProps props_{};
  cudaMemPool_t pool_ = nullptr;
};

TEST_F(MemPoolErrors, MallocAsync) {
  void* p = reinterpret_cast<void*>(0x1234);
  EXPECT_EQ(cudaMallocAsync(nullptr, 16, nullptr), cudaErrorInvalidValue);  // malloc_null_out.malloc
  EXPECT_EQ(cudaMallocAsync(&p, 0, nullptr), cudaSuccess);                   // size0.malloc
  EXPECT_EQ(p, nullptr);                                                     // size0.ptr_is_null = 1
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);                         // size0.free
  EXPECT_EQ(cudaMallocAsync(&p, size_t{1} << 50, nullptr), cudaErrorMemoryAllocation);  // malloc.huge_2e50
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);  // malloc.huge_2e50.getlast
  EXPECT_EQ(cudaMallocAsync(&p, 64, nullptr), cudaSuccess);  // malloc.after_huge: not sticky
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMallocFromPoolAsync(&p, 16, nullptr, nullptr), cudaErrorInvalidValue);  // null_pool.frompool
}

TEST_F(MemPoolErrors, FreeAsyncOfWhatIsNotALivePoolAllocation) {
  EXPECT_EQ(cudaFreeAsync(nullptr, nullptr), cudaSuccess);  // freeasync.null
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1024), cudaSuccess);
  // A cudaMalloc allocation is freed by cudaFreeAsync too: cudaFree then finds nothing.
  EXPECT_EQ(cudaFreeAsync(d, nullptr), cudaSuccess);      // freeasync_of_cudamalloc.freeasync
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);          // ... .cudaFree_after
  static char host[64];
  EXPECT_EQ(cudaFreeAsync(host, nullptr), cudaErrorInvalidValue);  // freeasync_host_ptr.freeasync
  void* p = nullptr;
  ASSERT_EQ(cudaMallocAsync(&p, 4096, nullptr), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(static_cast<char*>(p) + 256, nullptr), cudaErrorInvalidValue);  // freeasync_interior.free
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaErrorInvalidValue);  // double_free_async.free2
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);        // double_free_async.sync
}

TEST_F(MemPoolErrors, CudaFreeOfAnAsyncAllocation) {
  void* p = nullptr;
  ASSERT_EQ(cudaMallocAsync(&p, 1024, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);                            // cudafree_of_async.cudaFree
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaErrorInvalidValue);    // cudafree_of_async.freeasync_after
}

TEST_F(MemPoolErrors, PoolCreate) {
  cudaMemPool_t pool = nullptr;
  cudaMemPoolProps p = props_;
  EXPECT_EQ(cudaMemPoolCreate(nullptr, &p), cudaErrorInvalidValue);     // create.nullout
  EXPECT_EQ(cudaMemPoolCreate(&pool, nullptr), cudaErrorInvalidValue);  // create.nullprops
  p = props_;
  p.allocType = cudaMemAllocationTypeInvalid;
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.alloctype_invalid
  p = props_;
  p.location.id = 1;
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.dev1
  p.location.id = -1;
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.devm1
  p = props_;
  p.location.type = cudaMemLocationTypeInvalid;
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.loc_invalid
  p = props_;
  p.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &p), cudaSuccess);  // create.handle_fd
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  p = props_;
  p.location.type = cudaMemLocationTypeHost;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &p), cudaSuccess);  // create.loc_host
  void* h = nullptr;
  EXPECT_EQ(cudaMallocFromPoolAsync(&h, 64, pool, nullptr), cudaErrorNotSupported);  // not built in minicuda
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  p = props_;
  p.handleTypes = static_cast<cudaMemAllocationHandleType>(0x40);
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.handle_0x40
  p = props_;
  p.handleTypes = cudaMemHandleTypeWin32;
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.handle_win32
  p = props_;
  p.reserved[0] = 1;
  EXPECT_EQ(cudaMemPoolCreate(&pool, &p), cudaErrorInvalidValue);  // create.reserved_nonzero
}

TEST_F(MemPoolErrors, PoolHandles) {
  unsigned long long v = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(nullptr, cudaMemPoolAttrReleaseThreshold, &v), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAttribute(nullptr, cudaMemPoolAttrReleaseThreshold, &v), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolTrimTo(nullptr, 0), cudaErrorInvalidValue);   // null_pool.trim
  EXPECT_EQ(cudaMemPoolDestroy(nullptr), cudaErrorInvalidValue);     // null_pool.destroy
  EXPECT_EQ(cudaDeviceSetMemPool(0, nullptr), cudaErrorInvalidValue);  // null_pool.setmempool
  cudaMemPool_t def = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
  EXPECT_EQ(cudaMemPoolDestroy(def), cudaErrorInvalidValue);  // default.destroy
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(nullptr, 0), cudaErrorInvalidValue);  // defaultpool.nullout
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&def, 1), cudaErrorInvalidDevice);    // defaultpool.dev1
  EXPECT_EQ(cudaDeviceGetMemPool(nullptr, 0), cudaErrorInvalidValue);         // getmempool.nullout
  EXPECT_EQ(cudaDeviceGetDefaultMemPool(&def, -1), cudaErrorInvalidDevice);   // defaultpool.devm1
  EXPECT_EQ(cudaDeviceGetMemPool(&def, 1), cudaErrorInvalidValue);            // getmempool.dev1
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetMemPool(1, def), cudaErrorInvalidValue);             // setmempool.dev1
  EXPECT_EQ(cudaDeviceSetMemPool(-1, def), cudaErrorInvalidValue);            // setmempool.devm1
  EXPECT_EQ(cudaDeviceSetMemPool(0, def), cudaSuccess);                       // setmempool.default
  // setmempool_then_destroy.*: destroying the current pool makes the default current again.
  cudaMemPool_t other = nullptr, cur = nullptr;
  ASSERT_EQ(cudaMemPoolCreate(&other, &props_), cudaSuccess);
  ASSERT_EQ(cudaDeviceSetMemPool(0, other), cudaSuccess);
  ASSERT_EQ(cudaMemPoolDestroy(other), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
  EXPECT_EQ(cur, def);
  EXPECT_EQ(cudaMemPoolDestroy(pool_), cudaSuccess);
  EXPECT_EQ(cudaMemPoolDestroy(pool_), cudaErrorInvalidValue);  // destroy_twice.destroy2
  unsigned long long r = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &r), cudaErrorInvalidValue);
}

TEST_F(MemPoolErrors, Attributes) {
  unsigned long long v = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool_, static_cast<cudaMemPoolAttr>(0), &v), cudaErrorInvalidValue);  // getattr.attr0
  EXPECT_EQ(cudaMemPoolGetAttribute(pool_, static_cast<cudaMemPoolAttr>(9), &v), cudaErrorInvalidValue);  // getattr.attr9
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, static_cast<cudaMemPoolAttr>(9), &v), cudaErrorInvalidValue);  // setattr.attr9
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &v), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemCurrent, &v), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v), cudaSuccess);  // _0
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &v), cudaSuccess);
  v = 5;
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v), cudaErrorInvalidValue);  // _5
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrUsedMemHigh, &v), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, nullptr), cudaErrorInvalidValue);  // getattr_null_value.get
  // A NULL value to set crashed the H200's driver (iso.g2): minicuda answers instead.
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, nullptr), cudaErrorInvalidValue);
  int flag = 2;
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &flag), cudaSuccess);
  flag = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &flag), cudaSuccess);
  EXPECT_EQ(flag, 1);  // after_set_attr.ReuseAllowOpportunistic: any nonzero value reads back 1
  unsigned long long big = ~0ull;
  EXPECT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &big), cudaSuccess);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &v), cudaSuccess);
  EXPECT_EQ(v, ~0ull);  // setattr.ReleaseThreshold_max.readback
}

TEST_F(MemPoolErrors, AccessOnAOneGpuMachine) {
  cudaMemLocation loc{cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags f = static_cast<cudaMemAccessFlags>(77);
  EXPECT_EQ(cudaMemPoolGetAccess(&f, pool_, &loc), cudaSuccess);  // access.get_dev0
  EXPECT_EQ(f, cudaMemAccessFlagsProtReadWrite);
  loc.id = 1;
  EXPECT_EQ(cudaMemPoolGetAccess(&f, pool_, &loc), cudaErrorInvalidValue);  // access.get_dev1
  loc.id = -1;
  EXPECT_EQ(cudaMemPoolGetAccess(&f, pool_, &loc), cudaErrorInvalidValue);  // access.get_devm1
  loc = {cudaMemLocationTypeHost, 0};
  EXPECT_EQ(cudaMemPoolGetAccess(&f, pool_, &loc), cudaSuccess);  // access.get_host
  EXPECT_EQ(f, cudaMemAccessFlagsProtNone);
  loc = {cudaMemLocationTypeDevice, 0};
  // NULL flags crashed the H200's driver (the first probe run): minicuda answers instead.
  EXPECT_EQ(cudaMemPoolGetAccess(nullptr, pool_, &loc), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolGetAccess(&f, pool_, nullptr), cudaErrorInvalidValue);
  cudaMemAccessDesc d{};
  d.location = {cudaMemLocationTypeDevice, 0};
  d.flags = cudaMemAccessFlagsProtReadWrite;
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 1), cudaSuccess);  // access.set_dev0_rw
  d.flags = cudaMemAccessFlagsProtRead;
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 1), cudaErrorNotSupported);  // access.set_dev0_read
  d.flags = cudaMemAccessFlagsProtNone;
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 1), cudaErrorInvalidDevice);  // access.set_dev0_none
  d.flags = static_cast<cudaMemAccessFlags>(2);
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 1), cudaErrorInvalidValue);  // access.set_dev0_flags2
  d.location = {cudaMemLocationTypeHost, 0};
  d.flags = cudaMemAccessFlagsProtReadWrite;
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 1), cudaErrorNotSupported);  // access.set_host_rw
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);                  // access.getlast
  d.location = {cudaMemLocationTypeDevice, 0};
  d.location.id = 1;
  d.flags = cudaMemAccessFlagsProtReadWrite;
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 1), cudaErrorInvalidDevice);  // access.set_dev1_rw
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, nullptr, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, &d, 0), cudaSuccess);        // access.set_count0
  EXPECT_EQ(cudaMemPoolSetAccess(pool_, nullptr, 0), cudaSuccess);   // access.set_nulldesc_count0
}

TEST_F(MemPoolErrors, DriverTwins) {
  CUmemoryPool pool = nullptr;
  CUdeviceptr dp = 0;
  cuuint64_t v = 0;
  EXPECT_EQ(cuMemAllocAsync(nullptr, 16, nullptr), CUDA_ERROR_INVALID_VALUE);  // driver_null.allocasync_nullout
  EXPECT_EQ(cuMemAllocAsync(&dp, 0, nullptr), CUDA_SUCCESS);  // driver_null.allocasync_size0
  EXPECT_EQ(dp, 0u);
  EXPECT_EQ(cuMemFreeAsync(0, nullptr), CUDA_SUCCESS);  // driver_null.freeasync_0
  EXPECT_EQ(cuMemAllocAsync(&dp, size_t{1} << 50, nullptr), CUDA_ERROR_OUT_OF_MEMORY);  // drv.allocasync_huge
  EXPECT_EQ(cuDeviceGetDefaultMemPool(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetDefaultMemPool(&pool, 7), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuMemPoolGetAttribute(nullptr, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolTrimTo(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolDestroy(nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolCreate(&pool, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocFromPoolAsync(&dp, 16, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceSetMemPool(0, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetMemPool(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  cudaMemPool_t def = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
  ASSERT_EQ(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
  EXPECT_EQ(pool, def);  // drv.defaultpool_same_as_runtime = 1
}

TEST_F(MemPoolErrors, ADestroyedStreamIsAnswered) {
  // iso.bad_stream: the H200's driver crashed; minicuda answers with the stream error.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMallocAsync(&p, 16, s), cudaErrorInvalidResourceHandle);
}

TEST_F(MemPoolErrors, MaxSizeCountsWholePieces) {
  // create.maxsize_1MiB, maxsize_1MiB.*: the first 32 MiB piece is mapped all the same, and a
  // second allocation inside it succeeds.
  cudaMemPoolProps p = props_;
  p.maxSize = 1 << 20;
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &p), cudaSuccess);
  void *a = nullptr, *b = nullptr;
  EXPECT_EQ(cudaMallocFromPoolAsync(&a, 512 << 10, pool, nullptr), cudaSuccess);
  unsigned long long reserved = 0;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved), cudaSuccess);
  EXPECT_EQ(reserved, 32ull << 20);
  EXPECT_EQ(cudaMallocFromPoolAsync(&b, 1 << 20, pool, nullptr), cudaSuccess);  // alloc_1MiB_more
  EXPECT_EQ(cudaFreeAsync(a, nullptr), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(b, nullptr), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
