// RM controls (NV_ESC_RM_CONTROL): queries and commands addressed to one object.
//
// A control id carries its class in its top 16 bits (0x2080xxxx are NV20_SUBDEVICE_0 controls,
// 0x0000xxxx the client's), so a control sent to an object of another class is
// NV_ERR_NOT_SUPPORTED, as is an unknown id. Each control below says what it answers; the values
// come from the device's properties (what the real RM reads from the GPU).
#include <cstring>

#include "minicuda/trace.h"
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {

template <typename T>
T* as(void* params, NvU32 size, NV_STATUS* status) {
  if (size != sizeof(T)) {
    *status = NV_ERR_INVALID_PARAM_STRUCT;
    return nullptr;
  }
  return static_cast<T*>(params);
}

NV_STATUS copy_string_out(NvP64 dst, const char* s, NvU32 max) {
  if (dst == 0) return NV_OK;
  size_t n = std::strlen(s) + 1;
  if (n > max) return NV_ERR_BUFFER_TOO_SMALL;
  return kernel::copy_to_user(nv_p64_to_ptr<void>(dst), s, n) == 0 ? NV_OK : NV_ERR_INVALID_ADDRESS;
}

// --- NV01_ROOT_CLIENT controls --------------------------------------------------------------

NV_STATUS build_version(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS>(params, size, &st);
  if (!p) return st;
  NvU32 max = p->sizeOfStrings;
  p->sizeOfStrings = static_cast<NvU32>(std::strlen(kNvDriverVersion) + 1);
  p->changelistNumber = p->officialChangelistNumber = 0;
  if (max == 0) return NV_OK;  // the size query
  if ((st = copy_string_out(p->pDriverVersionBuffer, kNvDriverVersion, max)) != NV_OK) return st;
  if ((st = copy_string_out(p->pVersionBuffer, kNvDriverVersion, max)) != NV_OK) return st;
  return copy_string_out(p->pTitleBuffer, "minicuda nvidia.ko", max);
}

NV_STATUS attached_ids(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS>(params, size, &st);
  if (!p) return st;
  for (auto& id : p->gpuIds) id = NV0000_CTRL_GPU_INVALID_ID;
  for (int i = 0; i < nv_gpu_count(); ++i) p->gpuIds[i] = nv_gpu_id(i);
  return NV_OK;
}

NV_STATUS probed_ids(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS>(params, size, &st);
  if (!p) return st;
  for (auto& id : p->gpuIds) id = NV0000_CTRL_GPU_INVALID_ID;
  for (auto& id : p->excludedGpuIds) id = NV0000_CTRL_GPU_INVALID_ID;
  for (int i = 0; i < nv_gpu_count(); ++i) p->gpuIds[i] = nv_gpu_id(i);
  return NV_OK;
}

NV_STATUS attach_ids(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV0000_CTRL_GPU_ATTACH_IDS_PARAMS>(params, size, &st);
  if (!p) return st;
  for (NvU32 id : p->gpuIds) {
    if (id == NV0000_CTRL_GPU_INVALID_ID) break;
    bool known = id == 0x0000FFFF;  // ATTACH_ALL_PROBED_IDS
    for (int i = 0; i < nv_gpu_count(); ++i) known = known || id == nv_gpu_id(i);
    if (!known) {
      p->failedId = id;
      return NV_ERR_INVALID_ARGUMENT;
    }
  }
  return NV_OK;
}

NV_STATUS id_info_v2(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS>(params, size, &st);
  if (!p) return st;
  int gpu = -1;
  for (int i = 0; i < nv_gpu_count(); ++i) {
    if (p->gpuId == nv_gpu_id(i)) gpu = i;
  }
  if (gpu < 0) return NV_ERR_INVALID_ARGUMENT;
  p->gpuFlags = NV0000_CTRL_GPU_ID_INFO_IN_USE_BIT;
  p->deviceInstance = static_cast<NvU32>(gpu);
  p->subDeviceInstance = 0;
  p->sliStatus = 0;
  p->boardId = 0;
  p->gpuInstance = 0;
  p->numaId = -1;
  return NV_OK;
}

NV_STATUS addr_space_type(RmClient& client, void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS>(params, size, &st);
  if (!p) return st;
  auto it = client.objects.find(p->hObject);
  if (it == client.objects.end()) return NV_ERR_OBJECT_NOT_FOUND;
  switch (it->second.hclass) {
    case NV01_MEMORY_LOCAL_USER: p->addrSpaceType = NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM; break;
    case NV01_MEMORY_SYSTEM:
    case NV01_MEMORY_SYSTEM_OS_DESCRIPTOR: p->addrSpaceType = NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM; break;
    default: return NV_ERR_INVALID_ARGUMENT;
  }
  return NV_OK;
}

// --- NV20_SUBDEVICE_0 controls --------------------------------------------------------------

NV_STATUS name_string(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS>(params, size, &st);
  if (!p) return st;
  const std::string& name = nv_device().properties().name;
  std::memset(&p->gpuNameString, 0, sizeof p->gpuNameString);
  if (p->gpuNameStringFlags == NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII) {
    std::memcpy(p->gpuNameString.ascii, name.c_str(), std::min<size_t>(name.size(), NV2080_GPU_MAX_NAME_STRING_LENGTH - 1));
  } else if (p->gpuNameStringFlags == NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE) {
    for (size_t i = 0; i < name.size() && i + 1 < NV2080_GPU_MAX_NAME_STRING_LENGTH; ++i) p->gpuNameString.unicode[i] = name[i];
  } else {
    return NV_ERR_INVALID_ARGUMENT;
  }
  return NV_OK;
}

NV_STATUS gid_info(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_GPU_GET_GID_INFO_PARAMS>(params, size, &st);
  if (!p) return st;
  const uint8_t* uuid = nv_gpu_uuid(nv_selected_gpu());
  std::memset(p->data, 0, sizeof p->data);
  if (p->flags == NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY) {
    std::memcpy(p->data, uuid, 16);
    p->length = 16;
    return NV_OK;
  }
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    s += fmt::format("{:02x}", uuid[i]);
    if (i == 3 || i == 5 || i == 7 || i == 9) s += '-';
  }
  std::memcpy(p->data, s.c_str(), s.size() + 1);
  p->length = static_cast<NvU32>(s.size() + 1);
  return NV_OK;
}

