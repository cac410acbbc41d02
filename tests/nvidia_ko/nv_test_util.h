// Test helpers for nvidia.ko / nvidia-uvm.ko: the tests act as a user-mode driver would, opening
// the device nodes and issuing raw ioctls with the real ABI structs. Each test runs in a fresh
// simulated process (NvTest), so handles, fds and mappings never leak from one test to the next.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "minicuda/device.h"
#include "minicuda/kernel.h"
#include "nv_uapi.h"

namespace nvtest {

namespace k = minicuda::kernel;

inline constexpr uint64_t kMiB = 1ull << 20;
inline constexpr uint64_t k2M = 2 * kMiB;

// The device the module probes (MINICUDA_DEVICE unset: the H200 preset).
inline const minicuda::gpu::DeviceProperties& h200() {
  return minicuda::gpu::preset_properties(minicuda::gpu::Preset::H200);
}
inline NvProcessorUuid gpu_uuid() {
  NvProcessorUuid u{};
  std::memcpy(u.uuid, h200().uuid, 16);
  return u;
}

inline int open_ctl() { return k::sys_open("/dev/nvidiactl", k::kORdWr | k::kOCloexec); }
inline int open_gpu() { return k::sys_open("/dev/nvidia0", k::kORdWr | k::kOCloexec); }
inline int open_uvm() { return k::sys_open("/dev/nvidia-uvm", k::kORdWr | k::kOCloexec); }

// _IOWR('F', nr, sizeof *arg) on fd.
template <typename T>
long nv_ioctl(int fd, uint32_t nr, T* arg) {
  return k::sys_ioctl(fd, NV_IOWR(nr, sizeof(T)), arg);
}

// NV_ESC_RM_ALLOC with NVOS64 (libcuda's variant). Returns the RM status; *h in/out.
inline NV_STATUS rm_alloc(int fd, NvHandle client, NvHandle parent, NvHandle* h, NvU32 cls, void* params = nullptr,
                          NvU32 size = 0) {
  NVOS64_PARAMETERS p{};
  p.hRoot = client;
  p.hObjectParent = parent;
  p.hObjectNew = *h;
  p.hClass = cls;
  p.pAllocParms = nv_ptr_to_p64(params);
  p.paramsSize = size;
  p.status = 0xdeadbeef;
  long r = nv_ioctl(fd, NV_ESC_RM_ALLOC, &p);
  EXPECT_EQ(r, 0) << "RM_ALLOC ioctl";
  if (p.status == NV_OK) *h = p.hObjectNew;
  return p.status;
}

inline NV_STATUS rm_free(int fd, NvHandle client, NvHandle parent, NvHandle h) {
  NVOS00_PARAMETERS p{client, parent, h, 0xdeadbeef};
  EXPECT_EQ(nv_ioctl(fd, NV_ESC_RM_FREE, &p), 0) << "RM_FREE ioctl";
  return p.status;
}

inline NV_STATUS rm_control(int fd, NvHandle client, NvHandle object, NvU32 cmd, void* params, NvU32 size,
                            NvU32 flags = 0) {
  NVOS54_PARAMETERS p{};
  p.hClient = client;
  p.hObject = object;
  p.cmd = cmd;
  p.flags = flags;
  p.params = nv_ptr_to_p64(params);
  p.paramsSize = size;
  p.status = 0xdeadbeef;
  EXPECT_EQ(nv_ioctl(fd, NV_ESC_RM_CONTROL, &p), 0) << "RM_CONTROL ioctl";
  return p.status;
}

// A root client with device 0 and subdevice 0 on a fresh /dev/nvidiactl.
struct Rm {
  int ctl = -1;
  NvHandle client = 0, device = 0x5c000001, subdevice = 0x5c000002;
};

inline Rm make_rm() {
  Rm rm;
  rm.ctl = open_ctl();
  EXPECT_GE(rm.ctl, 3);
  EXPECT_EQ(rm_alloc(rm.ctl, 0, 0, &rm.client, NV01_ROOT), NV_OK);
  NV0080_ALLOC_PARAMETERS dev{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.client, &rm.device, NV01_DEVICE_0, &dev, sizeof dev), NV_OK);
  NV2080_ALLOC_PARAMETERS sub{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &rm.subdevice, NV20_SUBDEVICE_0, &sub, sizeof sub), NV_OK);
  return rm;
}

// NV01_MEMORY_LOCAL_USER under the device. Returns the status; *params holds RM's answer.
inline NV_STATUS alloc_vidmem(const Rm& rm, NvHandle h, uint64_t size, NV_MEMORY_ALLOCATION_PARAMS* out = nullptr,
                              uint64_t alignment = 0) {
  NV_MEMORY_ALLOCATION_PARAMS p{};
  p.size = size;
  p.alignment = alignment;
  NV_STATUS s = rm_alloc(rm.ctl, rm.client, rm.device, &h, NV01_MEMORY_LOCAL_USER, &p, sizeof p);
  if (out) *out = p;
  return s;
}

