// uvm.cpp: /dev/nvidia-uvm - initialization, GPU and VA-space registration, external ranges and
// GPU mappings of RM memory, and their teardown (UVM_FREE, RM_FREE, close).
//
// The driver's gpu::Device is private to the module, so a GPU mapping is checked the way the
// simulator exposes it to the host: vidmem mapped at a GPU VA is readable and writable at that
// same address (UVA), and inaccessible once unmapped. Unmapped memory is only ever probed with
// copy_from_user, never touched directly.
#include "nv_test_util.h"

using namespace nvtest;

namespace {
class NvidiaUvm : public NvTest {};

// Each test maps at its own GiB of the UVA window, so a failed test cannot disturb another.
uint64_t test_va(const Uvm& u, int slot) { return u.va_base + (uint64_t(16 + slot) << 30); }

bool write_user(uint64_t addr, uint64_t value) {
  return k::copy_to_user(reinterpret_cast<void*>(addr), &value, sizeof value) == 0;
}
uint64_t read_user(uint64_t addr) {
  uint64_t v = 0;
  EXPECT_EQ(k::copy_from_user(&v, reinterpret_cast<void*>(addr), sizeof v), 0);
  return v;
}
}  // namespace

TEST_F(NvidiaUvm, EveryCallBeforeInitializeIsIllegalAction) {
  Rm rm = make_rm();
  int fd = open_uvm();
  UVM_PAGEABLE_MEM_ACCESS_PARAMS pma{};
  EXPECT_EQ(uvm_call(fd, UVM_PAGEABLE_MEM_ACCESS, &pma), NV_ERR_ILLEGAL_ACTION);
  UVM_REGISTER_GPU_PARAMS reg{};
  reg.gpu_uuid = gpu_uuid();
  reg.rmCtrlFd = rm.ctl;
  reg.hClient = rm.client;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU, &reg), NV_ERR_ILLEGAL_ACTION);
  UVM_REGISTER_GPU_VASPACE_PARAMS vas{};
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_ERR_ILLEGAL_ACTION);
  UVM_CREATE_EXTERNAL_RANGE_PARAMS range{};
  range.base = 1ull << 40;
  range.length = k2M;
  EXPECT_EQ(uvm_call(fd, UVM_CREATE_EXTERNAL_RANGE, &range), NV_ERR_ILLEGAL_ACTION);
  auto map = std::make_unique<UVM_MAP_EXTERNAL_ALLOCATION_PARAMS>();
  EXPECT_EQ(uvm_call(fd, UVM_MAP_EXTERNAL_ALLOCATION, map.get()), NV_ERR_ILLEGAL_ACTION);
  UVM_FREE_PARAMS f{};
  EXPECT_EQ(uvm_call(fd, UVM_FREE, &f), NV_ERR_ILLEGAL_ACTION);
}

TEST_F(NvidiaUvm, InitializeUnknownRequestsAndBadPointers) {
  int fd = open_uvm();
  UVM_INITIALIZE_PARAMS init{};
  init.flags = UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE;
  EXPECT_EQ(uvm_call(fd, UVM_INITIALIZE, &init), NV_OK);
  EXPECT_EQ(uvm_call(fd, UVM_INITIALIZE, &init), NV_OK);  // again, same flags
  init.flags = 0;
  EXPECT_EQ(uvm_call(fd, UVM_INITIALIZE, &init), NV_ERR_INVALID_ARGUMENT);
  UVM_PAGEABLE_MEM_ACCESS_PARAMS pma{};
  pma.pageableMemAccess = 7;
  EXPECT_EQ(uvm_call(fd, UVM_PAGEABLE_MEM_ACCESS, &pma), NV_OK);
  EXPECT_EQ(pma.pageableMemAccess, NV_FALSE);

  unsigned char buf[64] = {};
  EXPECT_EQ(k::sys_ioctl(fd, 0x99, buf), -k::kEINVAL);
  EXPECT_EQ(k::sys_ioctl(fd, 53, buf), -k::kEINVAL);  // UVM_MIGRATE_RANGE_GROUP: not implemented
  UVM_MIGRATE_PARAMS migrate{};
  migrate.base = 0x10000;
  migrate.length = 0x1000;
  EXPECT_EQ(uvm_call(fd, UVM_MIGRATE, &migrate), NV_ERR_INVALID_ADDRESS);  // no managed range there
  EXPECT_EQ(k::sys_ioctl(fd, NV_IOWR(NV_ESC_RM_ALLOC, 32), buf), -k::kEINVAL);
  EXPECT_EQ(k::sys_ioctl(fd, UVM_FREE, nullptr), -k::kEFAULT);
  // mmap of the UVM node makes a managed range (uvm_managed.cpp): read-write only.
  EXPECT_EQ(k::sys_mmap(nullptr, k2M, k::kProtRead, k::kMapShared, fd, 0), reinterpret_cast<void*>(-k::kEINVAL));
  // ... and only on an initialized fd.
  int fresh = open_uvm();
  EXPECT_EQ(k::sys_mmap(nullptr, k2M, k::kProtRead | k::kProtWrite, k::kMapShared, fresh, 0),
            reinterpret_cast<void*>(-k::kEBADFD));
}

