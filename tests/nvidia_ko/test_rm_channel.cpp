// Tests of the work-submission classes (rm_channel.cpp, their rows in rm_classes.cpp and their
// controls in rm_control.cpp): a channel built with raw ioctls exactly as libcuda's
// Channel::create builds it, then fed by hand (pushbuffer, GPFIFO entry, GPPut, doorbell) while
// the GPU's threads, started by nvidia.ko at probe, run it with no further system call: the
// doorbell store reaches the GPU through the route nvidia.ko's mmap of the usermode page made.
#include <atomic>
#include <chrono>
#include <thread>

#include "minicuda/bus.h"
#include "nv_test_util.h"
#include "nv_hw_classes.h"
#include "eventually.h"

namespace nvtest {
namespace {

constexpr uint32_t kEntries = 1024;
constexpr uint64_t kUserdOffset = 8 << 10;
constexpr uint64_t kSemaphoreOffset = 12 << 10;
constexpr uint64_t kPushbufferOffset = 16 << 10;
constexpr uint64_t kBytes = 1ull << 20;

using testing_util::eventually;

uint32_t load32(const void* p) { return std::atomic_ref<uint32_t>(*static_cast<uint32_t*>(const_cast<void*>(p))).load(); }
uint64_t load64(const void* p) { return std::atomic_ref<uint64_t>(*static_cast<uint64_t*>(const_cast<void*>(p))).load(); }

// RM_MAP_MEMORY of hMemory onto a fresh fd of the right node, then mmap of that fd (libcuda's
// map_for_cpu). Returns the address, or null; *status gets the RM status.
void* map_for_cpu(const Rm& rm, NvHandle parent, NvHandle memory, uint64_t length, bool gpu_node,
                  NV_STATUS* status = nullptr) {
  int fd = gpu_node ? open_gpu() : open_ctl();
  EXPECT_GE(fd, 3);
  if (gpu_node) {
    nv_ioctl_register_fd_t reg{rm.ctl};
    EXPECT_EQ(nv_ioctl(fd, NV_ESC_REGISTER_FD, &reg), 0);
  }
  nv_ioctl_nvos33_parameters_with_fd map{{rm.client, parent, memory, 0, length, 0, 0, 0}, fd};
  EXPECT_EQ(nv_ioctl(rm.ctl, NV_ESC_RM_MAP_MEMORY, &map), 0);
  if (status) *status = map.params.status;
  void* cpu = nullptr;
  if (map.params.status == NV_OK) {
    cpu = k::sys_mmap(nullptr, length, k::kProtRead | k::kProtWrite, k::kMapShared, fd, 0);
    if (k::mmap_failed(cpu)) cpu = nullptr;
  }
  k::sys_close(fd);  // the mapping keeps the file
  return cpu;
}

NV_STATUS alloc_sysmem(const Rm& rm, NvHandle h, uint64_t size) {
  NV_MEMORY_ALLOCATION_PARAMS p{};
  p.type = NVOS32_TYPE_IMAGE;
  p.size = size;
  return rm_alloc(rm.ctl, rm.client, rm.device, &h, NV01_MEMORY_SYSTEM, &p, sizeof p);
}

// libcuda's channel: the objects of Channel::create, with the handles below.
struct Channel {
  Rm rm;
  Uvm uvm;
  NvHandle group = 0x5c000100, share = 0x5c000101, memory = 0x5c000102, notifier_memory = 0x5c000103,
           channel = 0x5c000104, compute = 0x5c000105, copy = 0x5c000106, usermode = 0x5c000107;
  uint8_t* base = nullptr;
  NvNotification* notifier = nullptr;
  uint8_t* usermode_page = nullptr;
  uint32_t cid = 0, token = 0, gp_put = 0;
  uint64_t pb_write = kPushbufferOffset;
  bool extended_base_written = false;

  uint32_t* userd32(uint32_t offset) const { return reinterpret_cast<uint32_t*>(base + kUserdOffset + offset); }
  uint64_t* semaphore(unsigned i = 0) const { return reinterpret_cast<uint64_t*>(base + kSemaphoreOffset) + i; }
  uint64_t va(const void* p) const { return reinterpret_cast<uint64_t>(p); }

