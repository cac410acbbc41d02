// rm_classes.cpp and the memory escapes of nv_escapes.cpp: what allocating each class does
// (vidmem, sysmem, VA space, pinned user pages) and how memory reaches the CPU (RM_MAP_MEMORY +
// mmap of /dev/nvidia0 or /dev/nvidiactl).
#include <sys/mman.h>

#include <set>

#include "nv_test_util.h"

using namespace nvtest;

namespace {
class RmClasses : public NvTest {};

NV_STATUS alloc_sysmem(const Rm& rm, NvHandle h, uint64_t size, NV_MEMORY_ALLOCATION_PARAMS* out = nullptr,
                       NvHandle parent = 0) {
  NV_MEMORY_ALLOCATION_PARAMS p{};
  p.size = size;
  NV_STATUS s = rm_alloc(rm.ctl, rm.client, parent ? parent : rm.device, &h, NV01_MEMORY_SYSTEM, &p, sizeof p);
  if (out) *out = p;
  return s;
}

// NV_ESC_RM_ALLOC_MEMORY on gpu_fd (class 0x71 by default).
NV_STATUS pin(int gpu_fd, const Rm& rm, NvHandle h, const void* addr, uint64_t size,
              NvU32 cls = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, NvHandle parent = 0) {
  nv_ioctl_nvos02_parameters_with_fd w{};
  w.params.hRoot = rm.client;
  w.params.hObjectParent = parent ? parent : rm.device;
  w.params.hObjectNew = h;
  w.params.hClass = cls;
  w.params.flags = NVOS02_FLAGS_LIBCUDA_HOST_ALLOC;
  w.params.pMemory = reinterpret_cast<NvP64>(addr);
  w.params.limit = size - 1;
  w.params.status = 0xdeadbeef;
  w.fd = gpu_fd;
  EXPECT_EQ(nv_ioctl(gpu_fd, NV_ESC_RM_ALLOC_MEMORY, &w), 0);
  return w.params.status;
}

int registered_gpu(const Rm& rm) {
  int gpu = open_gpu();
  nv_ioctl_register_fd_t r{rm.ctl};
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), 0);
  return gpu;
}

// NV_ESC_RM_MAP_MEMORY on the control fd, preparing `target_fd` for mmap.
NV_STATUS map_memory(const Rm& rm, NvHandle memory, int target_fd, uint64_t length, uint64_t offset = 0) {
  nv_ioctl_nvos33_parameters_with_fd w{};
  w.params.hClient = rm.client;
  w.params.hDevice = rm.device;
  w.params.hMemory = memory;
  w.params.offset = offset;
  w.params.length = length;
  w.params.status = 0xdeadbeef;
  w.fd = target_fd;
  EXPECT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_MAP_MEMORY, &w), 0);
  return w.params.status;
}

void* mmap_fd(int fd, uint64_t length, long offset = 0) {
  return k::sys_mmap(nullptr, length, k::kProtRead | k::kProtWrite, k::kMapShared, fd, offset);
}

bool pinned(const void* addr) {
  k::Mapping m;
  return k::current().mm().find_mapping(reinterpret_cast<uint64_t>(addr), &m) && m.pins > 0;
}
}  // namespace

TEST_F(RmClasses, VidmemRoundsUpTo2MiBWithAlignedDistinctOffsets) {
  Rm rm = make_rm();
  std::set<uint64_t> offsets;
  const uint64_t sizes[] = {1, k2M, 3 * kMiB, 5 * k2M + 1};
  const uint64_t rounded[] = {k2M, k2M, 2 * k2M, 6 * k2M};
  for (int i = 0; i < 4; ++i) {
    NV_MEMORY_ALLOCATION_PARAMS p{};
    ASSERT_EQ(alloc_vidmem(rm, 0x5c000100 + i, sizes[i], &p), NV_OK);
    EXPECT_EQ(p.size, rounded[i]);
    EXPECT_EQ(p.limit, rounded[i] - 1);
    EXPECT_EQ(p.offset % k2M, 0u);
    EXPECT_EQ(nv_field_get(p.attr, NVOS32_ATTR_LOCATION_SHIFT, NVOS32_ATTR_LOCATION_MASK), NVOS32_ATTR_LOCATION_VIDMEM);
    EXPECT_EQ(nv_field_get(p.attr, NVOS32_ATTR_PAGE_SIZE_SHIFT, NVOS32_ATTR_PAGE_SIZE_MASK), NVOS32_ATTR_PAGE_SIZE_HUGE);
    for (uint64_t o : offsets) EXPECT_TRUE(p.offset + p.size <= o || p.offset >= o) << "overlap";
    offsets.insert(p.offset);
  }
  EXPECT_EQ(offsets.size(), 4u);
  NV_MEMORY_ALLOCATION_PARAMS aligned{};
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000110, k2M, &aligned, 64 * kMiB), NV_OK);
  EXPECT_EQ(aligned.offset % (64 * kMiB), 0u);
}