TEST_F(NvidiaUvm, MmInitializeBindsASecondFdToTheFirst) {
  int first = open_uvm();
  int second = open_uvm();
  int ctl = open_ctl();
  UVM_MM_INITIALIZE_PARAMS mm{first, 0};
  EXPECT_EQ(uvm_call(second, UVM_MM_INITIALIZE, &mm), NV_ERR_INVALID_ARGUMENT);  // first not initialized
  UVM_INITIALIZE_PARAMS init{};
  ASSERT_EQ(uvm_call(first, UVM_INITIALIZE, &init), NV_OK);
  mm.uvmFd = ctl;
  EXPECT_EQ(uvm_call(second, UVM_MM_INITIALIZE, &mm), NV_ERR_INVALID_ARGUMENT);  // not a UVM fd
  mm.uvmFd = 999;
  EXPECT_EQ(uvm_call(second, UVM_MM_INITIALIZE, &mm), NV_ERR_INVALID_ARGUMENT);
  mm.uvmFd = first;
  EXPECT_EQ(uvm_call(first, UVM_MM_INITIALIZE, &mm), NV_ERR_INVALID_STATE);  // already a VA space
  EXPECT_EQ(uvm_call(second, UVM_MM_INITIALIZE, &mm), NV_OK);
  EXPECT_EQ(uvm_call(second, UVM_MM_INITIALIZE, &mm), NV_ERR_INVALID_STATE);
  // The mm fd is not a VA space of its own.
  EXPECT_EQ(uvm_call(second, UVM_INITIALIZE, &init), NV_ERR_ILLEGAL_ACTION);
  UVM_CREATE_EXTERNAL_RANGE_PARAMS range{};
  range.base = 1ull << 40;
  range.length = k2M;
  EXPECT_EQ(uvm_call(second, UVM_CREATE_EXTERNAL_RANGE, &range), NV_ERR_ILLEGAL_ACTION);
}

TEST_F(NvidiaUvm, RegisterGpuAndVaspace) {
  Rm rm = make_rm();
  int fd = open_uvm();
  UVM_INITIALIZE_PARAMS init{};
  ASSERT_EQ(uvm_call(fd, UVM_INITIALIZE, &init), NV_OK);
  NvHandle vaspace = 0x5c000010;
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &vaspace, FERMI_VASPACE_A), NV_OK);

  UVM_REGISTER_GPU_VASPACE_PARAMS vas{};
  vas.gpuUuid = gpu_uuid();
  vas.rmCtrlFd = rm.ctl;
  vas.hClient = rm.client;
  vas.hVaSpace = vaspace;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_ERR_INVALID_DEVICE);  // GPU not registered yet

  UVM_REGISTER_GPU_PARAMS reg{};
  reg.gpu_uuid = gpu_uuid();
  reg.gpu_uuid.uuid[15] ^= 1;
  reg.rmCtrlFd = rm.ctl;
  reg.hClient = rm.client;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU, &reg), NV_ERR_GPU_UUID_NOT_FOUND);
  reg.gpu_uuid = gpu_uuid();
  reg.hClient = rm.client + 0x100;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU, &reg), NV_ERR_INVALID_CLIENT);
  reg.hClient = rm.client;
  reg.rmCtrlFd = fd;  // not a control fd
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU, &reg), NV_ERR_INVALID_CLIENT);
  reg.rmCtrlFd = rm.ctl;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU, &reg), NV_OK);
  EXPECT_EQ(reg.numaEnabled, NV_FALSE);
  EXPECT_EQ(reg.numaNodeId, -1);
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU, &reg), NV_ERR_INVALID_DEVICE);  // twice

  vas.hVaSpace = rm.device;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_ERR_OBJECT_NOT_FOUND);
  vas.hVaSpace = vaspace;
  vas.hClient = rm.client + 0x100;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_ERR_INVALID_CLIENT);
  vas.hClient = rm.client;
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_OK);
  EXPECT_EQ(uvm_call(fd, UVM_REGISTER_GPU_VASPACE, &vas), NV_ERR_INVALID_DEVICE);  // twice
}

