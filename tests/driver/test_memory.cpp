// Pinned host memory, pointer attributes and cuMemGetInfo (driver/user/src/memory.cpp), as measured:
// probe_extra.txt drv.memHostAlloc.*, drv.memFreeHost.*, drv.ptrAttr.*, drv.ptrAttrs.*,
// drv.memGetInfo.*.
#include <cstdlib>
#include <cstring>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using MemoryTest = Ready;

const void* kUntouched = reinterpret_cast<void*>(0x1);

TEST_F(MemoryTest, HostAllocArguments) {
  void* h = const_cast<void*>(kUntouched);
  EXPECT_EQ(cuMemHostAlloc(&h, 0, 0), CUDA_SUCCESS);  // drv.memHostAlloc.zero
  EXPECT_EQ(h, nullptr);
  h = const_cast<void*>(kUntouched);
  EXPECT_EQ(cuMemHostAlloc(&h, 4096, 0x80), CUDA_ERROR_INVALID_VALUE);  // drv.memHostAlloc.flags0x80
  EXPECT_EQ(h, nullptr);                                                // .h = null
  EXPECT_EQ(cuMemHostAlloc(nullptr, 4096, 0), CUDA_ERROR_INVALID_VALUE);  // drv.memHostAlloc.nullArg
  h = const_cast<void*>(kUntouched);
  EXPECT_EQ(cuMemAllocHost_v2(&h, 0), CUDA_SUCCESS);
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(cuMemAllocHost_v2(nullptr, 64), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MemoryTest, HostAllocIsPageAlignedAndWritable) {
  void* h = nullptr;
  EXPECT_EQ(cuMemHostAlloc(&h, 4096, 0), CUDA_SUCCESS);  // drv.memHostAlloc.4096
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 4096, 0u);   // .mod4096
  void* h3 = nullptr;
  EXPECT_EQ(cuMemAllocHost_v2(&h3, 100), CUDA_SUCCESS);  // drv.memAllocHost.100
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h3) % 4096, 0u);
  void* h4 = nullptr;
  EXPECT_EQ(cuMemHostAlloc(&h4, 8192, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                                         CU_MEMHOSTALLOC_WRITECOMBINED), CUDA_SUCCESS);
  std::memset(h, 0x11, 4096);
  std::memset(h3, 0x22, 100);
  std::memset(h4, 0x33, 8192);
  EXPECT_EQ(static_cast<unsigned char*>(h)[4095], 0x11);
  EXPECT_EQ(static_cast<unsigned char*>(h3)[99], 0x22);
  EXPECT_EQ(static_cast<unsigned char*>(h4)[8191], 0x33);
  EXPECT_EQ(cuMemFreeHost(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(h3), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(h4), CUDA_SUCCESS);
}

TEST_F(MemoryTest, FreeHost) {
  EXPECT_EQ(cuMemFreeHost(nullptr), CUDA_SUCCESS);  // drv.memFreeHost.null
  int on_stack = 0;
  EXPECT_EQ(cuMemFreeHost(&on_stack), CUDA_ERROR_INVALID_VALUE);  // drv.memFreeHost.stack
  void* pageable = std::malloc(4096);
  EXPECT_EQ(cuMemFreeHost(pageable), CUDA_ERROR_INVALID_VALUE);  // drv.memFreeHost.pageable
  std::free(pageable);
  CUdeviceptr dp = 0;
  ASSERT_EQ(cuMemAlloc_v2(&dp, 1024), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(reinterpret_cast<void*>(dp)), CUDA_ERROR_INVALID_VALUE);  // .devicePtr
  EXPECT_EQ(cuMemFree_v2(dp), CUDA_SUCCESS);                                        // still allocated
  void* h = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&h, 4096, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(reinterpret_cast<CUdeviceptr>(h)), CUDA_ERROR_INVALID_VALUE);  // not device memory
  EXPECT_EQ(cuMemFreeHost(static_cast<char*>(h) + 64), CUDA_ERROR_INVALID_VALUE);      // interior
  EXPECT_EQ(cuMemFreeHost(h), CUDA_SUCCESS);                                           // drv.memFreeHost.first
  EXPECT_EQ(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);                               // drv.memFreeHost.double
}