NV_STATUS fb_info(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_FB_GET_INFO_V2_PARAMS>(params, size, &st);
  if (!p) return st;
  if (p->fbInfoListSize > NV2080_CTRL_FB_INFO_MAX_LIST_SIZE) return NV_ERR_INVALID_ARGUMENT;
  const gpu::DeviceProperties& props = nv_device().properties();
  for (NvU32 i = 0; i < p->fbInfoListSize; ++i) {
    NV2080_CTRL_FB_INFO& e = p->fbInfoList[i];
    switch (e.index) {
      case NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE:
      case NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE: e.data = static_cast<NvU32>(props.vram_bytes >> 10); break;
      case NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE:
      case NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE: e.data = static_cast<NvU32>(props.total_global_mem >> 10); break;
      case NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE: {
        // The heap is totalGlobalMem; the PMA works in whole 2 MiB pages of it, so report what is
        // not allocated rather than the PMA's (rounded-down) free count.
        uint64_t used = nv_pma().size() - nv_pma().free_bytes();
        e.data = static_cast<NvU32>((props.total_global_mem - used) >> 10);
        break;
      }
      case NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH: e.data = static_cast<NvU32>(props.memory_bus_width); break;
      case NV2080_CTRL_FB_INFO_INDEX_RAM_TYPE: e.data = NV2080_CTRL_FB_INFO_RAM_TYPE_HBM3; break;
      case NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE: e.data = static_cast<NvU32>(props.l2_cache_bytes); break;
      case NV2080_CTRL_FB_INFO_INDEX_HEAP_BASE_KB:
      case NV2080_CTRL_FB_INFO_INDEX_HEAP_START: e.data = 0; break;
      default: return NV_ERR_INVALID_ARGUMENT;
    }
  }
  return NV_OK;
}

NV_STATUS arch_info(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS>(params, size, &st);
  if (!p) return st;
  p->architecture = NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GH100;  // both presets are Hopper (cc 9.0)
  p->implementation = NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GH100;
  p->revision = 0xa1;
  p->subRevision = NV2080_CTRL_MC_ARCH_INFO_SUBREVISION_NO_SUBREVISION;
  return NV_OK;
}

