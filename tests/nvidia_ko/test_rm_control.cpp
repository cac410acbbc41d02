// rm_control.cpp: NV_ESC_RM_CONTROL - each implemented control answers the device's properties,
// and the dispatcher refuses controls of the wrong class, unknown ids, bad sizes and flags.
#include "nv_test_util.h"

using namespace nvtest;

namespace {
class RmControl : public NvTest {};

constexpr NvU32 kGpuId = 0x000;  // bus 0 << 8, as RM derives gpuId from the PCI location

NvU32 gr(const Rm& rm, NvU32 index) {
  NV2080_CTRL_GR_INFO info{index, 0xdeadbeef};
  NV2080_CTRL_GR_GET_INFO_PARAMS p{};
  p.grInfoListSize = 1;
  p.grInfoList = nv_ptr_to_p64(&info);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_OK) << index;
  return info.data;
}
}  // namespace

TEST_F(RmControl, NameString) {
  Rm rm = make_rm();
  NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS p{};
  std::memset(&p.gpuNameString, 0x55, sizeof p.gpuNameString);
  p.gpuNameStringFlags = NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII;
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &p, sizeof p), NV_OK);
  EXPECT_STREQ(reinterpret_cast<const char*>(p.gpuNameString.ascii), "NVIDIA H200");
  p.gpuNameStringFlags = NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE;
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &p, sizeof p), NV_OK);
  EXPECT_EQ(p.gpuNameString.unicode[0], u'N');
  EXPECT_EQ(p.gpuNameString.unicode[10], u'0');
  EXPECT_EQ(p.gpuNameString.unicode[11], 0);
  p.gpuNameStringFlags = 7;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &p, sizeof p),
            NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmControl, FbInfoSizesInKiB) {
  Rm rm = make_rm();
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE), 143771u * 1024);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE), 143771u * 1024);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE), 150109880320u >> 10);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE), 150109880320u >> 10);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_RAM_TYPE), NV2080_CTRL_FB_INFO_RAM_TYPE_HBM3);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE), 62914560u);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH), 6016u);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_START), 0u);
  // The PMA manages whole 2 MiB chunks of the heap.
  EXPECT_LE(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE), 150109880320u >> 10);
}

TEST_F(RmControl, FbHeapFreeDropsBy2MiBPerVidmemAllocation) {
  Rm rm = make_rm();
  NvU32 before = fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, 4096), NV_OK);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE), before - 2048);
  ASSERT_EQ(alloc_vidmem(rm, 0x5c000101, k2M), NV_OK);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE), before - 4096);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_EQ(fb_info(rm, NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE), before - 2048);
}

TEST_F(RmControl, FbInfoRefusesUnknownIndexAndOversizedList) {
  Rm rm = make_rm();
  NV2080_CTRL_FB_GET_INFO_V2_PARAMS p{};
  p.fbInfoListSize = 1;
  p.fbInfoList[0].index = 0x7f;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, &p, sizeof p),
            NV_ERR_INVALID_ARGUMENT);
  p.fbInfoListSize = NV2080_CTRL_FB_INFO_MAX_LIST_SIZE + 1;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, &p, sizeof p),
            NV_ERR_INVALID_ARGUMENT);
}

TEST_F(RmControl, GrInfo) {
  Rm rm = make_rm();
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_SM_VERSION), 0x900u);
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT) * gr(rm, NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC),
            132u);
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM), 64u);
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP), 32u);
  // GH100's layout, 8 GPCs x 9 TPCs x 2 SMs; stacks scale with the 132 enabled SMs (the H200's
  // answers, tests/data/h200/ctxmem/out/ctxmem_ranges.txt; libcuda sizes a context's local memory
  // by it: driver/user/src/context_reserve.h).
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS), 8u);
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC), 9u);
  EXPECT_EQ(gr(rm, NV2080_CTRL_GR_INFO_INDEX_THREAD_STACK_SCALING_FACTOR), 132u);
  // Several entries in one call.
  NV2080_CTRL_GR_INFO list[2] = {{NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP, 0}, {NV2080_CTRL_GR_INFO_INDEX_SM_VERSION, 0}};
  NV2080_CTRL_GR_GET_INFO_PARAMS p{};
  p.grInfoListSize = 2;
  p.grInfoList = nv_ptr_to_p64(list);
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_OK);
  EXPECT_EQ(list[0].data, 32u);
  EXPECT_EQ(list[1].data, 0x900u);
}

TEST_F(RmControl, GrInfoErrors) {
  Rm rm = make_rm();
  NV2080_CTRL_GR_INFO info{0x3f, 0};
  NV2080_CTRL_GR_GET_INFO_PARAMS p{};
  p.grInfoListSize = 1;
  p.grInfoList = nv_ptr_to_p64(&info);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
  p.grInfoListSize = 0;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
  p.grInfoListSize = 1;
  p.grInfoList = 0x1000;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ADDRESS);
}

