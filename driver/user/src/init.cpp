// cuInit: how libcuda finds the GPUs.
//
//   open("/dev/nvidiactl")                        the control node
//   ioctl NV_ESC_SYS_PARAMS, NV_ESC_CARD_INFO     which GPUs the kernel module probed
//   RM_ALLOC NV01_ROOT                            this process's RM client (0xc1d0000N)
//   RM_CONTROL GET_BUILD_VERSION                  driver/library version handshake
//   RM_CONTROL GPU_GET_ATTACHED_IDS, ID_INFO_V2   the GPU ids and their device instances
//   CUDA_VISIBLE_DEVICES                          which of them, in which order (visible_devices)
//   open("/dev/nvidiaN") + NV_ESC_REGISTER_FD     each visible GPU's node, bound to the control fd
//   RM_ALLOC NV01_DEVICE_0, NV20_SUBDEVICE_0      each visible GPU's objects in the client
//   RM_CONTROL name, FB, arch, GR, GID, PCI, engines: the properties cuDeviceGetAttribute reports
//
// After cuInit, cuDevice* queries answer from memory: they make no system call.
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "libcuda.h"
#include "memcheck.h"

namespace minicuda::libcuda {

namespace {

struct ProcessDrivers {
  std::map<int, std::unique_ptr<Driver>> by_pid;  // guarded by driver_mutex()
};
ProcessDrivers& drivers() {
  static ProcessDrivers* d = new ProcessDrivers;  // outlives static destruction
  return *d;
}

template <typename T>
NV_STATUS control(NvHandle hObject, NvU32 cmd, T* params) {
  return rm_control(driver().hClient, hObject, cmd, params, sizeof(T));
}

NV_STATUS fb_info(NvHandle hSubdevice, std::initializer_list<NvU32> indices, std::vector<uint64_t>* kib) {
  NV2080_CTRL_FB_GET_INFO_V2_PARAMS p{};
  for (NvU32 index : indices) p.fbInfoList[p.fbInfoListSize++].index = index;
  NV_STATUS s = control(hSubdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, &p);
  for (NvU32 i = 0; i < p.fbInfoListSize; ++i) kib->push_back(p.fbInfoList[i].data);
  return s;
}

// Reads one GPU's properties through RM controls on its subdevice.
NV_STATUS read_properties(DeviceInfo& dev) {
  NV_STATUS s;
  NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS name{};
  name.gpuNameStringFlags = NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII;
  if ((s = control(dev.hSubdevice, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &name)) != NV_OK) return s;
  dev.name = reinterpret_cast<const char*>(name.gpuNameString.ascii);

  std::vector<uint64_t> fb;
  s = fb_info(dev.hSubdevice,
              {NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE, NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE,
               NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH, NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE},
              &fb);
  if (s != NV_OK) return s;
  dev.vram_bytes = fb[0] << 10;
  dev.total_mem = fb[1] << 10;
  dev.memory_bus_width = static_cast<int>(fb[2]);
  dev.l2_cache_bytes = static_cast<int>(fb[3]);

  NV2080_CTRL_GR_INFO gr[5] = {{NV2080_CTRL_GR_INFO_INDEX_SM_VERSION, 0},
                               {NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM, 0},
                               {NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT, 0},
                               {NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC, 0},
                               {NV2080_CTRL_GR_INFO_INDEX_THREAD_STACK_SCALING_FACTOR, 0}};
  NV2080_CTRL_GR_GET_INFO_PARAMS grp{};
  grp.grInfoListSize = 5;
  grp.grInfoList = nv_ptr_to_p64(gr);
  if ((s = control(dev.hSubdevice, NV2080_CTRL_CMD_GR_GET_INFO, &grp)) != NV_OK) return s;
  dev.major = static_cast<int>(gr[0].data >> 8);
  dev.minor = static_cast<int>(gr[0].data & 0xff);
  dev.max_warps_per_sm = static_cast<int>(gr[1].data);
  dev.sm_count = static_cast<int>(gr[2].data * gr[3].data);
  dev.stack_scaling_sms = static_cast<int>(gr[4].data);

  NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gid{};
  gid.flags = NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY;
  if ((s = control(dev.hSubdevice, NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid)) != NV_OK) return s;
  std::memcpy(dev.uuid.bytes, gid.data, sizeof dev.uuid.bytes);

  NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS pci{};
  if ((s = control(dev.hSubdevice, NV2080_CTRL_CMD_BUS_GET_PCI_INFO, &pci)) != NV_OK) return s;
  dev.pci_device_id = static_cast<int>(pci.pciDeviceId >> 16);

  NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS engines{};
  if ((s = control(dev.hSubdevice, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, &engines)) != NV_OK) return s;
  for (NvU32 i = 0; i < engines.engineCount; ++i) {
    if (engines.engineList[i] >= NV2080_ENGINE_TYPE_COPY0 && engines.engineList[i] < NV2080_ENGINE_TYPE_COPY0 + 10) {
      ++dev.copy_engines;
    }
  }
  return NV_OK;
}

// The body of cuInit; returns CUDA_ERROR_NO_DEVICE when there is no driver or no GPU.
CUresult initialize(Driver& d) {
  d.ctl_fd = kernel::sys_open("/dev/nvidiactl", kernel::kORdWr | kernel::kOCloexec);
  if (d.ctl_fd < 0) return CUDA_ERROR_NO_DEVICE;

  nv_ioctl_sys_params_t sys{};
  sys.memblock_size = 128ull << 20;  // /sys/devices/system/memory/block_size_bytes
  if (kernel::sys_ioctl(d.ctl_fd, NV_IOWR(NV_ESC_SYS_PARAMS, sizeof sys), &sys) < 0) return CUDA_ERROR_NO_DEVICE;

  nv_ioctl_card_info_t cards[NV_CARD_INFO_LIBCUDA_ENTRIES]{};
  if (kernel::sys_ioctl(d.ctl_fd, NV_IOWR(NV_ESC_CARD_INFO, sizeof cards), cards) < 0) return CUDA_ERROR_NO_DEVICE;

  NvHandle client = 0;
  if (rm_alloc(0, 0, &client, NV01_ROOT, nullptr, 0) != NV_OK) return CUDA_ERROR_NO_DEVICE;
  d.hClient = client;

  char version[64] = {};
  NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS build{};
  build.sizeOfStrings = sizeof version;
  build.pDriverVersionBuffer = nv_ptr_to_p64(version);
  if (control(d.hClient, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &build) != NV_OK) return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;

  NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS ids{};
  if (control(d.hClient, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &ids) != NV_OK) return CUDA_ERROR_NO_DEVICE;

  // Every attached GPU, in RM's order; then the ones CUDA_VISIBLE_DEVICES shows, in its order.
  std::vector<std::pair<NvU32, NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS>> attached;
  for (NvU32 gpu_id : ids.gpuIds) {
    if (gpu_id == NV0000_CTRL_GPU_INVALID_ID) break;
    NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS info{};
    info.gpuId = gpu_id;
    if (control(d.hClient, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &info) != NV_OK) continue;
    attached.emplace_back(gpu_id, info);
  }
  for (int index : visible_devices(std::getenv("CUDA_VISIBLE_DEVICES"), static_cast<int>(attached.size()))) {
    const auto& [gpu_id, info] = attached[static_cast<size_t>(index)];
    DeviceInfo dev;
    dev.gpu_id = gpu_id;
    for (const auto& card : cards) {
      if (card.valid && card.gpu_id == gpu_id) {
        dev.pci_domain = static_cast<int>(card.pci_info.domain);
        dev.pci_bus = card.pci_info.bus;
        dev.pci_device = card.pci_info.slot;
        dev.node_minor = static_cast<int>(card.minor_number);
      }
    }
    const std::string node = "/dev/nvidia" + std::to_string(dev.node_minor);
    dev.gpu_fd = kernel::sys_open(node.c_str(), kernel::kORdWr | kernel::kOCloexec);
    nv_ioctl_register_fd_t reg{d.ctl_fd};
    if (dev.gpu_fd < 0 || kernel::sys_ioctl(dev.gpu_fd, NV_IOWR(NV_ESC_REGISTER_FD, sizeof reg), &reg) < 0) {
      return CUDA_ERROR_NO_DEVICE;
    }
    NV0080_ALLOC_PARAMETERS device_params{};
    device_params.deviceId = info.deviceInstance;
    dev.hDevice = next_handle();
    if (rm_alloc(d.hClient, d.hClient, &dev.hDevice, NV01_DEVICE_0, &device_params, sizeof device_params) != NV_OK) {
      return CUDA_ERROR_NO_DEVICE;
    }
    NV2080_ALLOC_PARAMETERS subdevice_params{};
    subdevice_params.subDeviceId = info.subDeviceInstance;
    dev.hSubdevice = next_handle();
    if (rm_alloc(d.hClient, dev.hDevice, &dev.hSubdevice, NV20_SUBDEVICE_0, &subdevice_params,
                 sizeof subdevice_params) != NV_OK) {
      return CUDA_ERROR_NO_DEVICE;
    }
    d.devices.push_back(dev);
    if (read_properties(d.devices.back()) != NV_OK) return CUDA_ERROR_NO_DEVICE;
  }
  if (d.devices.empty()) return CUDA_ERROR_NO_DEVICE;
  for (size_t i = 0; i < d.devices.size(); ++i) {
    auto* ctx = new CUctx_st;  // primary contexts live as long as the process
    ctx->device = static_cast<CUdevice>(i);
    d.primary.push_back(ctx);
  }
  return CUDA_SUCCESS;
}

}  // namespace

std::vector<int> visible_devices(const char* env, int count) {
  std::vector<int> visible;
  if (env == nullptr) {
    for (int i = 0; i < count; ++i) visible.push_back(i);
    return visible;
  }
  const std::string list = env;
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    std::string entry = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t first = entry.find_first_not_of(' ');
    const size_t last = entry.find_last_not_of(' ');
    entry = first == std::string::npos ? "" : entry.substr(first, last - first + 1);
    if (entry.empty() || entry.size() > 3 || entry.find_first_not_of("0123456789") != std::string::npos) break;
    const int index = std::stoi(entry);
    if (index >= count || std::find(visible.begin(), visible.end(), index) != visible.end()) break;
    visible.push_back(index);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return visible;
}

DeviceInfo* device_of_handle(NvHandle hObject) {
  for (DeviceInfo& dev : driver().devices) {
    if (dev.hDevice == hObject || dev.hSubdevice == hObject) return &dev;
  }
  return nullptr;
}

std::recursive_mutex& driver_mutex() {
  static std::recursive_mutex* m = new std::recursive_mutex;
  return *m;
}

Driver& driver() {
  int pid = kernel::vdso_getpid();
  // A process's Driver lives as long as the program (by_pid never forgets one, and pids are not
  // reused), so a thread remembers the last one it found: most calls make several lookups.
  thread_local int t_pid = -1;
  thread_local Driver* t_driver = nullptr;
  if (pid == t_pid) return *t_driver;
  auto& slot = drivers().by_pid[pid];
  if (!slot) slot = std::make_unique<Driver>();
  t_pid = pid;
  t_driver = slot.get();
  return *slot;
}

CUresult check_initialized() {
  const Driver& d = driver();
  if (!d.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return d.init_result;
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: initializes the driver API for this process. Flags must be 0, else
// CUDA_ERROR_INVALID_VALUE. Without the kernel module's nodes or a GPU: CUDA_ERROR_NO_DEVICE.
// Later calls return the first call's result without doing anything.
CUresult cuInit(unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuInit(Flags={})", Flags);
  std::lock_guard lock(driver_mutex());
  if (Flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  Driver& d = driver();
  if (!d.initialized) {
    d.init_result = initialize(d);
    d.initialized = true;
    const char* mode = std::getenv("CUDA_MODULE_LOADING");
    d.loading_mode = mode && std::strcmp(mode, "EAGER") == 0 ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
    d.launch_blocking = blocking != nullptr && std::strcmp(blocking, "1") == 0;
    if (const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"); connections != nullptr) {
      const long n = std::strtol(connections, nullptr, 10);
      d.max_connections = static_cast<unsigned>(std::clamp(n, 1L, 32L));  // CUDA's range; default 8
    }
    const char* memcheck = std::getenv("MINICUDA_MEMCHECK");
    d.memcheck = memcheck != nullptr && std::strcmp(memcheck, "1") == 0;
    if (d.memcheck) {
      trace::note(trace::Layer::Libcuda, "memcheck: MINICUDA_MEMCHECK=1: every allocation gets a chunk of its own "
                                         "and a guard; leaks are reported at exit");
      memcheck::enable_exit_report();
    }
  }
  return done(scope, d.init_result);
}

// Contract: *mode = how modules are loaded, from CUDA_MODULE_LOADING at cuInit (EAGER, else
// LAZY, the default since CUDA 12.2). NULL: CUDA_ERROR_INVALID_VALUE; before cuInit:
// CUDA_ERROR_NOT_INITIALIZED.
CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
  trace::Scope scope(trace::Layer::Libcuda, "cuModuleGetLoadingMode(mode={})", static_cast<void*>(mode));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (mode == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *mode = driver().loading_mode;
  if (scope.active()) {
    scope.result("CUDA_SUCCESS, *mode={}", *mode == CU_MODULE_LAZY_LOADING ? "CU_MODULE_LAZY_LOADING" : "CU_MODULE_EAGER_LOADING");
  }
  return CUDA_SUCCESS;
}

// Contract: *driverVersion = the CUDA version the driver supports (13000). NULL:
// CUDA_ERROR_INVALID_VALUE. Needs no cuInit.
CUresult cuDriverGetVersion(int* driverVersion) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDriverGetVersion(driverVersion={})", static_cast<void*>(driverVersion));
  if (driverVersion == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *driverVersion = CUDA_VERSION;
  return done(scope, CUDA_SUCCESS);
}