// The pointers the probe asks about.
class PointerAttributes : public MemoryTest {
 protected:
  void SetUp() override {
    MemoryTest::SetUp();
    ASSERT_EQ(cuMemHostAlloc(&pinned_, 4096, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc_v2(&device_, 1000), CUDA_SUCCESS);
    pageable_ = std::malloc(4096);
  }
  void TearDown() override {
    std::free(pageable_);
    EXPECT_EQ(cuMemFree_v2(device_), CUDA_SUCCESS);
    EXPECT_EQ(cuMemFreeHost(pinned_), CUDA_SUCCESS);
  }
  CUdeviceptr pinned() const { return reinterpret_cast<CUdeviceptr>(pinned_); }
  void* pinned_ = nullptr;
  void* pageable_ = nullptr;
  CUdeviceptr device_ = 0;
};

TEST_F(PointerAttributes, MemoryTypeSingleForm) {
  struct Case {
    const char* key;
    CUdeviceptr ptr;
    CUresult result;
    unsigned value;
  };
  const Case cases[] = {
      {"device", device_, CUDA_SUCCESS, CU_MEMORYTYPE_DEVICE},
      {"device_interior", device_ + 100, CUDA_SUCCESS, CU_MEMORYTYPE_DEVICE},
      {"pinned", pinned(), CUDA_SUCCESS, CU_MEMORYTYPE_HOST},
      {"pageable", reinterpret_cast<CUdeviceptr>(pageable_), CUDA_ERROR_INVALID_VALUE, 777},
      {"null", 0, CUDA_ERROR_INVALID_VALUE, 777},
      {"0x1234", 0x1234, CUDA_ERROR_INVALID_VALUE, 777},
  };
  for (const Case& c : cases) {
    unsigned type = 777;
    EXPECT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, c.ptr), c.result) << c.key;
    EXPECT_EQ(type, c.value) << c.key;  // drv.ptrAttr.memType.<key> value=
  }
}

TEST_F(PointerAttributes, RangesAndMappings) {
  CUdeviceptr start = 0;
  size_t size = 0;
  EXPECT_EQ(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, device_), CUDA_SUCCESS);
  EXPECT_EQ(start, device_);
  EXPECT_EQ(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, device_), CUDA_SUCCESS);
  EXPECT_EQ(size, 1000u);  // drv.ptrAttr.rangeSize.device1000.value
  start = 0;
  size = 0;
  EXPECT_EQ(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, device_ + 100), CUDA_SUCCESS);
  EXPECT_EQ(start, device_);  // drv.ptrAttr.rangeStart.interior.eqPtr
  EXPECT_EQ(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, device_ + 100), CUDA_SUCCESS);
  EXPECT_EQ(size, 1000u);
  size = 0;
  EXPECT_EQ(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, device_), CUDA_SUCCESS);
  EXPECT_EQ(size, 2097152u);  // drv.ptrAttr.mappingSize.device1000.value
  void* base = nullptr;
  EXPECT_EQ(cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, device_), CUDA_SUCCESS);
  EXPECT_EQ(device_ - reinterpret_cast<CUdeviceptr>(base), 0u);  // .ptrMinusBase (first in its chunk)
  size = 0;
  EXPECT_EQ(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, pinned()), CUDA_SUCCESS);
  EXPECT_EQ(size, 4096u);  // drv.ptrAttr.rangeSize.pinned.value
}

// cuMemGetAddressRange_v2 (not measured on the H200; CUDA's documented contract).
TEST_F(PointerAttributes, AddressRangeOfDeviceAllocations) {
  CUdeviceptr base = 7;
  size_t size = 7;
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, device_ + 999), CUDA_SUCCESS);
  EXPECT_EQ(base, device_);
  EXPECT_EQ(size, 1000u);
  base = 7;
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, nullptr, device_), CUDA_SUCCESS) << "either result may be NULL";
  EXPECT_EQ(base, device_);
  EXPECT_EQ(cuMemGetAddressRange_v2(nullptr, &size, device_), CUDA_SUCCESS);
  base = 7;
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, device_ + 1000), CUDA_ERROR_NOT_FOUND) << "one past the end";
  EXPECT_EQ(base, 7u) << "left alone";
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, pinned()), CUDA_ERROR_NOT_FOUND) << "not cuMemAlloc memory";
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, 0), CUDA_ERROR_NOT_FOUND);
}

