// The exact CUresult of each bad input to the VMM calls, as the H200 answered them
// (tests/data/h200/vmm/out/vmm_errors.txt; each comment names its line). Where the real libcuda
// crashed (a made-up or released handle given to cuMemMap, cuMemRelease or
// cuMemGetAllocationPropertiesFromHandle), minicuda answers CUDA_ERROR_INVALID_VALUE.
#include "vmm_test.h"

namespace minicuda::vmm_test {
namespace {

TEST_F(Vmm, GranularityErrors) {
  CUmemAllocationProp p = prop();
  size_t g = 0;
  EXPECT_EQ(cuMemGetAllocationGranularity(nullptr, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);  // gran(null out)
  EXPECT_EQ(cuMemGetAllocationGranularity(&g, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);  // gran(null prop)
  EXPECT_EQ(cuMemGetAllocationGranularity(&g, &p, static_cast<CUmemAllocationGranularity_flags>(2)),
            CUDA_ERROR_INVALID_VALUE);  // gran(flag 2)
  // The rest of prop is not looked at: gran(dev 77), gran(loc invalid), gran(type invalid), gran(fabric).
  CUmemAllocationProp odd = p;
  odd.location.id = 77;
  odd.type = CU_MEM_ALLOCATION_TYPE_INVALID;
  odd.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
  EXPECT_EQ(cuMemGetAllocationGranularity(&g, &odd, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
  EXPECT_EQ(g, kTwoMiB);
}

TEST_F(Vmm, CreateErrors) {
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h = 0;
  EXPECT_EQ(cuMemCreate(nullptr, kTwoMiB, &p, 0), CUDA_ERROR_INVALID_VALUE);        // create(null handle)
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, nullptr, 0), CUDA_ERROR_INVALID_VALUE);        // create(null prop)
  EXPECT_EQ(cuMemCreate(&h, 0, &p, 0), CUDA_ERROR_INVALID_VALUE);                   // create(size 0)
  EXPECT_EQ(cuMemCreate(&h, 1 << 20, &p, 0), CUDA_ERROR_INVALID_VALUE);             // create(size 1MiB)
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB + 4096, &p, 0), CUDA_ERROR_INVALID_VALUE);      // create(size 2MiB+4096)
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &p, 1), CUDA_ERROR_INVALID_VALUE);             // create(flags 1)
  CUmemAllocationProp q = p;
  q.location.id = 77;
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_DEVICE);  // create(dev 77)
  q = p;
  q.location.type = CU_MEM_LOCATION_TYPE_INVALID;
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_VALUE);  // create(loc invalid)
  q = p;
  q.type = CU_MEM_ALLOCATION_TYPE_INVALID;
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_VALUE);  // create(type invalid)
  q.type = static_cast<CUmemAllocationType>(7);
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_VALUE);  // create(type 7)
  q = p;
  q.requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32;
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_VALUE);  // create(win32)
  q.requestedHandleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_NOT_PERMITTED);  // create(fabric) = 800
  q = p;
  q.allocFlags.compressionType = 5;
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_VALUE);  // create(comp 5)
  q = p;
  q.win32HandleMetaData = reinterpret_cast<void*>(0x10);
  EXPECT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_ERROR_INVALID_VALUE);  // create(win32 meta)
  EXPECT_EQ(cuMemCreate(&h, 200ull << 30, &p, 0), CUDA_ERROR_OUT_OF_MEMORY);  // create(200 GiB)
  q = p;
  q.allocFlags.gpuDirectRDMACapable = 1;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &q, 0), CUDA_SUCCESS);  // create(rdma)
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);  // bogus double_release: release again
}