TEST_F(RmControl, ArchGidPciAndEngines) {
  Rm rm = make_rm();
  NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS arch{};
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_MC_GET_ARCH_INFO, &arch, sizeof arch), NV_OK);
  EXPECT_EQ(arch.architecture, 0x180u);
  EXPECT_EQ(arch.implementation, NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GH100);

  NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gid{};
  gid.flags = NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY;
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid, sizeof gid), NV_OK);
  EXPECT_EQ(gid.length, 16u);
  const uint8_t uuid[16] = {0x6d, 0x69, 0x6e, 0x69, 0x63, 0x75, 0x64, 0x61, 0x82, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(std::memcmp(gid.data, uuid, 16), 0);
  gid.flags = NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_ASCII;
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid, sizeof gid), NV_OK);
  EXPECT_STREQ(reinterpret_cast<const char*>(gid.data), "GPU-6d696e69-6375-6461-8200-000000000001");
  EXPECT_EQ(gid.length, 41u);

  NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS pci{};
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_BUS_GET_PCI_INFO, &pci, sizeof pci), NV_OK);
  EXPECT_EQ(pci.pciDeviceId, 0x233510deu);

  NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS eng{};
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, &eng, sizeof eng), NV_OK);
  ASSERT_EQ(eng.engineCount, 4u);
  EXPECT_EQ(eng.engineList[0], NV2080_ENGINE_TYPE_GRAPHICS);
  EXPECT_EQ(eng.engineList[1], NV2080_ENGINE_TYPE_COPY0);
  EXPECT_EQ(eng.engineList[2], NV2080_ENGINE_TYPE_COPY0 + 1);
  EXPECT_EQ(eng.engineList[3], NV2080_ENGINE_TYPE_COPY0 + 2);
}

TEST_F(RmControl, ClientControls) {
  Rm rm = make_rm();
  NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS v{};
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &v, sizeof v), NV_OK);
  EXPECT_EQ(v.sizeOfStrings, 11u);  // "580.159.04" + NUL
  char drv[16] = {}, ver[16] = {}, title[32] = {};
  v.pDriverVersionBuffer = nv_ptr_to_p64(drv);
  v.pVersionBuffer = nv_ptr_to_p64(ver);
  v.pTitleBuffer = nv_ptr_to_p64(title);
  v.sizeOfStrings = 32;
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &v, sizeof v), NV_OK);
  EXPECT_STREQ(drv, "580.159.04");
  EXPECT_STREQ(ver, "580.159.04");
  v.sizeOfStrings = 4;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &v, sizeof v),
            NV_ERR_BUFFER_TOO_SMALL);

  NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS ids{};
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &ids, sizeof ids), NV_OK);
  EXPECT_EQ(ids.gpuIds[0], kGpuId);
  EXPECT_EQ(ids.gpuIds[1], NV0000_CTRL_GPU_INVALID_ID);

  NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS info{};
  info.gpuId = kGpuId;
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &info, sizeof info), NV_OK);
  EXPECT_EQ(info.deviceInstance, 0u);
  EXPECT_EQ(info.numaId, -1);
  info.gpuId = 0x4100;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &info, sizeof info),
            NV_ERR_INVALID_ARGUMENT);

  NV0000_CTRL_GPU_ATTACH_IDS_PARAMS attach{};
  for (auto& id : attach.gpuIds) id = NV0000_CTRL_GPU_INVALID_ID;
  attach.gpuIds[0] = NV0000_CTRL_GPU_ATTACH_ALL_PROBED_IDS;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_GPU_ATTACH_IDS, &attach, sizeof attach), NV_OK);
  attach.gpuIds[0] = 0x4100;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_GPU_ATTACH_IDS, &attach, sizeof attach),
            NV_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(attach.failedId, 0x4100u);

  ASSERT_EQ(alloc_vidmem(rm, 0x5c000100, k2M), NV_OK);
  NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS t{0x5c000100, 0, 0};
  ASSERT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, &t, sizeof t), NV_OK);
  EXPECT_EQ(t.addrSpaceType, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM);
  t.hObject = rm.device;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, &t, sizeof t),
            NV_ERR_INVALID_ARGUMENT);
  t.hObject = 0x5c0000ff;
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, &t, sizeof t),
            NV_ERR_OBJECT_NOT_FOUND);
}

TEST_F(RmControl, WrongClassOrUnknownCmdIsNotSupported) {
  Rm rm = make_rm();
  NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS name{};
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.device, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name),
            NV_ERR_NOT_SUPPORTED);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.client, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name),
            NV_ERR_NOT_SUPPORTED);
  NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS ids{};
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &ids, sizeof ids),
            NV_ERR_NOT_SUPPORTED);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, 0x20809999, &ids, sizeof ids), NV_ERR_NOT_SUPPORTED);
  NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS cl{};
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &cl, sizeof cl),
            NV_ERR_NOT_SUPPORTED);
}

TEST_F(RmControl, BadParamsSizeObjectFlagsAndPointer) {
  Rm rm = make_rm();
  NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS name{};
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, 4),
            NV_ERR_INVALID_PARAM_STRUCT);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, nullptr, sizeof name),
            NV_ERR_INVALID_PARAM_STRUCT);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, nullptr, 0),
            NV_ERR_INVALID_PARAM_STRUCT);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, 0x5c0000ff, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name),
            NV_ERR_INVALID_OBJECT_HANDLE);
  EXPECT_EQ(rm_control(rm.ctl, rm.client + 0x100, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name),
            NV_ERR_INVALID_CLIENT);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name, 0x8),
            NV_ERR_INVALID_FLAGS);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, sizeof name,
                       NVOS54_FLAGS_IRQL_RAISED | NVOS54_FLAGS_LOCK_BYPASS | NVOS54_FLAGS_FINN_SERIALIZED),
            NV_OK);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING,
                       reinterpret_cast<void*>(0x1000), sizeof name),
            NV_ERR_INVALID_ADDRESS);
  EXPECT_EQ(rm_control(rm.ctl, rm.client, rm.subdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name, 16385),
            NV_ERR_INVALID_PARAM_STRUCT);
}