TEST_F(PointerAttributes, HostAndDevicePointers) {
  void* hp = const_cast<void*>(kUntouched);
  EXPECT_EQ(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, device_), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(hp, nullptr);  // drv.ptrAttr.hostPointer.device.value = 0x0
  CUdeviceptr dv = 0x1;
  EXPECT_EQ(cuPointerGetAttribute(&dv, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, pinned()), CUDA_SUCCESS);
  EXPECT_EQ(dv, pinned());  // drv.ptrAttr.devicePointer.pinned.eqHost
  hp = const_cast<void*>(kUntouched);
  EXPECT_EQ(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, pinned()), CUDA_SUCCESS);
  EXPECT_EQ(hp, pinned_);  // drv.ptrAttr.hostPointer.pinned.eqHost
  dv = 0x1;
  EXPECT_EQ(cuPointerGetAttribute(&dv, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, device_), CUDA_SUCCESS);
  EXPECT_EQ(dv, device_);
}

TEST_F(PointerAttributes, ContextOrdinalAndNullData) {
  CUcontext ctx = nullptr;
  EXPECT_EQ(cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, device_), CUDA_SUCCESS);
  EXPECT_EQ(ctx, primary_);  // drv.ptrAttr.context.device.eqPrimary
  int ordinal = -7;
  EXPECT_EQ(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, device_), CUDA_SUCCESS);
  EXPECT_EQ(ordinal, 0);  // drv.ptrAttr.ordinal.device.value
  EXPECT_EQ(cuPointerGetAttribute(nullptr, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, device_), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(PointerAttributes, PluralFormAnswersForUnknownPointers) {
  struct Case {
    const char* key;
    CUdeviceptr ptr;
    unsigned type;
    CUcontext ctx;
    int ordinal;
  };
  const Case cases[] = {
      {"pageable", reinterpret_cast<CUdeviceptr>(pageable_), 0, nullptr, -2},
      {"device", device_, CU_MEMORYTYPE_DEVICE, primary_, 0},
      {"pinned", pinned(), CU_MEMORYTYPE_HOST, primary_, 0},
      {"null", 0, 0, nullptr, -2},
  };
  for (const Case& c : cases) {
    CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned type = 777;
    CUcontext ctx = reinterpret_cast<CUcontext>(0x1);
    int ordinal = -7;
    void* data[3] = {&type, &ctx, &ordinal};
    EXPECT_EQ(cuPointerGetAttributes(3, which, data, c.ptr), CUDA_SUCCESS) << c.key;  // drv.ptrAttrs.<key>
    EXPECT_EQ(type, c.type) << c.key;
    EXPECT_EQ(ctx, c.ctx) << c.key;
    EXPECT_EQ(ordinal, c.ordinal) << c.key;
  }
  // The plural form reports NULL where the single form fails.
  CUpointer_attribute host[1] = {CU_POINTER_ATTRIBUTE_HOST_POINTER};
  void* hp = const_cast<void*>(kUntouched);
  void* data[1] = {&hp};
  EXPECT_EQ(cuPointerGetAttributes(1, host, data, device_), CUDA_SUCCESS);
  EXPECT_EQ(hp, nullptr);
  EXPECT_EQ(cuPointerGetAttributes(1, nullptr, data, device_), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerGetAttributes(1, host, nullptr, device_), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MemoryTest, GetInfo) {
  size_t t = 0;
  EXPECT_EQ(cuMemGetInfo_v2(nullptr, &t), CUDA_SUCCESS);  // drv.memGetInfo.nullFree
  EXPECT_EQ(t, 150109880320u);
  size_t f = 0;
  EXPECT_EQ(cuMemGetInfo_v2(&f, nullptr), CUDA_SUCCESS);  // drv.memGetInfo.nullTotal
  EXPECT_NE(f, 0u);
  f = t = 0;
  EXPECT_EQ(cuMemGetInfo_v2(&f, &t), CUDA_SUCCESS);  // drv.memGetInfo
  EXPECT_EQ(t, 150109880320u);
  // An H200 shows ~527 MiB in use right after context creation (channels, pushbuffers,
  // semaphores: drv.memGetInfo.values); minicuda's contexts own no device memory yet, so free
  // memory is the whole heap minus what the program allocated.
  EXPECT_GT(f, 0u);
  EXPECT_LE(f, t);
}

}  // namespace
}  // namespace minicuda::testing