TEST_F(NvidiaUvm, CreateExternalRangeRefusesOverlapAndUnalignedRanges) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  uint64_t va = test_va(u, 0);
  EXPECT_EQ(uvm_create_range(u, va, 4 * k2M), NV_OK);
  EXPECT_EQ(uvm_create_range(u, va, k2M), NV_ERR_UVM_ADDRESS_IN_USE);
  EXPECT_EQ(uvm_create_range(u, va + 3 * k2M, 2 * k2M), NV_ERR_UVM_ADDRESS_IN_USE);  // overlaps the end
  EXPECT_EQ(uvm_create_range(u, va - k2M, 2 * k2M), NV_ERR_UVM_ADDRESS_IN_USE);      // overlaps the start
  EXPECT_EQ(uvm_create_range(u, va - k2M, 8 * k2M), NV_ERR_UVM_ADDRESS_IN_USE);      // covers it
  EXPECT_EQ(uvm_create_range(u, va + 4 * k2M, k2M), NV_OK);                         // adjacent
  EXPECT_EQ(uvm_create_range(u, va - k2M, k2M), NV_OK);
  EXPECT_EQ(uvm_create_range(u, va + 100, k2M), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(uvm_create_range(u, va + 64 * k2M, 100), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(uvm_create_range(u, va + 64 * k2M, 0), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(uvm_create_range(u, ~0ull << 12, 1ull << 13), NV_ERR_INVALID_ADDRESS);  // wraps
}

TEST_F(NvidiaUvm, MappedVidmemIsReadableAndWritableAtItsGpuAddress) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 2 * k2M), NV_OK);
  uint64_t va = test_va(u, 1);
  EXPECT_FALSE(readable(va));
  ASSERT_EQ(uvm_create_range(u, va, 4 * k2M), NV_OK);
  EXPECT_FALSE(readable(va));  // a range alone maps nothing
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, 2 * k2M), NV_OK);
  EXPECT_EQ(read_user(va), 0u);  // fresh VRAM reads as zeros
  ASSERT_TRUE(write_user(va + 8, 0x1122334455667788));
  ASSERT_TRUE(write_user(va + k2M + 16, 0xcafe));
  EXPECT_EQ(read_user(va + 8), 0x1122334455667788u);
  EXPECT_FALSE(readable(va + 2 * k2M));  // the rest of the range stays unmapped
  // A second mapping of the second chunk (offset 2 MiB) sees the same VRAM.
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va + 2 * k2M, k2M, k2M), NV_OK);
  EXPECT_EQ(read_user(va + 2 * k2M + 16), 0xcafeu);
}