// GR info: the list lives in user memory (grInfoList), so it is copied in and out here.
NV_STATUS gr_info(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_GR_GET_INFO_PARAMS>(params, size, &st);
  if (!p) return st;
  if (p->grInfoListSize == 0 || p->grInfoListSize > NV2080_CTRL_GR_INFO_MAX_SIZE) return NV_ERR_INVALID_ARGUMENT;
  std::vector<NV2080_CTRL_GR_INFO> list(p->grInfoListSize);
  size_t bytes = list.size() * sizeof(NV2080_CTRL_GR_INFO);
  if (kernel::copy_from_user(list.data(), nv_p64_to_ptr<void>(p->grInfoList), bytes) != 0) return NV_ERR_INVALID_ADDRESS;
  const gpu::DeviceProperties& props = nv_device().properties();
  const NvU32 sms = static_cast<NvU32>(props.multiprocessor_count);
  // The chip's layout: the H200's GH100 has 8 GPCs of 9 TPCs of 2 SMs, 132 of its 144 SMs enabled
  // (tests/data/h200/ctxmem/out/ctxmem_ranges.txt, grinfo); a small GPU, one GPC of all its TPCs.
  const NvU32 gpcs = sms >= 16 ? 8 : 1, tpcs_per_gpc = sms >= 16 ? 9 : sms / 2, sms_per_tpc = 2;
  for (NV2080_CTRL_GR_INFO& e : list) {
    switch (e.index) {
      case NV2080_CTRL_GR_INFO_INDEX_SM_VERSION: e.data = static_cast<NvU32>((props.major << 8) | props.minor); break;
      case NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM: e.data = static_cast<NvU32>(props.max_threads_per_sm / props.warp_size); break;
      case NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP: e.data = static_cast<NvU32>(props.warp_size); break;
      case NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC: e.data = sms_per_tpc; break;
      case NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT: e.data = sms / sms_per_tpc; break;  // enabled TPCs
      case NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS: e.data = gpcs; break;
      case NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC: e.data = tpcs_per_gpc; break;
      // The SMs local memory is sized for: the enabled ones (the H200 reports 132).
      case NV2080_CTRL_GR_INFO_INDEX_THREAD_STACK_SCALING_FACTOR: e.data = sms; break;
      case NV2080_CTRL_GR_INFO_INDEX_MAX_SP_PER_SM: e.data = 128; break;
      case NV2080_CTRL_GR_INFO_INDEX_GPU_CORE_COUNT: e.data = sms * 128; break;
      case NV2080_CTRL_GR_INFO_INDEX_MAX_SUBCONTEXT_COUNT: e.data = 64; break;
      default: return NV_ERR_INVALID_ARGUMENT;
    }
  }
  return kernel::copy_to_user(nv_p64_to_ptr<void>(p->grInfoList), list.data(), bytes) == 0 ? NV_OK : NV_ERR_INVALID_ADDRESS;
}

NV_STATUS pci_info(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS>(params, size, &st);
  if (!p) return st;
  const gpu::DeviceProperties& props = nv_device().properties();
  p->pciDeviceId = (static_cast<NvU32>(props.pci_device_id) << 16) | props.pci_vendor_id;
  p->pciSubSystemId = p->pciDeviceId;
  p->pciRevisionId = 0xa1;
  p->pciExtDeviceId = props.pci_device_id;
  return NV_OK;
}

NV_STATUS engines(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS>(params, size, &st);
  if (!p) return st;
  std::memset(p, 0, sizeof *p);
  p->engineList[p->engineCount++] = NV2080_ENGINE_TYPE_GRAPHICS;
  for (int i = 0; i < nv_device().properties().async_engine_count; ++i) {
    p->engineList[p->engineCount++] = NV2080_ENGINE_TYPE_COPY0 + static_cast<NvU32>(i);
  }
  return NV_OK;
}

NV_STATUS work_submit_token(const RmObject& channel, void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS>(params, size, &st);
  if (!p) return st;
  p->workSubmitToken = channel.chid;  // what the doorbell receives for this channel
  return NV_OK;
}