// NV2080_CTRL_CMD_FB_GET_INFO_V2 for one index.
inline NvU32 fb_info(const Rm& rm, NvU32 index) {
  NV2080_CTRL_FB_GET_INFO_V2_PARAMS p{};
  p.fbInfoListSize = 1;
  p.fbInfoList[0].index = index;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, &p, sizeof p), NV_OK);
  return p.fbInfoList[0].data;
}
inline uint64_t heap_free_bytes(const Rm& rm) { return uint64_t{fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE)} << 10; }

// UVM ioctl: the request is a raw number. Returns the rmStatus (the ioctl must return 0).
template <typename T>
NV_STATUS uvm_call(int fd, uint64_t request, T* p) {
  p->rmStatus = 0xdeadbeef;
  EXPECT_EQ(k::sys_ioctl(fd, request, p), 0) << "UVM ioctl " << request;
  return p->rmStatus;
}

// A UVM fd initialized and bound to the GPU and a FERMI_VASPACE_A of rm's client.
struct Uvm {
  int fd = -1;
  NvHandle vaspace = 0x5c000010;
  uint64_t va_base = 0, va_size = 0;
};

inline Uvm make_uvm(const Rm& rm, NvHandle vaspace = 0x5c000010) {
  Uvm u;
  u.vaspace = vaspace;
  u.fd = open_uvm();
  EXPECT_GE(u.fd, 3);
  UVM_INITIALIZE_PARAMS init{};
  EXPECT_EQ(uvm_call(u.fd, UVM_INITIALIZE, &init), NV_OK);
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &u.vaspace, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
  u.va_base = va.vaBase;
  u.va_size = va.vaSize;
  UVM_REGISTER_GPU_PARAMS reg{};
  reg.gpu_uuid = gpu_uuid();
  reg.rmCtrlFd = rm.ctl;
  reg.hClient = rm.client;
  EXPECT_EQ(uvm_call(u.fd, UVM_REGISTER_GPU, &reg), NV_OK);
  UVM_REGISTER_GPU_VASPACE_PARAMS vas{};
  vas.gpuUuid = gpu_uuid();
  vas.rmCtrlFd = rm.ctl;
  vas.hClient = rm.client;
  vas.hVaSpace = u.vaspace;
  EXPECT_EQ(uvm_call(u.fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_OK);
  return u;
}

inline NV_STATUS uvm_create_range(const Uvm& u, uint64_t base, uint64_t length) {
  UVM_CREATE_EXTERNAL_RANGE_PARAMS p{};
  p.base = base;
  p.length = length;
  return uvm_call(u.fd, UVM_CREATE_EXTERNAL_RANGE, &p);
}

inline NV_STATUS uvm_map(const Uvm& u, int ctl, NvHandle client, NvHandle memory, uint64_t base, uint64_t length,
                         uint64_t offset = 0) {
  auto p = std::make_unique<UVM_MAP_EXTERNAL_ALLOCATION_PARAMS>();
  std::memset(p.get(), 0, sizeof *p);
  p->base = base;
  p->length = length;
  p->offset = offset;
  p->perGpuAttributes[0].gpuUuid = gpu_uuid();
  p->perGpuAttributes[0].gpuMappingType = UvmGpuMappingTypeReadWriteAtomic;
  p->gpuAttributesCount = 1;
  p->rmCtrlFd = ctl;
  p->hClient = client;
  p->hMemory = memory;
  return uvm_call(u.fd, UVM_MAP_EXTERNAL_ALLOCATION, p.get());
}

inline NV_STATUS uvm_free(const Uvm& u, uint64_t base) {
  UVM_FREE_PARAMS p{};
  p.base = base;
  return uvm_call(u.fd, UVM_FREE, &p);
}

// Can the simulated process read these bytes? (Never touch possibly-unmapped memory directly.)
inline bool readable(uint64_t addr, size_t n = 1) {
  std::vector<unsigned char> buf(n);
  return k::copy_from_user(buf.data(), reinterpret_cast<void*>(addr), n) == 0;
}

// Anonymous read-write pages in the simulated process's window.
inline void* user_pages(size_t bytes) {
  void* p = k::sys_mmap(nullptr, bytes, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_FALSE(k::mmap_failed(p));
  return p;
}

// Every test runs as a fresh process; its descriptors are closed (while it is still the current
// process) when the test ends.
class NvTest : public ::testing::Test {
 protected:
  void TearDown() override { process_->close_all(); }
  std::unique_ptr<k::Process> process_ = k::spawn_process();
  k::ProcessScope scope_{*process_};
};

}  // namespace nvtest