TEST_F(NvidiaUvm, MapRefusesBadRangesObjectsAndAttributes) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  uint64_t va = test_va(u, 2);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_ERR_INVALID_ADDRESS);  // no range
  ASSERT_EQ(uvm_create_range(u, va, 2 * k2M), NV_OK);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va + k2M, 2 * k2M), NV_ERR_INVALID_ADDRESS);  // leaves it
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va - k2M, k2M), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, 0), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, 2 * k2M), NV_ERR_INVALID_LIMIT);  // beyond the object
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c0000ff, va, k2M), NV_ERR_OBJECT_NOT_FOUND);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, rm.device, va, k2M), NV_ERR_OBJECT_NOT_FOUND);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client + 0x100, 0x5c000100, va, k2M), NV_ERR_INVALID_CLIENT);
  EXPECT_EQ(uvm_map(u, u.fd, rm.client, 0x5c000100, va, k2M), NV_ERR_INVALID_CLIENT);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va + 4096, 4096), NV_ERR_INVALID_ADDRESS);  // not 2 MiB
  EXPECT_FALSE(readable(va));

  auto p = std::make_unique<UVM_MAP_EXTERNAL_ALLOCATION_PARAMS>();
  std::memset(p.get(), 0, sizeof *p);
  p->base = va;
  p->length = k2M;
  p->rmCtrlFd = rm.ctl;
  p->hClient = rm.client;
  p->hMemory = 0x5c000100;
  EXPECT_EQ(uvm_call(u.fd, UVM_MAP_EXTERNAL_ALLOCATION, p.get()), NV_ERR_INVALID_ARGUMENT);  // no GPU
  p->gpuAttributesCount = 1;
  EXPECT_EQ(uvm_call(u.fd, UVM_MAP_EXTERNAL_ALLOCATION, p.get()), NV_ERR_INVALID_DEVICE);  // zero uuid
  p->perGpuAttributes[0].gpuUuid = gpu_uuid();
  EXPECT_EQ(uvm_call(u.fd, UVM_MAP_EXTERNAL_ALLOCATION, p.get()), NV_OK);
  EXPECT_EQ(uvm_call(u.fd, UVM_MAP_EXTERNAL_ALLOCATION, p.get()), NV_ERR_INVALID_ADDRESS);  // already mapped
}

TEST_F(NvidiaUvm, MapOfAnotherProcesssClientIsInvalidClient) {
  Rm a = make_rm();
  ASSERT_EQ(alloc_vidmem(a, 0x5c000100, k2M), NV_OK);
  auto other = k::spawn_process();
  {
    k::ProcessScope as(*other);
    Rm b = make_rm();
    Uvm u = make_uvm(b);
    uint64_t va = test_va(u, 3);
    ASSERT_EQ(uvm_create_range(u, va, k2M), NV_OK);
    EXPECT_EQ(uvm_map(u, b.ctl, a.client, 0x5c000100, va, k2M), NV_ERR_INVALID_CLIENT);
    // B has fd 3 too (its own control file), so A's fd number names B's file here.
    EXPECT_EQ(uvm_map(u, a.ctl, a.client, 0x5c000100, va, k2M), NV_ERR_INVALID_CLIENT);
    EXPECT_FALSE(readable(va));
    other->close_all();
  }
}

TEST_F(NvidiaUvm, PinnedHostMemoryMapsOnlyAtItsOwnAddress) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  int gpu = open_gpu();
  nv_ioctl_register_fd_t r{rm.ctl};
  ASSERT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), 0);
  auto* host = static_cast<uint64_t*>(user_pages(4 * k::kPageSize));
  nv_ioctl_nvos02_parameters_with_fd w{};
  w.params.hRoot = rm.client;
  w.params.hObjectParent = rm.device;
  w.params.hObjectNew = 0x5c000100;
  w.params.hClass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
  w.params.flags = NVOS02_FLAGS_LIBCUDA_HOST_ALLOC;
  w.params.pMemory = nv_ptr_to_p64(host);
  w.params.limit = 4 * k::kPageSize - 1;
  w.fd = gpu;
  ASSERT_EQ(nv_ioctl(gpu, NV_ESC_RM_ALLOC_MEMORY, &w), 0);
  ASSERT_EQ(w.params.status, NV_OK);

  uint64_t elsewhere = test_va(u, 4);
  ASSERT_EQ(uvm_create_range(u, elsewhere, k2M), NV_OK);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, elsewhere, 4 * k::kPageSize), NV_ERR_INVALID_ADDRESS);
  uint64_t at = reinterpret_cast<uint64_t>(host);
  ASSERT_EQ(uvm_create_range(u, at, 4 * k::kPageSize), NV_OK);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, at + k::kPageSize, k::kPageSize), NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, at + k::kPageSize, k::kPageSize, k::kPageSize), NV_OK);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, at, k::kPageSize), NV_OK);
  EXPECT_EQ(uvm_free(u, at), NV_OK);
}

