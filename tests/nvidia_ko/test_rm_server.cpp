// rm_server.cpp: the RM object tree - client handles, legal parents, handle choice, free of a
// subtree, and the isolation of clients between files and processes.
#include "nv_test_util.h"

using namespace nvtest;

namespace {
class RmServer : public NvTest {};

NvHandle new_client(int ctl, NvU32 cls = NV01_ROOT) {
  NvHandle h = 0;
  EXPECT_EQ(rm_alloc(ctl, 0, 0, &h, cls), NV_OK);
  return h;
}
}  // namespace

TEST_F(RmServer, ClientHandlesCountUpFromTheClientBaseAndClassZeroBecomesRootClient) {
  int ctl = open_ctl();
  NVOS21_PARAMETERS p{};
  p.hClass = NV01_ROOT;
  ASSERT_EQ(nv_ioctl(ctl, NV_ESC_RM_ALLOC, &p), 0);
  ASSERT_EQ(p.status, NV_OK);
  EXPECT_GT(p.hObjectNew, RS_CLIENT_HANDLE_BASE);
  EXPECT_LT(p.hObjectNew, RS_CLIENT_HANDLE_BASE + 0x100000);
  NvHandle second = new_client(ctl, NV01_ROOT_CLIENT);
  NvHandle third = new_client(ctl, NV01_ROOT_NON_PRIV);
  EXPECT_EQ(second, p.hObjectNew + 1);
  EXPECT_EQ(third, p.hObjectNew + 2);
  // The client object answers client (NV0000) controls: it has class NV01_ROOT_CLIENT.
  NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS ids{};
  EXPECT_EQ(rm_control(ctl, p.hObjectNew, p.hObjectNew, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &ids, sizeof ids), NV_OK);
}

// A client handle one process chose itself must not make the next RM-chosen one fail.
TEST_F(RmServer, RmPickedClientHandleSkipsOneTakenExplicitly) {
  int ctl = open_ctl();
  NvHandle last = new_client(ctl);
  NvHandle mine = last + 1;
  ASSERT_EQ(rm_alloc(ctl, 0, 0, &mine, NV01_ROOT_CLIENT), NV_OK);
  EXPECT_EQ(mine, last + 1);
  NvHandle next = 0;
  ASSERT_EQ(rm_alloc(ctl, 0, 0, &next, NV01_ROOT_CLIENT), NV_OK);
  EXPECT_EQ(next, last + 2);
  NvHandle bad = 0x12345678;  // outside the client ranges
  EXPECT_EQ(rm_alloc(ctl, 0, 0, &bad, NV01_ROOT_CLIENT), NV_ERR_INVALID_OBJECT_NEW);
}

TEST_F(RmServer, LegalAndIllegalParents) {
  Rm rm = make_rm();  // device under client, subdevice under device: OK
  NvHandle h = 0x5c000100;
  NV2080_ALLOC_PARAMETERS sub{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.client, &h, NV20_SUBDEVICE_0, &sub, sizeof sub),
            NV_ERR_INVALID_OBJECT_PARENT);
  NV_MEMORY_ALLOCATION_PARAMS mem{};
  mem.size = k2M;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.client, &h, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem),
            NV_ERR_INVALID_OBJECT_PARENT);
  NV0080_ALLOC_PARAMETERS dev{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.subdevice, &h, NV01_DEVICE_0, &dev, sizeof dev),
            NV_ERR_INVALID_OBJECT_PARENT);
  // Vidmem may live under the subdevice too.
  NvHandle under_sub = 0x5c000101;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.subdevice, &under_sub, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem), NV_OK);
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, 0x1234), NV_ERR_INVALID_CLASS);
  // A class the header names but minicuda does not model (another GPU generation's channel).
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, AMPERE_CHANNEL_GPFIFO_A), NV_ERR_INVALID_CLASS);
  // One device object per GPU per client.
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.client, &h, NV01_DEVICE_0, &dev, sizeof dev), NV_ERR_STATE_IN_USE);
}

TEST_F(RmServer, OsDescriptorClassIsNotAllocatableThroughRmAlloc) {
  Rm rm = make_rm();
  NvHandle h = 0x5c000100;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR), NV_ERR_INVALID_CLASS);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_ERR_INVALID_OBJECT_HANDLE);
}

TEST_F(RmServer, UnknownParentOrClient) {
  Rm rm = make_rm();
  NvHandle h = 0x5c000100;
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, 0x5c0000ff, &h, FERMI_VASPACE_A, &va, sizeof va), NV_ERR_INVALID_OBJECT_PARENT);
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client + 0x100, rm.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_ERR_INVALID_CLIENT);
}