TEST_F(RmClasses, VidmemBadSizeAlignmentAndExhaustion) {
  Rm rm = make_rm();
  uint64_t before = heap_free_bytes(rm);
  EXPECT_EQ(alloc_vidmem(rm, 0x5c000100, 0), NV_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(alloc_vidmem(rm, 0x5c000100, k2M, nullptr, 3 * k2M), NV_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(alloc_vidmem(rm, 0x5c000100, 1ull << 50), NV_ERR_NO_MEMORY);
  EXPECT_EQ(alloc_vidmem(rm, 0x5c000100, ~0ull), NV_ERR_NO_MEMORY);
  EXPECT_EQ(heap_free_bytes(rm), before);
  // Nothing was created by the failures.
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_ERR_INVALID_OBJECT_HANDLE);
}

TEST_F(RmClasses, VidmemFreeReturnsTheMemory) {
  Rm rm = make_rm();
  uint64_t before = heap_free_bytes(rm);
  NV_MEMORY_ALLOCATION_PARAMS p{};
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 8 * kMiB, &p), NV_OK);
  EXPECT_EQ(heap_free_bytes(rm), before - 8 * kMiB);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_EQ(heap_free_bytes(rm), before);
  NV_MEMORY_ALLOCATION_PARAMS q{};
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 8 * kMiB, &q), NV_OK);
  EXPECT_EQ(q.offset, p.offset);  // first fit finds the same run again
}

TEST_F(RmClasses, VaspaceReturnsTheUvaWindow) {
  Rm rm = make_rm();
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  NvHandle h = 0x5c000100;
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
  EXPECT_EQ(va.vaSize, 512ull << 30);  // twice the VRAM, rounded up to a power of two
  EXPECT_NE(va.vaBase, 0u);
  EXPECT_EQ(va.vaBase % k2M, 0u);
  EXPECT_EQ(va.vaStartInternal, va.vaBase);
  EXPECT_EQ(va.vaLimitInternal, va.vaBase + va.vaSize - 1);
  EXPECT_EQ(va.bigPageSize, k2M);
  // The window is not accessible until something is mapped there.
  EXPECT_FALSE(readable(va.vaBase));
  // Under the subdevice too, and without params.
  NvHandle h2 = 0x5c000101;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.subdevice, &h2, FERMI_VASPACE_A), NV_OK);
}

TEST_F(RmClasses, SysmemAllocMapAndErrors) {
  Rm rm = make_rm();
  NV_MEMORY_ALLOCATION_PARAMS p{};
  ASSERT_EQ(alloc_sysmem(rm, 0x5c000100, 5000, &p), NV_OK);
  EXPECT_EQ(p.size, 8192u);
  EXPECT_EQ(p.limit, 8191u);
  EXPECT_EQ(alloc_sysmem(rm, 0x5c000101, 0), NV_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(alloc_sysmem(rm, 0x5c000101, 1ull << 40), NV_ERR_NO_MEMORY);
  EXPECT_EQ(alloc_sysmem(rm, 0x5c000101, 4096, nullptr, rm.subdevice), NV_ERR_INVALID_OBJECT_PARENT);
  NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS t{0x5c000100, 0, 0};
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, &t, sizeof t), NV_OK);
  EXPECT_EQ(t.addrSpaceType, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM);

  // Two CPU mappings through /dev/nvidiactl see the same pages.
  int ctl2 = open_ctl();
  ASSERT_EQ(map_memory(rm, 0x5c000100, ctl2, 8192), NV_OK);
  auto* a = static_cast<uint32_t*>(mmap_fd(ctl2, 8192));
  ASSERT_FALSE(k::mmap_failed(a));
  ASSERT_EQ(map_memory(rm, 0x5c000100, ctl2, 4096, 4096), NV_OK);
  auto* b = static_cast<uint32_t*>(mmap_fd(ctl2, 4096));
  ASSERT_FALSE(k::mmap_failed(b));
  a[1024] = 0xfeedf00d;
  EXPECT_EQ(b[0], 0xfeedf00du);
  // (Each test unmaps what it mapped: the kernel does not release a file whose last reference
  // is a mapping when the process exits - see test_rm_server.cpp's disabled test.)
  EXPECT_EQ(k::sys_munmap(a, 8192), 0);
  EXPECT_EQ(k::sys_munmap(b, 4096), 0);
  // Sysmem cannot go through /dev/nvidia0.
  int gpu = open_gpu();
  EXPECT_EQ(map_memory(rm, 0x5c000100, gpu, 4096), NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmClasses, OsDescriptorPinsUserPages) {
  Rm rm = make_rm();
  int gpu = registered_gpu(rm);
  void* pages = user_pages(4 * k::kPageSize);
  EXPECT_FALSE(pinned(pages));
  ASSERT_EQ(pin(gpu, rm, 0x5c000100, pages, 4 * k::kPageSize), NV_OK);
  EXPECT_TRUE(pinned(pages));
  NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS t{0x5c000100, 0, 0};
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, &t, sizeof t), NV_OK);
  EXPECT_EQ(t.addrSpaceType, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM);
  // Its pages are already the process's: no CPU mapping of it.
  EXPECT_EQ(map_memory(rm, 0x5c000100, rm.ctl, 4096), NV_ERR_NOT_SUPPORTED);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_FALSE(pinned(pages));
}

