// Memory in the runtime (runtime/src/memory.cpp, cudaDeviceReset in init.cpp): every cudaMalloc,
// cudaFree, cudaHostAlloc, cudaMallocHost, cudaFreeHost, cudaMemGetInfo and
// cudaPointerGetAttributes key of probe.txt and probe_extra.txt, with its last-error effect.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using MemoryTest = FreshProcess;

void* const kUntouched = reinterpret_cast<void*>(0x1);

TEST_F(MemoryTest, MallocLayout) {
  // probe.txt malloc.size_*: {size, ptr % 2 MiB} (the first pointer starts a fresh chunk).
  struct Row {
    size_t size;
    uintptr_t mod2m;
  };
  const Row rows[] = {{1, 0},       {7, 512},     {255, 1024},  {256, 1536},     {257, 2048},     {1000, 2560},
                      {4096, 3584}, {65536, 7680}, {1048576, 73216}, {2097152, 0}, {3145728, 0}};
  std::vector<void*> ptrs;
  for (const Row& row : rows) {
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, row.size), cudaSuccess) << row.size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u) << row.size;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2u << 20), row.mod2m) << row.size;
    ptrs.push_back(p);
  }
  // malloc.size_3145728 delta_from_prev = 2 MiB: the big ones are back to back.
  EXPECT_EQ(static_cast<char*>(ptrs[10]) - static_cast<char*>(ptrs[9]), 2 << 20);
  for (void* p : ptrs) EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(MemoryTest, MallocArguments) {
  void* p = kUntouched;
  EXPECT_EQ(cudaMalloc(&p, 0), cudaSuccess);  // malloc.zero
  EXPECT_EQ(p, nullptr);                      // malloc.zero.ptr_is_null
  EXPECT_EQ(cudaMalloc(nullptr, 256), cudaErrorInvalidValue);  // malloc.nullptr_arg
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  p = kUntouched;
  EXPECT_EQ(cudaMalloc(&p, 1ull << 50), cudaErrorMemoryAllocation);  // malloc.huge_1<<50
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);  // malloc.huge.getlast
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);                // malloc.huge.getlast_again
}

TEST_F(MemoryTest, FreeErrors) {
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);  // free.nullptr
  EXPECT_EQ(cudaFree(reinterpret_cast<void*>(0x1234)), cudaErrorInvalidValue);  // free.bad_ptr
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);                         // free.bad_ptr.getlast
  int on_stack = 0;
  EXPECT_EQ(cudaFree(&on_stack), cudaErrorInvalidValue);  // free.host_stack_ptr
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1024), cudaSuccess);
  EXPECT_EQ(cudaFree(static_cast<char*>(d) + 16), cudaErrorInvalidValue);  // free.interior_ptr
  (void)cudaGetLastError();
  EXPECT_EQ(cudaFree(d), cudaSuccess);                    // free.first
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);          // free.double
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);  // free.double.peek
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);   // free.double.getlast
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);             // free.double.getlast2
}