TEST_F(RmServer, DuplicateHandleIsInvalidObjectNew) {
  Rm rm = make_rm();
  NvHandle h = rm.subdevice;
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_ERR_INVALID_OBJECT_NEW);
  h = rm.client;  // a client handle is never a child handle
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_ERR_INVALID_OBJECT_NEW);
  NvHandle again = rm.client;  // an explicit client handle that is taken
  EXPECT_EQ(rm_alloc(rm.ctl, 0, 0, &again, NV01_ROOT_CLIENT), NV_ERR_INVALID_OBJECT_NEW);
}

TEST_F(RmServer, HandleZeroLetsRmPickFromTheUniqueBase) {
  Rm rm = make_rm();
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  NvHandle a = 0, b = 0;
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &a, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &b, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
  EXPECT_EQ(a, RS_UNIQUE_HANDLE_BASE + 0);
  EXPECT_EQ(b, RS_UNIQUE_HANDLE_BASE + 1);
  // RM skips a handle the caller took itself.
  NvHandle mine = RS_UNIQUE_HANDLE_BASE + 2, c = 0;
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &mine, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &c, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
  EXPECT_EQ(c, RS_UNIQUE_HANDLE_BASE + 3);
}

TEST_F(RmServer, WrongParamsSizeIsInvalidParamStruct) {
  Rm rm = make_rm();
  NvHandle h = 0x5c000100;
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, &va, 48), NV_ERR_INVALID_PARAM_STRUCT);
  // A size with no pointer.
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, nullptr, sizeof va),
            NV_ERR_INVALID_PARAM_STRUCT);
  // Vidmem needs its params.
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, NV01_MEMORY_LOCAL_USER), NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmServer, UnreadableParamsAreInvalidAddress) {
  Rm rm = make_rm();
  NvHandle h = 0x5c000100;
  void* page = user_pages(k::kPageSize);
  ASSERT_EQ(k::sys_munmap(page, k::kPageSize), 0);
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, page, sizeof(NV_VASPACE_ALLOCATION_PARAMETERS)),
            NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_VASPACE_A, reinterpret_cast<void*>(0x1000),
                     sizeof(NV_VASPACE_ALLOCATION_PARAMETERS)),
            NV_ERR_INVALID_ADDRESS);
}

TEST_F(RmServer, FreeOfUnknownHandleOrWrongParent) {
  Rm rm = make_rm();
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c0000ff), NV_ERR_INVALID_OBJECT_HANDLE);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.client, rm.subdevice), NV_ERR_INVALID_OBJECT_PARENT);
  EXPECT_EQ(rm_free(rm.ctl, rm.client + 0x100, rm.client, rm.device), NV_ERR_INVALID_CLIENT);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, 0, rm.subdevice), NV_OK);  // parent 0 is tolerated
}

TEST_F(RmServer, FreeingADeviceFreesItsSubtree) {
  Rm rm = make_rm();
  uint64_t before = heap_free_bytes(rm);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  NvHandle va = 0x5c000101;
  NV_VASPACE_ALLOCATION_PARAMETERS vap{};
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.subdevice, &va, FERMI_VASPACE_A, &vap, sizeof vap), NV_OK);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.client, rm.device), NV_OK);
  for (NvHandle h : {rm.device, rm.subdevice, NvHandle{0x5c000100}, NvHandle{0x5c000101}}) {
    EXPECT_EQ(rm_free(rm.ctl, rm.client, 0, h), NV_ERR_INVALID_OBJECT_HANDLE) << std::hex << h;
  }
  // The handles may be used again, and the vidmem went back to the PMA.
  Rm again = rm;
  NV0080_ALLOC_PARAMETERS dev{};
  NV2080_ALLOC_PARAMETERS sub{};
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.client, &again.device, NV01_DEVICE_0, &dev, sizeof dev), NV_OK);
  ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &again.subdevice, NV20_SUBDEVICE_0, &sub, sizeof sub), NV_OK);
  EXPECT_EQ(heap_free_bytes(again), before);
}