  // Everything up to (not including) the channel itself; what the error tests start from.
  void build_memory() {
    rm = make_rm();
    uvm = make_uvm(rm);
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS g{};
    g.hVASpace = uvm.vaspace;
    g.engineType = NV2080_ENGINE_TYPE_GRAPHICS;
    ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &group, KEPLER_CHANNEL_GROUP_A, &g, sizeof g), NV_OK);
    NV_CTXSHARE_ALLOCATION_PARAMETERS s{};
    s.hVASpace = uvm.vaspace;
    s.flags = NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC;
    ASSERT_EQ(rm_alloc(rm.ctl, rm.client, group, &share, FERMI_CONTEXT_SHARE_A, &s, sizeof s), NV_OK);
    EXPECT_EQ(s.subctxId, 0u);
    ASSERT_EQ(alloc_sysmem(rm, memory, kBytes), NV_OK);
    base = static_cast<uint8_t*>(map_for_cpu(rm, rm.device, memory, kBytes, false));
    ASSERT_NE(base, nullptr);
    ASSERT_EQ(uvm_create_range(uvm, va(base), kBytes), NV_OK);
    ASSERT_EQ(uvm_map(uvm, rm.ctl, rm.client, memory, va(base), kBytes), NV_OK);
    ASSERT_EQ(alloc_sysmem(rm, notifier_memory, k::kPageSize), NV_OK);
    notifier = static_cast<NvNotification*>(map_for_cpu(rm, rm.device, notifier_memory, k::kPageSize, false));
    ASSERT_NE(notifier, nullptr);
  }
  NV_CHANNEL_ALLOC_PARAMS params() const {
    NV_CHANNEL_ALLOC_PARAMS ch{};
    ch.hObjectError = notifier_memory;
    ch.gpFifoOffset = va(base);
    ch.gpFifoEntries = kEntries;
    ch.hContextShare = share;
    ch.hVASpace = uvm.vaspace;
    ch.hUserdMemory[0] = memory;
    ch.userdOffset[0] = kUserdOffset;
    ch.engineType = NV2080_ENGINE_TYPE_GRAPHICS;
    return ch;
  }
  NV_STATUS alloc_channel(NV_CHANNEL_ALLOC_PARAMS ch, NvU32 size = sizeof(NV_CHANNEL_ALLOC_PARAMS)) {
    NvHandle h = channel;
    NV_STATUS s = rm_alloc(rm.ctl, rm.client, group, &h, HOPPER_CHANNEL_GPFIFO_A, &ch, size);
    if (s == NV_OK) cid = ch.cid;
    return s;
  }
  void build() {
    ASSERT_NO_FATAL_FAILURE(build_memory());
    ASSERT_EQ(alloc_channel(params()), NV_OK);
    ASSERT_EQ(rm_alloc(rm.ctl, rm.client, channel, &compute, HOPPER_COMPUTE_A), NV_OK);
    NVB0B5_ALLOCATION_PARAMETERS ce{NVB0B5_ALLOCATION_PARAMETERS_VERSION_1, NV2080_ENGINE_TYPE_COPY0};
    ASSERT_EQ(rm_alloc(rm.ctl, rm.client, channel, &copy, HOPPER_DMA_COPY_A, &ce, sizeof ce), NV_OK);
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS t{};
    ASSERT_EQ(rm_control(rm.ctl, rm.client, channel, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &t, sizeof t), NV_OK);
    token = t.workSubmitToken;
    NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS sched{};
    sched.bEnable = NV_TRUE;
    ASSERT_EQ(rm_control(rm.ctl, rm.client, group, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sched, sizeof sched), NV_OK);
    NV_HOPPER_USERMODE_A_PARAMS um{};
    um.bBar1Mapping = NV_TRUE;
    ASSERT_EQ(rm_alloc(rm.ctl, rm.client, rm.subdevice, &usermode, HOPPER_USERMODE_A, &um, sizeof um), NV_OK);
    usermode_page = static_cast<uint8_t*>(map_for_cpu(rm, rm.subdevice, usermode, NVC361_NV_USERMODE__SIZE, true));
    ASSERT_NE(usermode_page, nullptr);
  }

