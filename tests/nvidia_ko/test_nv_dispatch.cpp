// nv.cpp: the nvidia.ko ioctl table and dispatcher, and the nv-level escapes (nv_escapes.cpp):
// CARD_INFO, SYS_PARAMS, REGISTER_FD.
#include <algorithm>

#include "minicuda/trace.h"
#include "nv_test_util.h"

using namespace nvtest;
namespace trace = minicuda::trace;

namespace {
class NvDispatch : public NvTest {};
}  // namespace

TEST_F(NvDispatch, KnownEscapeWithWrongSizeIsEINVAL) {
  int ctl = open_ctl();
  unsigned char buf[64] = {};
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_ALLOC, 40), buf), -k::kEINVAL);
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_CONTROL, 24), buf), -k::kEINVAL);
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_FREE, 20), buf), -k::kEINVAL);
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_SYS_PARAMS, 4), buf), -k::kEINVAL);
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_CARD_INFO, 0), buf), -k::kEINVAL);
}

TEST_F(NvDispatch, UnknownNrOrWrongTypeIsENOTTY) {
  int ctl = open_ctl();
  unsigned char buf[32] = {};
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(0x99, 32), buf), -k::kENOTTY);
  EXPECT_EQ(k::sys_ioctl(ctl, nv_ioc(NV_IOC_READ | NV_IOC_WRITE, 'G', NV_ESC_RM_ALLOC, 32), buf), -k::kENOTTY);
  // An escape the header knows but the module does not implement.
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_DUP_OBJECT, sizeof(NVOS55_PARAMETERS)), buf), -k::kENOTTY);
  // Bits above the 32-bit request.
  EXPECT_EQ(k::sys_ioctl(ctl, (1ul << 32) | NV_IOWR(NV_ESC_RM_ALLOC, 32), buf), -k::kENOTTY);
}

TEST_F(NvDispatch, BadArgumentPointerIsEFAULT) {
  int ctl = open_ctl();
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_ALLOC, 48), nullptr), -k::kEFAULT);
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_ALLOC, 48), reinterpret_cast<void*>(0x1000)), -k::kEFAULT);
  void* page = user_pages(k::kPageSize);
  ASSERT_EQ(k::sys_munmap(page, k::kPageSize), 0);
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_RM_CONTROL, 32), page), -k::kEFAULT);
}

TEST_F(NvDispatch, ArgumentThatCannotBeWrittenBackIsEFAULT) {
  int ctl = open_ctl();
  void* page = k::sys_mmap(nullptr, k::kPageSize, k::kProtRead, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  ASSERT_FALSE(k::mmap_failed(page));
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_SYS_PARAMS, 8), page), -k::kEFAULT);
}

TEST_F(NvDispatch, ControlNodeEscapeOnGpuNodeIsInvalidArgumentStatus) {
  Rm rm = make_rm();
  int gpu = open_gpu();
  NVOS00_PARAMETERS f{rm.client, rm.client, rm.device, 0xdeadbeef};
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_RM_FREE, &f), 0);
  EXPECT_EQ(f.status, NV_ERR_INVALID_ARGUMENT);
  NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS name{};
  NVOS54_PARAMETERS c{};
  c.hClient = rm.client;
  c.hObject = rm.subdevice;
  c.cmd = NV2080_CTRL_CMD_GPU_GET_NAME_STRING;
  c.params = nv_ptr_to_p64(&name);
  c.paramsSize = sizeof name;
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_RM_CONTROL, &c), 0);
  EXPECT_EQ(c.status, NV_ERR_INVALID_ARGUMENT);
  // The device was not freed by the refused call.
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.client, rm.device), NV_OK);
}

TEST_F(NvDispatch, GpuNodeEscapeOnControlNodeIsInvalidArgumentStatus) {
  Rm rm = make_rm();
  void* pages = user_pages(k::kPageSize);
  nv_ioctl_nvos02_parameters_with_fd w{};
  w.params.hRoot = rm.client;
  w.params.hObjectParent = rm.device;
  w.params.hObjectNew = 0x5c000100;
  w.params.hClass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
  w.params.flags = NVOS02_FLAGS_LIBCUDA_HOST_ALLOC;
  w.params.pMemory = nv_ptr_to_p64(pages);
  w.params.limit = k::kPageSize - 1;
  w.params.status = 0xdeadbeef;
  w.fd = rm.ctl;
  EXPECT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_ALLOC_MEMORY, &w), 0);
  EXPECT_EQ(w.params.status, NV_ERR_INVALID_ARGUMENT);
}