TEST_F(RmServer, FreeingTheClientFreesEverything) {
  Rm rm = make_rm();
  Rm probe = make_rm();
  uint64_t before = heap_free_bytes(probe);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 3 * k2M), NV_OK);
  EXPECT_EQ(heap_free_bytes(probe), before - 3 * k2M);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.client, rm.client), NV_OK);
  EXPECT_EQ(heap_free_bytes(probe), before);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.client, rm.device), NV_ERR_INVALID_CLIENT);
  NvHandle h = 0x5c000200;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.client, &h, NV01_DEVICE_0), NV_ERR_INVALID_CLIENT);
}

TEST_F(RmServer, ClientOfAnotherProcessIsInvalidClient) {
  Rm a = make_rm();
  auto other = k::spawn_process();
  {
    k::ProcessScope as(*other);
    int ctl = open_ctl();
    NvHandle h = 0x5c000100;
    NV_VASPACE_ALLOCATION_PARAMETERS va{};
    EXPECT_EQ(rm_alloc(ctl, a.client, a.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_ERR_INVALID_CLIENT);
    NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS name{};
    EXPECT_EQ(rm_control(ctl, a.client, a.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name),
              NV_ERR_INVALID_CLIENT);
    EXPECT_EQ(rm_free(ctl, a.client, a.client, a.device), NV_ERR_INVALID_CLIENT);
    EXPECT_EQ(rm_free(ctl, a.client, a.client, a.client), NV_ERR_INVALID_CLIENT);
    other->close_all();
  }
  // Still A's, intact.
  EXPECT_EQ(rm_free(a.ctl, a.client, a.client, a.device), NV_OK);
}

TEST_F(RmServer, ClientOfAnotherOpenOfTheControlNodeIsInvalidClient) {
  Rm a = make_rm();
  int ctl2 = open_ctl();
  EXPECT_EQ(rm_free(ctl2, a.client, a.client, a.device), NV_ERR_INVALID_CLIENT);
  NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS name{};
  EXPECT_EQ(rm_control(ctl2, a.client, a.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name),
            NV_ERR_INVALID_CLIENT);
  EXPECT_EQ(rm_free(ctl2, a.client, a.client, a.client), NV_ERR_INVALID_CLIENT);
  EXPECT_EQ(rm_free(a.ctl, a.client, a.client, a.device), NV_OK);
}

TEST_F(RmServer, ClosingTheControlFileFreesItsClients) {
  Rm probe = make_rm();
  uint64_t before = heap_free_bytes(probe);
  Rm rm = make_rm();
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000101, 5 * kMiB), NV_OK);
  EXPECT_EQ(heap_free_bytes(probe), before - 4 * k2M);
  ASSERT_EQ(k::sys_close(rm.ctl), 0);
  EXPECT_EQ(heap_free_bytes(probe), before);
  // The client is gone for everyone: a new open cannot reach it either.
  int ctl = open_ctl();
  EXPECT_EQ(rm_free(ctl, rm.client, rm.client, rm.client), NV_ERR_INVALID_CLIENT);
}

// A process that exits with a control file still mmapped: the mapping is the file's last
// reference, and dropping it at exit must still reach the driver's release().
TEST_F(RmServer, ProcessExitWithAMappedControlFileFreesItsClients) {
  Rm probe = make_rm();
  uint64_t before = heap_free_bytes(probe);
  {
    auto other = k::spawn_process();
    k::ProcessScope as(*other);
    Rm rm = make_rm();
    ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
    NvHandle sys = 0x5c000101;
    NV_MEMORY_ALLOCATION_PARAMS p{};
    p.size = 4096;
    ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &sys, NV01_MEMORY_SYSTEM, &p, sizeof p), NV_OK);
    nv_ioctl_nvos33_parameters_with_fd w{};
    w.params = {rm.client, rm.device, sys, 0, 4096, 0, 0, 0};
    w.fd = rm.ctl;
    ASSERT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_MAP_MEMORY, &w), 0);
    ASSERT_EQ(w.params.status, NV_OK);
    ASSERT_FALSE(k::mmap_failed(k::sys_mmap(nullptr, 4096, k::kProtRead, k::kMapShared, rm.ctl, 0)));
    other->close_all();
  }  // the process is gone
  EXPECT_EQ(heap_free_bytes(probe), before);
}

TEST_F(RmServer, ProcessExitFreesItsClients) {
  Rm probe = make_rm();
  uint64_t before = heap_free_bytes(probe);
  {
    auto other = k::spawn_process();
    k::ProcessScope as(*other);
    Rm rm = make_rm();
    ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
    EXPECT_EQ(heap_free_bytes(rm), before - k2M);
    other->close_all();
  }
  EXPECT_EQ(heap_free_bytes(probe), before);
}