  // Appends one incrementing method to the pushbuffer.
  void method(uint32_t subchannel, uint32_t m, std::initializer_list<uint32_t> data) {
    auto* p = reinterpret_cast<uint32_t*>(base + pb_write);
    *p++ = nv_method_inc(subchannel, m, static_cast<NvU32>(data.size()));
    for (uint32_t v : data) *p++ = v;
    pb_write += 4 * (data.size() + 1);
  }
  void release(uint64_t* sem, uint64_t value) {
    uint64_t v = va(sem);
    method(NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
           {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32), static_cast<uint32_t>(value),
            static_cast<uint32_t>(value >> 32),
            nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE, NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT, true)});
  }
  void write_entry(uint64_t entry) {
    reinterpret_cast<uint64_t*>(base)[gp_put] = entry;
    gp_put = (gp_put + 1) % kEntries;
  }
  // One GPFIFO entry for the methods from `from` on; GPPut; the doorbell.
  void submit(uint64_t from) {
    uint64_t segment = va(base) + from;
    if (!extended_base_written) {  // UVA addresses are above 1 TiB
      write_entry(nv_gp_entry_pb_extended_base(segment));
      extended_base_written = true;
    }
    write_entry(nv_gp_entry(segment, static_cast<uint32_t>((pb_write - from) / 4)));
    std::atomic_ref<uint32_t>(*userd32(NVC56F_USERD_GP_PUT)).store(gp_put, std::memory_order_release);
    // The doorbell: a store to a register of the usermode page, which nvidia.ko's mmap routed to
    // the GPU (minicuda/bus.h).
    reinterpret_cast<minicuda::bus::Reg32*>(usermode_page)[NVC361_NOTIFY_CHANNEL_PENDING / 4] = token;
  }
  // A 1D copy on the copy subchannel.
  void copy_bytes(uint64_t src, uint64_t dst, uint32_t bytes) {
    method(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_IN_UPPER,
           {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src), static_cast<uint32_t>(dst >> 32),
            static_cast<uint32_t>(dst)});
    method(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {bytes});
    method(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA, {nv_launch_dma_copy()});
  }
  void bind_engines() {
    method(NV_SUBCHANNEL_COMPUTE, NVC56F_SET_OBJECT, {HOPPER_COMPUTE_A});
    method(NV_SUBCHANNEL_COPY, NVC56F_SET_OBJECT, {HOPPER_DMA_COPY_A});
  }
  uint16_t notifier_status() const { return std::atomic_ref<uint16_t>(notifier->status).load(std::memory_order_acquire); }
};

class RmChannelTest : public NvTest {
 protected:
  Channel ch;
};

TEST_F(RmChannelTest, BuiltAsLibcudaBuildsIt) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  EXPECT_NE(ch.cid, 0u);
  EXPECT_EQ(ch.token, ch.cid);  // the work-submit token is the channel id
  EXPECT_EQ(load32(ch.userd32(NVC56F_USERD_GP_GET)), 0u);
  EXPECT_EQ(ch.notifier_status(), 0u);
  // A second channel in the same group gets another id (and token).
  uint32_t first = ch.cid;
  ch.channel = 0x5c000200;
  NV_CHANNEL_ALLOC_PARAMS p = ch.params();
  p.userdOffset[0] = kUserdOffset + NVC56F_USERD_SIZE;
  p.gpFifoOffset = ch.va(ch.base) + 0x2000 * 8;
  ASSERT_EQ(ch.alloc_channel(p), NV_OK);
  EXPECT_NE(ch.cid, first);
}

TEST_F(RmChannelTest, TheDeviceThreadRunsPublishedWorkWithNoSystemCall) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  uint64_t from = ch.pb_write;
  ch.bind_engines();
  ch.release(ch.semaphore(), 0x1234'5678'9abcull);
  ch.submit(from);
  ASSERT_TRUE(eventually([&] { return load64(ch.semaphore()) == 0x1234'5678'9abcull; }));
  EXPECT_TRUE(eventually([&] { return load32(ch.userd32(NVC56F_USERD_GP_GET)) == ch.gp_put; }));
  // More work on the same channel: a copy then a release.
  uint64_t* src = ch.semaphore(4);
  uint64_t* dst = ch.semaphore(5);
  *src = 0xfeedface'cafef00dull;
  from = ch.pb_write;
  ch.copy_bytes(ch.va(src), ch.va(dst), 8);
  ch.release(ch.semaphore(), 2);
  ch.submit(from);
  ASSERT_TRUE(eventually([&] { return load64(ch.semaphore()) == 2; }));
  EXPECT_EQ(load64(dst), 0xfeedface'cafef00dull);
  EXPECT_EQ(ch.notifier_status(), 0u);
}