TEST_F(NvDispatch, RmAllocAcceptsNvos21AndNvos64) {
  int ctl = open_ctl();
  NVOS21_PARAMETERS a{};
  a.hClass = NV01_ROOT_CLIENT;
  a.status = 0xdeadbeef;
  ASSERT_EQ(nv_ioctl(ctl, NV_ESC_RM_ALLOC, &a), 0);
  EXPECT_EQ(a.status, NV_OK);
  EXPECT_EQ(a.hObjectNew & 0xFFF00000, RS_CLIENT_HANDLE_BASE);

  NVOS64_PARAMETERS b{};
  b.hRoot = a.hObjectNew;
  b.hObjectParent = a.hObjectNew;
  b.hObjectNew = 0x5c000001;
  b.hClass = NV01_DEVICE_0;
  b.flags = NVOS64_FLAGS_FINN_SERIALIZED;
  b.status = 0xdeadbeef;
  ASSERT_EQ(nv_ioctl(ctl, NV_ESC_RM_ALLOC, &b), 0);
  EXPECT_EQ(b.status, NV_OK);
  EXPECT_EQ(b.hObjectNew, 0x5c000001u);
}

TEST_F(NvDispatch, Nvos64ReservedFlagsAreInvalidFlags) {
  Rm rm = make_rm();
  NVOS64_PARAMETERS p{};
  p.hRoot = rm.client;
  p.hObjectParent = rm.device;
  p.hObjectNew = 0x5c000020;
  p.hClass = FERMI_VASPACE_A;
  p.flags = 0x2;
  p.status = 0xdeadbeef;
  ASSERT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_ALLOC, &p), 0);
  EXPECT_EQ(p.status, NV_ERR_INVALID_FLAGS);
  EXPECT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000020), NV_ERR_INVALID_OBJECT_HANDLE);
}

TEST_F(NvDispatch, CardInfoSizesAndContents) {
  int ctl = open_ctl();
  std::vector<nv_ioctl_card_info_t> cards(NV_CARD_INFO_LIBCUDA_ENTRIES);
  std::memset(cards.data(), 0xff, cards.size() * sizeof cards[0]);
  ASSERT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_CARD_INFO, 2304), cards.data()), 0);
  EXPECT_EQ(cards[0].valid, NV_TRUE);
  EXPECT_EQ(cards[0].pci_info.vendor_id, 0x10de);
  EXPECT_EQ(cards[0].pci_info.device_id, 0x2335);
  EXPECT_EQ(cards[0].pci_info.domain, 0u);
  EXPECT_EQ(cards[0].pci_info.bus, 0);
  EXPECT_EQ(cards[0].pci_info.slot, 6);
  EXPECT_EQ(cards[0].minor_number, 0u);
  EXPECT_EQ(cards[0].fb_size, h200().vram_bytes);
  EXPECT_STREQ(reinterpret_cast<const char*>(cards[0].dev_name), "nvidia0");
  for (size_t i = 1; i < cards.size(); ++i) EXPECT_EQ(cards[i].valid, NV_FALSE) << i;

  nv_ioctl_card_info_t one{};
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_CARD_INFO, 72), &one), 0);
  EXPECT_EQ(one.valid, NV_TRUE);
  EXPECT_EQ(one.pci_info.device_id, 0x2335);
  unsigned char odd[100] = {};
  EXPECT_EQ(k::sys_ioctl(ctl, NV_IOWR(NV_ESC_CARD_INFO, 100), odd), -k::kEINVAL);
}

TEST_F(NvDispatch, SysParamsIsAcceptedOnTheControlNode) {
  int ctl = open_ctl();
  nv_ioctl_sys_params_t p{0x8000000};
  EXPECT_EQ(nv_ioctl(ctl, NV_ESC_SYS_PARAMS, &p), 0);
  EXPECT_EQ(p.memblock_size, 0x8000000u);
  int gpu = open_gpu();
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_SYS_PARAMS, &p), -k::kEINVAL);  // nv-level escape, wrong node
}