TEST_F(RmClasses, OsDescriptorRefusesBadAddressesClassesAndHandles) {
  Rm rm = make_rm();
  int gpu = registered_gpu(rm);
  auto* pages = static_cast<char*>(user_pages(4 * k::kPageSize));
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, pages + 16, k::kPageSize), NV_ERR_INVALID_ADDRESS);
  // Host memory outside the process's window is the program's own when the host maps it
  // (its stack pins, as rt.hostRegister.stack does on the H200); a PROT_NONE reservation is not.
  int on_stack[1024];
  uint64_t stack_page = reinterpret_cast<uint64_t>(on_stack + 1023) & ~(k::kPageSize - 1);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, reinterpret_cast<void*>(stack_page), 16), NV_OK);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  void* reserved = ::mmap(nullptr, k::kPageSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(reserved, MAP_FAILED);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, reserved, k::kPageSize), NV_ERR_INVALID_ADDRESS);
  ::munmap(reserved, k::kPageSize);
  auto* gone = static_cast<char*>(user_pages(2 * k::kPageSize));
  ASSERT_EQ(k::sys_munmap(gone, 2 * k::kPageSize), 0);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, gone, k::kPageSize), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, pages, 5 * k::kPageSize), NV_ERR_INVALID_ADDRESS);  // runs off the end
  void* ro = k::sys_mmap(nullptr, k::kPageSize, k::kProtRead, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, ro, k::kPageSize), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, pages, 0), NV_ERR_INVALID_ADDRESS);  // limit = ~0
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, pages, k::kPageSize, NV01_MEMORY_SYSTEM), NV_ERR_INVALID_CLASS);
  EXPECT_EQ(pin(gpu, rm, 0x5c000100, pages, k::kPageSize, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, rm.subdevice),
            NV_ERR_INVALID_OBJECT_PARENT);
  EXPECT_EQ(pin(gpu, rm, 0, pages, k::kPageSize), NV_ERR_INVALID_OBJECT_NEW);
  EXPECT_EQ(pin(gpu, rm, rm.subdevice, pages, k::kPageSize), NV_ERR_INVALID_OBJECT_NEW);
  EXPECT_FALSE(pinned(pages));
  // An unregistered /dev/nvidia0 has no control file to act for.
  int loose = open_gpu();
  EXPECT_EQ(pin(loose, rm, 0x5c000100, pages, k::kPageSize), NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmClasses, VidmemThroughNvidia0IsTheSameMemoryTheGpuMaps) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 2 * k2M), NV_OK);
  int gpu = open_gpu();
  ASSERT_EQ(map_memory(rm, 0x5c000100, gpu, 2 * k2M), NV_OK);
  auto* cpu = static_cast<uint64_t*>(mmap_fd(gpu, 2 * k2M));
  ASSERT_FALSE(k::mmap_failed(cpu));
  for (uint64_t i = 0; i < 2 * k2M / 8; i += 4096) cpu[i] = 0xabcd0000 + i;

  uint64_t va = u.va_base + (1ull << 30);
  ASSERT_EQ(uvm_create_range(u, va, 2 * k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, 2 * k2M), NV_OK);
  for (uint64_t i = 0; i < 2 * k2M / 8; i += 4096) {
    uint64_t v = 0;
    ASSERT_EQ(k::copy_from_user(&v, reinterpret_cast<void*>(va + i * 8), 8), 0);
    EXPECT_EQ(v, 0xabcd0000 + i);
  }
  EXPECT_EQ(k::sys_munmap(cpu, 2 * k2M), 0);
  // Vidmem does not go through the control node; ranges are checked.
  int ctl2 = open_ctl();
  EXPECT_EQ(map_memory(rm, 0x5c000100, ctl2, k2M), NV_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(map_memory(rm, 0x5c000100, gpu, 2 * k2M + 4096), NV_ERR_INVALID_LIMIT);
  EXPECT_EQ(map_memory(rm, 0x5c000100, gpu, 0), NV_ERR_INVALID_LIMIT);
  EXPECT_EQ(map_memory(rm, 0x5c000100, gpu, 4096, 100), NV_ERR_INVALID_LIMIT);
  EXPECT_EQ(map_memory(rm, 0x5c0000ff, gpu, 4096), NV_ERR_OBJECT_NOT_FOUND);
  EXPECT_EQ(map_memory(rm, rm.subdevice, gpu, 4096), NV_ERR_OBJECT_NOT_FOUND);
  EXPECT_EQ(map_memory(rm, 0x5c000100, 999, 4096), NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmClasses, MmapNeedsAPreparedContextUsedOnce) {
  Rm rm = make_rm();
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  int gpu = open_gpu();
  EXPECT_EQ(mmap_fd(gpu, k2M), reinterpret_cast<void*>(-k::kEINVAL));
  EXPECT_EQ(mmap_fd(rm.ctl, 4096), reinterpret_cast<void*>(-k::kEINVAL));
  ASSERT_EQ(map_memory(rm, 0x5c000100, gpu, k2M), NV_OK);
  EXPECT_EQ(mmap_fd(gpu, k2M, 4096), reinterpret_cast<void*>(-k::kEINVAL));  // offset must be 0
  ASSERT_EQ(map_memory(rm, 0x5c000100, gpu, 4096), NV_OK);
  EXPECT_EQ(mmap_fd(gpu, 8192), reinterpret_cast<void*>(-k::kEINVAL));  // longer than prepared
  ASSERT_EQ(map_memory(rm, 0x5c000100, gpu, k2M), NV_OK);
  void* cpu = mmap_fd(gpu, k2M);
  EXPECT_FALSE(k::mmap_failed(cpu));
  EXPECT_EQ(mmap_fd(gpu, k2M), reinterpret_cast<void*>(-k::kEINVAL));  // the context was consumed
  EXPECT_EQ(k::sys_munmap(cpu, k2M), 0);
}

// A context prepared for an object that is freed before the mmap must not map the released VRAM
// (which the PMA may already have given to another client).
TEST_F(RmClasses, MmapAfterTheObjectWasFreedIsRefused) {
  Rm rm = make_rm();
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  int gpu = open_gpu();
  ASSERT_EQ(map_memory(rm, 0x5c000100, gpu, k2M), NV_OK);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_EQ(mmap_fd(gpu, k2M), reinterpret_cast<void*>(-k::kEINVAL));

  NV_MEMORY_ALLOCATION_PARAMS p{};
  ASSERT_EQ(alloc_sysmem(rm, 0x5c000101, 4096, &p), NV_OK);
  int ctl2 = open_ctl();
  ASSERT_EQ(map_memory(rm, 0x5c000101, ctl2, 4096), NV_OK);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000101), NV_OK);
  EXPECT_EQ(mmap_fd(ctl2, 4096), reinterpret_cast<void*>(-k::kEINVAL));
}

TEST_F(RmClasses, UnmapMemoryChecksTheObject) {
  Rm rm = make_rm();
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  NVOS34_PARAMETERS p{rm.client, rm.device, 0x5c000100, 0, 0xdeadbeef, 0};
  EXPECT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_UNMAP_MEMORY, &p), 0);
  EXPECT_EQ(p.status, NV_OK);
  p.hMemory = 0x5c0000ff;
  EXPECT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_UNMAP_MEMORY, &p), 0);
  EXPECT_EQ(p.status, NV_ERR_OBJECT_NOT_FOUND);
}