// The H200 grants compressible memory and reads it back (vmm_trace.txt "comp props": comp=1),
// as cudaCompressibleMemory checks.
TEST_F(Vmm, CompressionIsGrantedAndReadBack) {
  int supported = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev_), CUDA_SUCCESS);
  EXPECT_EQ(supported, 1);  // cuDeviceGetAttribute(107) value=1
  CUmemAllocationProp p = prop();
  p.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
  CUmemAllocationProp got;
  std::memset(&got, 0xab, sizeof got);
  ASSERT_EQ(cuMemGetAllocationPropertiesFromHandle(&got, h), CUDA_SUCCESS);
  EXPECT_EQ(got.allocFlags.compressionType, CU_MEM_ALLOCATION_COMP_GENERIC);
  EXPECT_EQ(got.requestedHandleTypes, CU_MEM_HANDLE_TYPE_NONE);
  EXPECT_EQ(got.win32HandleMetaData, nullptr);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAllocationPropertiesFromHandle(nullptr, h), CUDA_ERROR_INVALID_VALUE);  // props(null out)
  EXPECT_EQ(cuMemGetAllocationPropertiesFromHandle(&got, 0), CUDA_ERROR_INVALID_VALUE);     // props(handle 0)
}

TEST_F(Vmm, ReserveAndFreeErrors) {
  CUdeviceptr va = 0;
  EXPECT_EQ(cuMemAddressReserve(nullptr, kTwoMiB, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);   // reserve(null ptr)
  EXPECT_EQ(cuMemAddressReserve(&va, 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);             // reserve(size 0)
  EXPECT_EQ(cuMemAddressReserve(&va, 1 << 20, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);       // reserve(size 1MiB)
  EXPECT_EQ(cuMemAddressReserve(&va, 4097, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);          // reserve(size 4097)
  EXPECT_EQ(cuMemAddressReserve(&va, kTwoMiB, 3 << 20, 0, 0), CUDA_ERROR_INVALID_VALUE); // reserve(align 3MiB)
  EXPECT_EQ(cuMemAddressReserve(&va, kTwoMiB, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);       // reserve(flags 1)
  EXPECT_EQ(cuMemAddressReserve(&va, kTwoMiB, 0, 0, 2), CUDA_ERROR_INVALID_VALUE);       // reserve(flags 2)
  ASSERT_EQ(cuMemAddressReserve(&va, kTwoMiB, 4096, 0, 0), CUDA_SUCCESS);                // reserve(align 4096)
  EXPECT_EQ(va % kTwoMiB, 0u);                                                           // va%2M=0
  EXPECT_EQ(cuMemAddressFree(va, kTwoMiB), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAddressReserve(&va, 4 * kTwoMiB, 0, 0, 0), CUDA_SUCCESS);  // reserve 8MiB
  EXPECT_EQ(cuMemAddressFree(0, kTwoMiB), CUDA_ERROR_INVALID_VALUE);                  // free(0, size)
  EXPECT_EQ(cuMemAddressFree(va, kTwoMiB), CUDA_ERROR_INVALID_VALUE);                 // free(va, wrong size 2MiB)
  EXPECT_EQ(cuMemAddressFree(va + kTwoMiB, kTwoMiB), CUDA_ERROR_INVALID_VALUE);       // free(va+2MiB, 2MiB)
  EXPECT_EQ(cuMemAddressFree(va, 4 * kTwoMiB), CUDA_SUCCESS);
  CUdeviceptr again = 0;
  ASSERT_EQ(cuMemAddressReserve(&again, kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(again, va);  // "second reservation": va2-va=0
  EXPECT_EQ(cuMemAddressFree(again, kTwoMiB), CUDA_SUCCESS);
}

TEST_F(Vmm, MapErrors) {
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, 4 * kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h4 = 0;
  ASSERT_EQ(cuMemCreate(&h4, 2 * kTwoMiB, &p, 0), CUDA_SUCCESS);  // create 4MiB
  EXPECT_EQ(cuMemMap(va, 1 << 20, 0, h4, 0), CUDA_ERROR_NOT_SUPPORTED);            // map(size 1MiB)
  EXPECT_EQ(cuMemMap(va, kTwoMiB, 1 << 20, h4, 0), CUDA_ERROR_NOT_SUPPORTED);      // map(offset 1MiB)
  EXPECT_EQ(cuMemMap(va + 4096, kTwoMiB, 0, h4, 0), CUDA_ERROR_NOT_SUPPORTED);     // map(va+4096)
  EXPECT_EQ(cuMemMap(va, 3 * kTwoMiB, 0, h4, 0), CUDA_ERROR_NOT_SUPPORTED);        // map(size 6MiB > handle 4MiB)
  EXPECT_EQ(cuMemMap(va, kTwoMiB, 2 * kTwoMiB, h4, 0), CUDA_ERROR_NOT_SUPPORTED);  // map(offset 4MiB = handle size)
  EXPECT_EQ(cuMemMap(va, kTwoMiB, 0, h4, 1), CUDA_ERROR_INVALID_VALUE);            // map(flags 1)
  EXPECT_EQ(cuMemMap(va, kTwoMiB, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);             // map(handle 0)
  EXPECT_EQ(cuMemMap(va - 64 * kTwoMiB, kTwoMiB, 0, h4, 0), CUDA_ERROR_NOT_SUPPORTED);  // map(unreserved va)
  ASSERT_EQ(cuMemMap(va, 2 * kTwoMiB, 0, h4, 0), CUDA_SUCCESS);                    // map(4MiB at va)
  EXPECT_EQ(cuMemMap(va, 2 * kTwoMiB, 0, h4, 0), CUDA_ERROR_INVALID_VALUE);        // map again same range
  EXPECT_EQ(cuMemMap(va + kTwoMiB, kTwoMiB, 0, h4, 0), CUDA_ERROR_NOT_SUPPORTED);  // map overlapping (va+2MiB)

  CUmemAccessDesc d = access();
  EXPECT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, &d, 0), CUDA_ERROR_INVALID_VALUE);        // setaccess(count 0)
  EXPECT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, nullptr, 1), CUDA_ERROR_INVALID_VALUE);   // setaccess(null desc)
  EXPECT_EQ(cuMemSetAccess(va, 1 << 20, &d, 1), CUDA_ERROR_INVALID_VALUE);            // setaccess(size 1MiB)
  EXPECT_EQ(cuMemSetAccess(va, 4 * kTwoMiB, &d, 1), CUDA_ERROR_INVALID_VALUE);        // setaccess(unmapped part)
  EXPECT_EQ(cuMemSetAccess(va + 3 * kTwoMiB, kTwoMiB, &d, 1), CUDA_ERROR_INVALID_VALUE);  // setaccess(unmapped range)
  EXPECT_EQ(cuMemSetAccess(va + kTwoMiB, kTwoMiB, &d, 1), CUDA_ERROR_INVALID_VALUE);  // setaccess(part of mapping)
  for (unsigned f : {2u, 7u}) {
    CUmemAccessDesc b = access(static_cast<CUmemAccess_flags>(f));
    EXPECT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, &b, 1), CUDA_ERROR_INVALID_VALUE) << f;  // setaccess(flags 2 / 7)
  }
  CUmemAccessDesc b = access();
  b.location.id = 77;
  EXPECT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, &b, 1), CUDA_ERROR_INVALID_VALUE);  // setaccess(dev 77)
  b = access();
  b.location.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, &b, 1), CUDA_ERROR_INVALID_VALUE);  // setaccess(loc host)

  CUmemLocation l = here();
  unsigned long long flags = 99;
  EXPECT_EQ(cuMemGetAccess(&flags, &l, va + kTwoMiB), CUDA_SUCCESS);  // getaccess(va+2MiB)
  EXPECT_EQ(flags, 0u);
  flags = 99;
  EXPECT_EQ(cuMemGetAccess(&flags, &l, va + 3 * kTwoMiB), CUDA_ERROR_INVALID_VALUE);  // "cuMemGetAccess before map"
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(cuMemGetAccess(nullptr, &l, va), CUDA_ERROR_INVALID_VALUE);  // getaccess(null flags)
  EXPECT_EQ(cuMemGetAccess(&flags, nullptr, va), CUDA_ERROR_INVALID_VALUE);  // getaccess(null loc)
  CUmemLocation other = l;
  other.id = 77;
  flags = 99;
  EXPECT_EQ(cuMemGetAccess(&flags, &other, va), CUDA_ERROR_INVALID_DEVICE);  // getaccess(dev 77)
  EXPECT_EQ(flags, 99u);
  other = l;
  other.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(cuMemGetAccess(&flags, &other, va), CUDA_SUCCESS);  // getaccess(loc host)
  EXPECT_EQ(flags, 0u);

  CUmemGenericAllocationHandle r = 0;
  EXPECT_EQ(cuMemRetainAllocationHandle(nullptr, reinterpret_cast<void*>(va)), CUDA_ERROR_INVALID_VALUE);  // retain(null out)
  void* plain = nullptr;
  ASSERT_EQ(cudaMalloc(&plain, kTwoMiB), cudaSuccess);
  EXPECT_EQ(cuMemRetainAllocationHandle(&r, plain), CUDA_ERROR_INVALID_VALUE);  // retain(cudaMalloc ptr)
  EXPECT_EQ(cuMemRetainAllocationHandle(&r, reinterpret_cast<void*>(va + 3 * (1 << 20))), CUDA_SUCCESS);  // retain(va+3MiB)
  EXPECT_EQ(r, h4);                                                                                   // same=1
  EXPECT_EQ(cuMemRelease(r), CUDA_SUCCESS);

  // Pointer attributes: before cuMemSetAccess only the attributes answer, after it the range too
  // (vmm_trace.txt mapped-noaccess, mapped-rw).
  CUdeviceptr base = 0;
  size_t size = 0;
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, va + 100), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, &d, 1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, va + 100), CUDA_SUCCESS);
  EXPECT_EQ(base, va);
  EXPECT_EQ(size, 2 * kTwoMiB);
  EXPECT_EQ(cuMemUnmap(va, 2 * kTwoMiB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 4 * kTwoMiB), CUDA_SUCCESS);
}