TEST_F(NvDispatch, RegisterFd) {
  int ctl = open_ctl();
  int gpu = open_gpu();
  int uvm = open_uvm();
  int other_gpu = open_gpu();
  nv_ioctl_register_fd_t r{uvm};
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), -k::kEINVAL);  // not an nvidia node
  r.ctl_fd = other_gpu;
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), -k::kEINVAL);  // not a control node
  r.ctl_fd = 999;
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), -k::kEINVAL);  // not open
  r.ctl_fd = ctl;
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), 0);
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), -k::kEINVAL);  // already bound
  EXPECT_EQ(nv_ioctl(ctl, NV_ESC_REGISTER_FD, &r), -k::kEINVAL);  // only on /dev/nvidia0
}

TEST_F(NvDispatch, RegisterFdOfAnotherProcessIsEINVAL) {
  open_ctl();
  int ctl = open_ctl();  // fd 4 here
  auto other = k::spawn_process();
  k::ProcessScope as(*other);
  int gpu = open_gpu();  // fd 3 there: fd 4 is not open in the other process
  nv_ioctl_register_fd_t r{ctl};
  EXPECT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), -k::kEINVAL);
  other->close_all();
}

TEST_F(NvDispatch, GpuNodeActsForItsRegisteredControlFile) {
  Rm rm = make_rm();
  int gpu = open_gpu();
  // RM_ALLOC is valid on either node; an unbound /dev/nvidia0 has no clients to act for.
  NvHandle h = 0x5c000030;
  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  EXPECT_EQ(rm_alloc(gpu, rm.client, rm.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_ERR_INVALID_ARGUMENT);
  nv_ioctl_register_fd_t r{rm.ctl};
  ASSERT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), 0);
  EXPECT_EQ(rm_alloc(gpu, rm.client, rm.device, &h, FERMI_VASPACE_A, &va, sizeof va), NV_OK);
}

// A /dev/nvidia0 bound to a control file must not act for whatever control file is opened after
// that one is closed (the binding must not outlive the control file).
TEST_F(NvDispatch, GpuNodeBindingEndsWhenTheControlFileCloses) {
  int gpu = open_gpu();
  {
    int ctl = open_ctl();
    nv_ioctl_register_fd_t r{ctl};
    ASSERT_EQ(nv_ioctl(gpu, NV_ESC_REGISTER_FD, &r), 0);
    ASSERT_EQ(k::sys_close(ctl), 0);
  }
  Rm rm = make_rm();  // a new control file, possibly at the old one's address
  void* pages = user_pages(k::kPageSize);
  nv_ioctl_nvos02_parameters_with_fd w{};
  w.params.hRoot = rm.client;
  w.params.hObjectParent = rm.device;
  w.params.hObjectNew = 0x5c000100;
  w.params.hClass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
  w.params.pMemory = nv_ptr_to_p64(pages);
  w.params.limit = k::kPageSize - 1;
  w.fd = gpu;
  ASSERT_EQ(nv_ioctl(gpu, NV_ESC_RM_ALLOC_MEMORY, &w), 0);
  EXPECT_EQ(w.params.status, NV_ERR_INVALID_ARGUMENT);
}

TEST_F(NvDispatch, KernelTraceNamesTheEscape) {
  trace::Recorder rec;
  int ctl = open_ctl();
  NvHandle client = 0;
  ASSERT_EQ(rm_alloc(ctl, 0, 0, &client, NV01_ROOT_CLIENT), NV_OK);
  std::vector<std::string> texts = rec.texts(trace::Layer::Kernel);
  bool found = std::any_of(texts.begin(), texts.end(), [](const std::string& t) {
    return t.find("ioctl(") != std::string::npos && t.find("NV_ESC_RM_ALLOC") != std::string::npos;
  });
  EXPECT_TRUE(found);
  std::vector<std::string> rm = rec.texts(trace::Layer::Nvidia);
  EXPECT_TRUE(std::any_of(rm.begin(), rm.end(), [](const std::string& t) { return t.find("rm_alloc(") == 0; }));
}