TEST_F(NvidiaUvm, FreeUnmapsTheRange) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  uint64_t va = test_va(u, 5);
  EXPECT_EQ(uvm_free(u, va), NV_ERR_INVALID_ADDRESS);  // no such range
  ASSERT_EQ(uvm_create_range(u, va, k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_OK);
  ASSERT_TRUE(write_user(va, 42));
  EXPECT_EQ(uvm_free(u, va + 4096), NV_ERR_INVALID_ADDRESS);  // not a range's base
  EXPECT_EQ(uvm_free(u, va), NV_OK);
  EXPECT_FALSE(readable(va));
  EXPECT_EQ(uvm_free(u, va), NV_ERR_INVALID_ADDRESS);
  // The VA and the memory can be used again; the VRAM kept its contents.
  ASSERT_EQ(uvm_create_range(u, va, k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_OK);
  EXPECT_EQ(read_user(va), 42u);
}

TEST_F(NvidiaUvm, RmFreeOfMappedVidmemRemovesTheGpuMapping) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  uint64_t va = test_va(u, 6);
  ASSERT_EQ(uvm_create_range(u, va, k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_OK);
  ASSERT_TRUE(readable(va));
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_FALSE(readable(va));
  // The range itself is still there: new memory can be mapped into it, then it is freed.
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000101, k2M), NV_OK);
  EXPECT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000101, va, k2M), NV_OK);
  EXPECT_EQ(uvm_free(u, va), NV_OK);
  EXPECT_FALSE(readable(va));
}

TEST_F(NvidiaUvm, ClosingTheControlFileRemovesItsGpuMappings) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  uint64_t va = test_va(u, 7);
  ASSERT_EQ(uvm_create_range(u, va, k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_OK);
  ASSERT_EQ(k::sys_close(rm.ctl), 0);
  EXPECT_FALSE(readable(va));
  EXPECT_EQ(uvm_free(u, va), NV_OK);
}

TEST_F(NvidiaUvm, ClosingTheUvmFdUnmapsItsRanges) {
  Rm rm = make_rm();
  Uvm u = make_uvm(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 2 * k2M), NV_OK);
  uint64_t before = heap_free_bytes(rm);
  uint64_t va = test_va(u, 8);
  ASSERT_EQ(uvm_create_range(u, va, k2M), NV_OK);
  ASSERT_EQ(uvm_create_range(u, va + k2M, k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_OK);
  ASSERT_EQ(uvm_map(u, rm.ctl, rm.client, 0x5c000100, va + k2M, k2M, k2M), NV_OK);
  ASSERT_EQ(k::sys_close(u.fd), 0);
  EXPECT_FALSE(readable(va));
  EXPECT_FALSE(readable(va + k2M));
  EXPECT_EQ(heap_free_bytes(rm), before);  // the RM object is untouched
  // A new VA space can map the same object at the same address.
  Uvm u2 = make_uvm(rm, 0x5c000011);
  ASSERT_EQ(uvm_create_range(u2, va, k2M), NV_OK);
  EXPECT_EQ(uvm_map(u2, rm.ctl, rm.client, 0x5c000100, va, k2M), NV_OK);
}

TEST_F(NvidiaUvm, AnotherProcessCannotTakeOrFreeAMappedAddress) {
  Rm a = make_rm();
  Uvm ua = make_uvm(a);
  ASSERT_EQ(alloc_vidmem(a, 0x5c000100, k2M), NV_OK);
  uint64_t va = test_va(ua, 9);
  ASSERT_EQ(uvm_create_range(ua, va, k2M), NV_OK);
  ASSERT_EQ(uvm_map(ua, a.ctl, a.client, 0x5c000100, va, k2M), NV_OK);
  ASSERT_TRUE(write_user(va, 7));
  auto other = k::spawn_process();
  {
    k::ProcessScope as(*other);
    Rm b = make_rm();
    Uvm ub = make_uvm(b);
    ASSERT_EQ(alloc_vidmem(b, 0x5c000100, k2M), NV_OK);
    ASSERT_EQ(uvm_create_range(ub, va, k2M), NV_OK);  // its own VA bookkeeping
    EXPECT_EQ(uvm_map(ub, b.ctl, b.client, 0x5c000100, va, k2M), NV_ERR_INVALID_ADDRESS);
    EXPECT_EQ(uvm_free(ub, va), NV_OK);
    other->close_all();
  }
  EXPECT_EQ(read_user(va), 7u);
}