// GPPut moved without the doorbell: the GPU does not run the channel until the token is stored
// to the usermode page. Freeing the usermode object drops the route its mmap made.
TEST_F(RmChannelTest, PublishedWorkWaitsForTheDoorbellAndFreeingThePageDropsItsRoute) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  uint64_t from = ch.pb_write;
  ch.bind_engines();
  ch.release(ch.semaphore(), 7);
  const uint64_t segment = ch.va(ch.base) + from;
  ch.write_entry(nv_gp_entry_pb_extended_base(segment));
  ch.extended_base_written = true;
  ch.write_entry(nv_gp_entry(segment, static_cast<uint32_t>((ch.pb_write - from) / 4)));
  std::atomic_ref<uint32_t>(*ch.userd32(NVC56F_USERD_GP_PUT)).store(ch.gp_put, std::memory_order_release);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(load64(ch.semaphore()), 0u);
  EXPECT_EQ(load32(ch.userd32(NVC56F_USERD_GP_GET)), 0u);
  reinterpret_cast<minicuda::bus::Reg32*>(ch.usermode_page)[NVC361_NOTIFY_CHANNEL_PENDING / 4] = ch.token;
  ASSERT_TRUE(eventually([&] { return load64(ch.semaphore()) == 7u; }));

  const uint64_t routes = minicuda::bus::routes();
  ASSERT_GE(routes, 1u);
  ASSERT_EQ(rm_free(ch.rm.ctl, ch.rm.client, ch.rm.subdevice, ch.usermode), NV_OK);
  EXPECT_EQ(minicuda::bus::routes(), routes - 1);
}

TEST_F(RmChannelTest, ControlsOnTheRightObjectsOnly) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS t{};
  for (NvHandle h : {ch.group, ch.share, ch.compute, ch.copy, ch.rm.device}) {
    EXPECT_EQ(rm_control(ch.rm.ctl, ch.rm.client, h, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &t, sizeof t),
              NV_ERR_NOT_SUPPORTED);
  }
  EXPECT_EQ(rm_control(ch.rm.ctl, ch.rm.client, ch.channel, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &t, 8),
            NV_ERR_INVALID_PARAM_STRUCT);
  NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS sched{NV_TRUE, NV_FALSE, NV_FALSE};
  EXPECT_EQ(rm_control(ch.rm.ctl, ch.rm.client, ch.channel, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sched, sizeof sched),
            NV_ERR_NOT_SUPPORTED);
  EXPECT_EQ(rm_control(ch.rm.ctl, ch.rm.client, ch.group, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sched, 4),
            NV_ERR_INVALID_PARAM_STRUCT);
  // The usermode page maps through /dev/nvidia0 only.
  NV_STATUS s = NV_OK;
  EXPECT_EQ(map_for_cpu(ch.rm, ch.rm.subdevice, ch.usermode, NVC361_NV_USERMODE__SIZE, false, &s), nullptr);
  EXPECT_EQ(s, NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmChannelTest, LegalParents) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  const Rm& rm = ch.rm;
  NV_CHANNEL_ALLOC_PARAMS p = ch.params();
  NvHandle h = 0x5c000300;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, HOPPER_CHANNEL_GPFIFO_A, &p, sizeof p),
            NV_ERR_INVALID_OBJECT_PARENT);
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, ch.group, &h, HOPPER_COMPUTE_A), NV_ERR_INVALID_OBJECT_PARENT);
  NVB0B5_ALLOCATION_PARAMETERS ce{NVB0B5_ALLOCATION_PARAMETERS_VERSION_1, NV2080_ENGINE_TYPE_COPY0};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, ch.group, &h, HOPPER_DMA_COPY_A, &ce, sizeof ce), NV_ERR_INVALID_OBJECT_PARENT);
  NV_CTXSHARE_ALLOCATION_PARAMETERS s{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, FERMI_CONTEXT_SHARE_A, &s, sizeof s),
            NV_ERR_INVALID_OBJECT_PARENT);
  NV_HOPPER_USERMODE_A_PARAMS um{};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, HOPPER_USERMODE_A, &um, sizeof um), NV_ERR_INVALID_OBJECT_PARENT);
  NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS g{};
  g.engineType = NV2080_ENGINE_TYPE_GRAPHICS;
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.subdevice, &h, KEPLER_CHANNEL_GROUP_A, &g, sizeof g),
            NV_ERR_INVALID_OBJECT_PARENT);
}