TEST_F(MemoryTest, MemGetInfo) {
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  size_t f = 0, t = 0;
  EXPECT_EQ(cudaMemGetInfo(&f, &t), cudaSuccess);  // memGetInfo
  EXPECT_EQ(t, prop.totalGlobalMem);               // memGetInfo.total_eq_prop
  EXPECT_GT(f, 0u);
  t = 0;
  EXPECT_EQ(cudaMemGetInfo(nullptr, &t), cudaSuccess);  // rt.memGetInfo.nullFree
  EXPECT_EQ(t, 150109880320u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(MemoryTest, HostAllocArguments) {
  EXPECT_EQ(cudaHostAlloc(nullptr, 64, 0), cudaErrorInvalidValue);  // rt.hostAlloc.nullArg
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocHost(nullptr, 64), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  void* h = kUntouched;
  EXPECT_EQ(cudaMallocHost(&h, 0), cudaSuccess);  // rt.mallocHost.zero
  EXPECT_EQ(h, nullptr);
  h = kUntouched;
  EXPECT_EQ(cudaHostAlloc(&h, 0, 0), cudaSuccess);  // rt.hostAlloc.zero
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  h = kUntouched;
  EXPECT_EQ(cudaHostAlloc(&h, 4096, 0x80), cudaErrorInvalidValue);  // rt.hostAlloc.flags0x80
  EXPECT_EQ(h, nullptr);                                            // .h = null
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);             // .getlast
  EXPECT_EQ(cudaFreeHost(nullptr), cudaSuccess);                    // rt.freeHost.null
}

TEST_F(MemoryTest, HostAllocWorks) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cudaHostAlloc(&a, 4096, cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined),
            cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&b, 100), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 4096, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 4096, 0u);
  std::memset(a, 1, 4096);
  std::memset(b, 2, 100);
  EXPECT_EQ(cudaFreeHost(a), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(b), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(b), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST_F(MemoryTest, WrongKindOfFree) {
  void* d = nullptr;
  void* ph = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&ph, 4096), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(d), cudaErrorInvalidValue);     // rt.freeHost.devicePtr
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // .getlast
  EXPECT_EQ(cudaFree(ph), cudaErrorInvalidValue);        // rt.free.pinnedHostPtr
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // .getlast
  std::vector<char> pageable(4096);
  EXPECT_EQ(cudaFreeHost(pageable.data()), cudaErrorInvalidValue);  // freehost.pageable
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);             // freehost.pageable.getlast
  EXPECT_EQ(cudaFreeHost(ph), cudaSuccess);  // freehost.pinned, rt.freeHost.pinned
  EXPECT_EQ(cudaFree(d), cudaSuccess);       // rt.free.device
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(MemoryTest, PointerAttributes) {
  void* d = nullptr;
  void* ph = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&ph, 4096), cudaSuccess);
  void* pageable = std::malloc(4096);
  struct Case {
    const char* key;
    const void* ptr;
    cudaMemoryType type;
    int device;
    const void* device_pointer;
    const void* host_pointer;
  };
  // rt.ptrAttr.* (and probe.txt ptrattr.*): all succeed and leave no error behind.
  const Case cases[] = {
      {"pageable", pageable, cudaMemoryTypeUnregistered, -2, nullptr, pageable},
      {"null", nullptr, cudaMemoryTypeUnregistered, -2, nullptr, nullptr},
      {"device", d, cudaMemoryTypeDevice, 0, d, nullptr},
      {"device_interior", static_cast<char*>(d) + 100, cudaMemoryTypeDevice, 0, static_cast<char*>(d) + 100, nullptr},
      {"pinned", ph, cudaMemoryTypeHost, 0, ph, ph},
      {"0x1234", reinterpret_cast<void*>(0x1234), cudaMemoryTypeUnregistered, -2, nullptr,
       reinterpret_cast<void*>(0x1234)},
  };
  for (const Case& c : cases) {
    cudaPointerAttributes a;
    std::memset(&a, 0x5a, sizeof a);
    EXPECT_EQ(cudaPointerGetAttributes(&a, c.ptr), cudaSuccess) << c.key;
    EXPECT_EQ(a.type, c.type) << c.key;
    EXPECT_EQ(a.device, c.device) << c.key;
    EXPECT_EQ(a.devicePointer, c.device_pointer) << c.key;
    EXPECT_EQ(a.hostPointer, c.host_pointer) << c.key;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << c.key;  // rt.ptrAttr.<key>.getlast
  }
  EXPECT_EQ(cudaPointerGetAttributes(nullptr, d), cudaErrorInvalidValue);  // rt.ptrAttr.nullAttrs
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  std::free(pageable);
  EXPECT_EQ(cudaFreeHost(ph), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(MemoryTest, DeviceResetFreesEverything) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, 1024), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, 1024), cudaSuccess);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);             // rt.deviceReset
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);            // rt.deviceReset.getlast
  EXPECT_EQ(primary_state(), "flags=0 active=0");        // rt.deviceReset.primary_state
  void* after = nullptr;
  EXPECT_EQ(cudaMalloc(&after, 1024), cudaSuccess);      // rt.deviceReset.malloc_after
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(after, a);                                   // same_addr_as_first_prereset = 1
  EXPECT_NE(after, b);                                   // same_addr_as_second_prereset = 0
  cudaPointerAttributes attr;
  std::memset(&attr, 0, sizeof attr);
  EXPECT_EQ(cudaPointerGetAttributes(&attr, b), cudaSuccess);  // rt.deviceReset.ptrAttr_stale
  EXPECT_EQ(attr.type, cudaMemoryTypeUnregistered);
  EXPECT_EQ(cudaFree(b), cudaErrorInvalidValue);         // rt.deviceReset.free_stale
  (void)cudaGetLastError();
  EXPECT_EQ(cudaFree(after), cudaSuccess);               // rt.deviceReset.free_new
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(MemoryTest, DeviceResetGivesTheMemoryBack) {
  size_t f0 = 0;
  ASSERT_EQ(cudaMemGetInfo(&f0, nullptr), cudaSuccess);
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 64 << 20), cudaSuccess);
  void* h = nullptr;
  ASSERT_EQ(cudaMallocHost(&h, 1 << 20), cudaSuccess);
  size_t f1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&f1, nullptr), cudaSuccess);
  EXPECT_EQ(f0 - f1, size_t{64} << 20);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  size_t f2 = 0;
  ASSERT_EQ(cudaMemGetInfo(&f2, nullptr), cudaSuccess);
  EXPECT_EQ(f2, f0);
  EXPECT_EQ(cudaFreeHost(h), cudaErrorInvalidValue);  // the pinned memory went with the context
}

}  // namespace
}  // namespace minicuda::testing