// Copies and memsets need access: before cuMemSetAccess they are refused (fault memcpy_noaccess).
TEST_F(Vmm, CopiesBeforeSetAccessAreRefused) {
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va, kTwoMiB, 0, h, 0), CUDA_SUCCESS);
  int v = 0;
  EXPECT_EQ(cudaMemcpy(&v, reinterpret_cast<void*>(va), 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cuMemcpyDtoH_v2(&v, va, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD32_v2(va, 1, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // not sticky
}

TEST_F(Vmm, ExportAndImportErrors) {
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
  int fd = -1;
  EXPECT_EQ(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_ERROR_INVALID_VALUE);  // export(not requested fd)
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_NONE, 0), CUDA_ERROR_INVALID_VALUE);  // export(type NONE)
  CUmemAllocationProp xp = prop(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  CUmemGenericAllocationHandle hx = 0;
  ASSERT_EQ(cuMemCreate(&hx, kTwoMiB, &xp, 0), CUDA_SUCCESS);  // create exportable
  EXPECT_EQ(cuMemExportToShareableHandle(nullptr, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_ERROR_INVALID_VALUE);  // export(null out)
  EXPECT_EQ(cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1),
            CUDA_ERROR_INVALID_VALUE);  // export(flags 1)
  EXPECT_EQ(cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_INVALID_VALUE);  // export(type fabric)
  int fd2 = -1;
  ASSERT_EQ(cuMemExportToShareableHandle(&fd, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);   // export ok
  ASSERT_EQ(cuMemExportToShareableHandle(&fd2, hx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);  // export again
  EXPECT_EQ(fd2, fd + 1);  // fd=36 fd2=37
  CUmemGenericAllocationHandle hi = 0;
  auto as_handle = [](int n) { return reinterpret_cast<void*>(static_cast<intptr_t>(n)); };
  EXPECT_EQ(cuMemImportFromShareableHandle(&hi, as_handle(-1), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_ERROR_UNKNOWN);  // import(fd -1) = 999
  EXPECT_EQ(cuMemImportFromShareableHandle(&hi, as_handle(0), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_ERROR_INVALID_VALUE);  // import(fd 0 stdin)
  EXPECT_EQ(cuMemImportFromShareableHandle(nullptr, as_handle(fd), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_ERROR_INVALID_VALUE);  // import(null out)
  ASSERT_EQ(cuMemImportFromShareableHandle(&hi, as_handle(fd2), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
  // The importer learns the memory, not how it was made: "imported props" handleTypes=0 comp=0.
  CUmemAllocationProp got;
  ASSERT_EQ(cuMemGetAllocationPropertiesFromHandle(&got, hi), CUDA_SUCCESS);
  EXPECT_EQ(got.requestedHandleTypes, CU_MEM_HANDLE_TYPE_NONE);
  EXPECT_EQ(got.location.id, dev_);
  EXPECT_EQ(cuMemRelease(hi), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(hx), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::vmm_test