TEST_F(RmChannelTest, ChannelParameterErrors) {
  ASSERT_NO_FATAL_FAILURE(ch.build_memory());
  NV_CHANNEL_ALLOC_PARAMS p = ch.params();
  EXPECT_EQ(ch.alloc_channel(p, sizeof p - 8), NV_ERR_INVALID_PARAM_STRUCT);
  for (NvU32 entries : {0u, 1u, 1000u, 131072u}) {
    p = ch.params();
    p.gpFifoEntries = entries;
    EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_ARGUMENT) << entries;
  }
  p = ch.params();
  p.gpFifoOffset += 4;
  EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_ARGUMENT);
  p = ch.params();
  p.hUserdMemory[0] = 0x5c0009ff;
  EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_OBJECT_HANDLE);
  p.hUserdMemory[0] = ch.group;  // not memory
  EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_OBJECT_HANDLE);
  p = ch.params();
  p.hContextShare = ch.group;
  EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_OBJECT_HANDLE);
  NvHandle unmapped = 0x5c000400;
  ASSERT_EQ(alloc_sysmem(ch.rm, unmapped, 64 << 10), NV_OK);
  p = ch.params();
  p.hUserdMemory[0] = unmapped;
  EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_STATE);
  p = ch.params();
  p.hObjectError = unmapped;
  EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_STATE);
  for (uint64_t offset : {uint64_t{kBytes}, kBytes - 256, 2 * kBytes, ~uint64_t{0} - 511 /* offset + 512 wraps to 0 */}) {
    p = ch.params();
    p.userdOffset[0] = offset;
    EXPECT_EQ(ch.alloc_channel(p), NV_ERR_INVALID_LIMIT) << offset;
  }
  p = ch.params();
  p.userdOffset[0] = kBytes - NVC56F_USERD_SIZE;  // the last USERD that fits
  EXPECT_EQ(ch.alloc_channel(p), NV_OK);
}

TEST_F(RmChannelTest, EngineObjectAndGroupErrors) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  const Rm& rm = ch.rm;
  NvHandle h = 0x5c000500;
  NVB0B5_ALLOCATION_PARAMETERS bad_version{2, NV2080_ENGINE_TYPE_COPY0};
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, ch.channel, &h, HOPPER_DMA_COPY_A, &bad_version, sizeof bad_version),
            NV_ERR_INVALID_ARGUMENT);
  for (NvU32 engine : {0u, NV2080_ENGINE_TYPE_GRAPHICS, NV2080_ENGINE_TYPE_COPY0 + 64}) {
    NVB0B5_ALLOCATION_PARAMETERS ce{NVB0B5_ALLOCATION_PARAMETERS_VERSION_1, engine};
    EXPECT_EQ(rm_alloc(rm.ctl, rm.client, ch.channel, &h, HOPPER_DMA_COPY_A, &ce, sizeof ce), NV_ERR_INVALID_ARGUMENT);
  }
  NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS g{};
  for (NvU32 engine : {0u, 2u, NV2080_ENGINE_TYPE_COPY0 + 64}) {
    g.engineType = engine;
    EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, KEPLER_CHANNEL_GROUP_A, &g, sizeof g), NV_ERR_INVALID_ARGUMENT);
  }
  g.engineType = NV2080_ENGINE_TYPE_COPY0;  // a copy engine's runlist is fine
  EXPECT_EQ(rm_alloc(rm.ctl, rm.client, rm.device, &h, KEPLER_CHANNEL_GROUP_A, &g, sizeof g), NV_OK);
}

TEST_F(RmChannelTest, UvmMapOfAnUnmappedSysmemObjectIsRefused) {
  Rm rm = make_rm();
  Uvm uvm = make_uvm(rm);
  NvHandle mem = 0x5c000600;
  ASSERT_EQ(alloc_sysmem(rm, mem, 64 << 10), NV_OK);
  void* where = user_pages(64 << 10);
  uint64_t va = reinterpret_cast<uint64_t>(where);
  ASSERT_EQ(uvm_create_range(uvm, va, 64 << 10), NV_OK);
  EXPECT_EQ(uvm_map(uvm, rm.ctl, rm.client, mem, va, 64 << 10), NV_ERR_INVALID_ADDRESS);
  // Mapped, but UVM asked for another address than the CPU's.
  void* cpu = map_for_cpu(rm, rm.device, mem, 64 << 10, false);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(uvm_map(uvm, rm.ctl, rm.client, mem, va, 64 << 10), NV_ERR_INVALID_ADDRESS);
  ASSERT_EQ(uvm_create_range(uvm, reinterpret_cast<uint64_t>(cpu), 64 << 10), NV_OK);
  EXPECT_EQ(uvm_map(uvm, rm.ctl, rm.client, mem, reinterpret_cast<uint64_t>(cpu), 64 << 10), NV_OK);
}