NV_STATUS gpfifo_schedule(void* params, NvU32 size) {
  NV_STATUS st = NV_OK;
  auto* p = as<NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS>(params, size, &st);
  if (!p) return st;
  return NV_OK;  // every channel group is on the runlist from its creation in this model
}

}  // namespace

bool rm_control_applies(NvU32 ctrl_class, NvU32 hclass) {
  if (ctrl_class == hclass) return true;
  // Channel controls are defined once per family and apply to the later channel classes.
  bool channel = hclass == HOPPER_CHANNEL_GPFIFO_A;
  return channel && (ctrl_class == 0xC36F || ctrl_class == 0x906F);
}

// Contract: runs p->cmd on p->hObject of p->hClient with the user's params (copied in and out
// here). Returns NV_OK, NV_ERR_INVALID_CLIENT, NV_ERR_INVALID_OBJECT_HANDLE, NV_ERR_NOT_SUPPORTED,
// NV_ERR_INVALID_PARAM_STRUCT, NV_ERR_INVALID_ADDRESS or the control's own status.
NV_STATUS rm_control(kernel::File* file, NVOS54_PARAMETERS* p) {
  RmClient* client = rm_client(file, p->hClient);
  if (!client) return NV_ERR_INVALID_CLIENT;
  auto it = client->objects.find(p->hObject);
  if (it == client->objects.end()) return NV_ERR_INVALID_OBJECT_HANDLE;
  NvU32 owner_class = p->cmd >> 16;
  NvU32 object_class = it->second.hclass == NV01_ROOT_CLIENT ? 0 : it->second.hclass;
  nv_select_gpu(it->second.gpu);
  if (!rm_control_applies(owner_class, object_class)) return NV_ERR_NOT_SUPPORTED;
  if (p->paramsSize > 16384 || (p->paramsSize && p->params == 0)) return NV_ERR_INVALID_PARAM_STRUCT;
  std::vector<unsigned char> buf(p->paramsSize);
  void* user = nv_p64_to_ptr<void>(p->params);
  if (p->paramsSize && kernel::copy_from_user(buf.data(), user, buf.size()) != 0) return NV_ERR_INVALID_ADDRESS;
  void* params = buf.data();
  NvU32 size = p->paramsSize;
  NV_STATUS st;
  switch (p->cmd) {
    case NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION: st = build_version(params, size); break;
    case NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS: st = attached_ids(params, size); break;
    case NV0000_CTRL_CMD_GPU_GET_PROBED_IDS: st = probed_ids(params, size); break;
    case NV0000_CTRL_CMD_GPU_ATTACH_IDS: st = attach_ids(params, size); break;
    case NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: st = id_info_v2(params, size); break;
    case NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE: st = addr_space_type(*client, params, size); break;
    case NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD: st = rm_export_object_to_fd(file, *client, params, size); break;
    case NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD: st = rm_import_object_from_fd(file, *client, params, size); break;
    case NV2080_CTRL_CMD_GPU_GET_NAME_STRING: st = name_string(params, size); break;
    case NV2080_CTRL_CMD_GPU_GET_GID_INFO: st = gid_info(params, size); break;
    case NV2080_CTRL_CMD_FB_GET_INFO_V2: st = fb_info(params, size); break;
    case NV2080_CTRL_CMD_MC_GET_ARCH_INFO: st = arch_info(params, size); break;
    case NV2080_CTRL_CMD_GR_GET_INFO: st = gr_info(params, size); break;
    case NV2080_CTRL_CMD_BUS_GET_PCI_INFO: st = pci_info(params, size); break;
    case NV2080_CTRL_CMD_GPU_GET_ENGINES_V2: st = engines(params, size); break;
    case NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN: st = work_submit_token(it->second, params, size); break;
    case NVA06C_CTRL_CMD_GPFIFO_SCHEDULE: st = gpfifo_schedule(params, size); break;
    default: return NV_ERR_NOT_SUPPORTED;
  }
  if (p->paramsSize && kernel::copy_to_user(user, buf.data(), buf.size()) != 0) return NV_ERR_INVALID_ADDRESS;
  return st;
}

}  // namespace minicuda::nvidia