TEST_F(RmChannelTest, CopyFromAnUnmappedAddressWritesTheErrorNotifier) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  uint64_t from = ch.pb_write;
  ch.bind_engines();
  ch.copy_bytes(ch.uvm.va_base + 64 * kMiB, ch.va(ch.semaphore(4)), 64);  // from a VA nobody mapped
  ch.release(ch.semaphore(), 1);
  ch.submit(from);
  ASSERT_TRUE(eventually([&] { return ch.notifier_status() == NV_CHANNELGPFIFO_NOTIFICATION_STATUS_ERROR; }));
  EXPECT_EQ(ch.notifier->info32, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT);
  EXPECT_EQ(ch.notifier->info16, 0u);
  EXPECT_EQ(load64(ch.semaphore()), 0u);  // the release after the fault never ran
  // A faulted channel stays stopped.
  from = ch.pb_write;
  ch.release(ch.semaphore(), 2);
  ch.submit(from);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(load64(ch.semaphore()), 0u);
  EXPECT_EQ(rm_free(ch.rm.ctl, ch.rm.client, ch.rm.device, ch.group), NV_OK);
}

// RM writes the notifier object, not whatever the process has at the address it once mapped it:
// unmapping it (and mapping something else) must neither crash the GPU's thread nor corrupt the
// new memory, and a new mapping of the object shows the error.
TEST_F(RmChannelTest, TheErrorNotifierIsTheObjectNotTheAddress) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  ASSERT_EQ(k::sys_munmap(ch.notifier, k::kPageSize), 0);
  auto* other = static_cast<uint8_t*>(user_pages(k::kPageSize));
  std::memset(other, 0x5a, k::kPageSize);
  uint64_t from = ch.pb_write;
  ch.bind_engines();
  ch.copy_bytes(ch.uvm.va_base, ch.va(ch.semaphore(4)), 8);  // from an unmapped address
  ch.submit(from);
  auto* again = static_cast<NvNotification*>(map_for_cpu(ch.rm, ch.rm.device, ch.notifier_memory, k::kPageSize, false));
  ASSERT_NE(again, nullptr);
  ch.notifier = again;
  ASSERT_TRUE(eventually([&] { return ch.notifier_status() == NV_CHANNELGPFIFO_NOTIFICATION_STATUS_ERROR; }));
  EXPECT_EQ(again->info32, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT);
  for (size_t i = 0; i < k::kPageSize; ++i) ASSERT_EQ(other[i], 0x5a) << i;
}

TEST_F(RmChannelTest, FreeingTheGroupFreesTheChannel) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  uint64_t from = ch.pb_write;
  ch.bind_engines();
  ch.release(ch.semaphore(), 1);
  ch.submit(from);
  ASSERT_TRUE(eventually([&] { return load64(ch.semaphore()) == 1; }));
  ASSERT_EQ(rm_free(ch.rm.ctl, ch.rm.client, ch.rm.device, ch.group), NV_OK);
  NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS t{};
  EXPECT_EQ(rm_control(ch.rm.ctl, ch.rm.client, ch.channel, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &t, sizeof t),
            NV_ERR_INVALID_OBJECT_HANDLE);
  for (NvHandle h : {ch.share, ch.compute, ch.copy}) EXPECT_EQ(rm_free(ch.rm.ctl, ch.rm.client, 0, h), NV_ERR_INVALID_OBJECT_HANDLE);
  // The memory is still mapped for the GPU, but no channel reads it any more.
  from = ch.pb_write;
  ch.release(ch.semaphore(), 2);
  ch.submit(from);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(load64(ch.semaphore()), 1u);
  EXPECT_NE(load32(ch.userd32(NVC56F_USERD_GP_GET)), ch.gp_put);
  // The memory can serve a new channel of a new group (its USERD reset by the process first).
  std::atomic_ref<uint32_t>(*ch.userd32(NVC56F_USERD_GP_GET)).store(0);
  std::atomic_ref<uint32_t>(*ch.userd32(NVC56F_USERD_GP_PUT)).store(0);
  ch.gp_put = 0;
  ch.extended_base_written = false;
  NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS g{};
  g.engineType = NV2080_ENGINE_TYPE_GRAPHICS;
  ASSERT_EQ(rm_alloc(ch.rm.ctl, ch.rm.client, ch.rm.device, &ch.group, KEPLER_CHANNEL_GROUP_A, &g, sizeof g), NV_OK);
  NV_CHANNEL_ALLOC_PARAMS p = ch.params();
  p.hContextShare = 0;
  ASSERT_EQ(ch.alloc_channel(p), NV_OK);
  EXPECT_NE(ch.cid, ch.token);  // a new id, which is its token
  ch.token = ch.cid;
  from = ch.pb_write;
  ch.release(ch.semaphore(), 3);
  ch.submit(from);
  ASSERT_TRUE(eventually([&] { return load64(ch.semaphore()) == 3; }));
}

// The process munmaps the channel's memory (ring, USERD, pushbuffer) while the GPU runs from
// it. Its mapping goes, but UVM's pin keeps the pages for the GPU, as nvidia.ko keeps RM system
// memory: the work already submitted completes without a fault, and only freeing the channel's
// memory object gives the pages back.
TEST_F(RmChannelTest, MunmapOfLiveChannelMemoryLeavesThePagesToTheGpu) {
  ASSERT_NO_FATAL_FAILURE(ch.build());
  uint64_t from = ch.pb_write;
  ch.bind_engines();
  for (uint64_t i = 1; i <= 500; ++i) ch.release(ch.semaphore(), i);
  ch.submit(from);
  ASSERT_EQ(k::sys_munmap(ch.base, kBytes), 0);
  k::AddressSpace& mm = k::current().mm();
  EXPECT_FALSE(mm.is_mapped(ch.va(ch.base), 1, k::kProtRead));
  // (Reading the orphaned pages is the test peeking at what the GPU sees.)
  EXPECT_TRUE(eventually([&] { return load64(ch.semaphore()) == 500; }));
  EXPECT_EQ(ch.notifier_status(), 0u);
  void* again = k::sys_mmap(nullptr, kBytes, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_NE(again, static_cast<void*>(ch.base));  // still the GPU's
  ASSERT_EQ(k::sys_munmap(again, kBytes), 0);
  // Freeing the memory object unmaps it from the GPU (the channel faults if it runs again) and
  // drops the pin: the pages are gone and the range can be handed out again.
  NvHandle channel = ch.channel;
  ASSERT_EQ(rm_free(ch.rm.ctl, ch.rm.client, ch.group, channel), NV_OK);
  ASSERT_EQ(rm_free(ch.rm.ctl, ch.rm.client, ch.rm.device, ch.memory), NV_OK);
  again = k::sys_mmap(nullptr, kBytes, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_EQ(again, static_cast<void*>(ch.base));
}

// Closing the control fd frees the client and with it the channel, while the device thread may be
// in the middle of its work; under ASan this shows whether it touches freed memory.
TEST_F(RmChannelTest, ClosingTheControlFdFreesEverythingWhileTheGpuRuns) {
  for (int round = 0; round < 8; ++round) {
    Channel c;
    ASSERT_NO_FATAL_FAILURE(c.build());
    uint64_t from = c.pb_write;
    c.bind_engines();
    for (uint64_t i = 1; i <= 200; ++i) c.release(c.semaphore(), i);
    c.submit(from);
    if (round % 2 == 1) {  // and a fault racing with the free
      from = c.pb_write;
      c.copy_bytes(c.uvm.va_base, c.va(c.semaphore(4)), 8);
      c.submit(from);
    }
    if (round >= 4) std::this_thread::sleep_for(std::chrono::microseconds(100 * round));
    EXPECT_EQ(k::sys_close(c.rm.ctl), 0);
    // The channel went with the client: new work is not run.
    uint64_t seen = load64(c.semaphore());
    from = c.pb_write;
    c.release(c.semaphore(), 1000);
    c.submit(from);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_NE(load64(c.semaphore()), 1000u);
    EXPECT_LE(seen, 200u);
    EXPECT_EQ(k::sys_close(c.uvm.fd), 0);
  }
}

}  // namespace
}  // namespace nvtest
