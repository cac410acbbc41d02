// nvidia.ko: module init, the /dev/nvidiactl and /dev/nvidiaN nodes, and the ioctl dispatcher.
//
// An ioctl arrives as (file, request, user pointer). The dispatcher looks the request up in
// kIoctls - one row per escape: the full _IOWR('F', nr, size) request, the handler, the name, the
// nodes it is valid on and where its RM status field is - then:
//   1. an unknown type or nr                          -> -ENOTTY
//   2. a known nr with the wrong size                 -> -EINVAL
//   3. copy_from_user of the argument fails           -> -EFAULT
//   4. an RM escape on the wrong kind of node         -> status NV_ERR_INVALID_ARGUMENT, return 0
//   5. otherwise the handler runs on a kernel copy, which is copied back: the RM status is in the
//      struct and the ioctl itself returns 0 (as the real RmIoctl does) - unless a fault-injection
//      rule (MINICUDA_FAULT ioctl:NAME@N=NV_ERR_X, minicuda/fault.h) gives the status instead.
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <set>
#include <string>

#include "minicuda/fault.h"
#include "minicuda/trace.h"
#include "nv_internal.h"
#include "nv_escapes.h"

namespace minicuda::nvidia {

namespace {

constexpr unsigned kNvMajor = 195;          // nv-chardev-numbers.h
constexpr unsigned kNvCtlMinor = 255;

enum NodeMask : uint8_t { kCtl = 1, kGpu = 2, kAny = 3 };

struct NvIoctl {
  uint32_t nr;
  uint32_t size;         // exact argument size; 0 = variable (the handler checks it)
  const char* name;
  NodeMask nodes;
  int status_offset;     // offset of the NV_STATUS field, or -1 for nv-level escapes
  long (*handler)(NvFile& nvf, kernel::File& file, void* arg, uint32_t size);
};

constexpr int kNoStatus = -1;

// The ioctl table (the real one is split between nv.c and escape.c's RmValidateIoctl).
const NvIoctl kIoctls[] = {
    {NV_ESC_RM_ALLOC, sizeof(NVOS64_PARAMETERS), "NV_ESC_RM_ALLOC", kAny,
     offsetof(NVOS64_PARAMETERS, status), escape_rm_alloc},
    {NV_ESC_RM_ALLOC, sizeof(NVOS21_PARAMETERS), "NV_ESC_RM_ALLOC", kAny,
     offsetof(NVOS21_PARAMETERS, status), escape_rm_alloc},
    {NV_ESC_RM_FREE, sizeof(NVOS00_PARAMETERS), "NV_ESC_RM_FREE", kCtl, offsetof(NVOS00_PARAMETERS, status),
     escape_rm_free},
    {NV_ESC_RM_CONTROL, sizeof(NVOS54_PARAMETERS), "NV_ESC_RM_CONTROL", kCtl, offsetof(NVOS54_PARAMETERS, status),
     escape_rm_control},
    {NV_ESC_RM_ALLOC_MEMORY, sizeof(nv_ioctl_nvos02_parameters_with_fd), "NV_ESC_RM_ALLOC_MEMORY", kGpu,
     offsetof(nv_ioctl_nvos02_parameters_with_fd, params.status), escape_rm_alloc_memory},
    {NV_ESC_RM_MAP_MEMORY, sizeof(nv_ioctl_nvos33_parameters_with_fd), "NV_ESC_RM_MAP_MEMORY", kCtl,
     offsetof(nv_ioctl_nvos33_parameters_with_fd, params.status), escape_rm_map_memory},
    {NV_ESC_RM_UNMAP_MEMORY, sizeof(NVOS34_PARAMETERS), "NV_ESC_RM_UNMAP_MEMORY", kCtl,
     offsetof(NVOS34_PARAMETERS, status), escape_rm_unmap_memory},
    {NV_ESC_CARD_INFO, 0, "NV_ESC_CARD_INFO", kCtl, kNoStatus, escape_card_info},
    {NV_ESC_SYS_PARAMS, sizeof(nv_ioctl_sys_params_t), "NV_ESC_SYS_PARAMS", kCtl, kNoStatus, escape_sys_params},
    {NV_ESC_REGISTER_FD, sizeof(nv_ioctl_register_fd_t), "NV_ESC_REGISTER_FD", kGpu, kNoStatus,
     escape_register_fd},
};

constexpr uint32_t kMaxArgSize = 16384;  // the _IOC size field's limit

const NvIoctl* find_nr(uint32_t nr) {
  for (const NvIoctl& e : kIoctls) {
    if (e.nr == nr) return &e;
  }
  return nullptr;
}

const NvIoctl* find_exact(uint32_t nr, uint32_t size) {
  for (const NvIoctl& e : kIoctls) {
    // size 0 in the table means "variable": any non-zero size (a zero-size argument is never valid).
    if (e.nr == nr && size > 0 && (e.size == size || e.size == 0)) return &e;
  }
  return nullptr;
}

NvFile& nvfile(kernel::File& file) { return *static_cast<NvFile*>(file.private_data); }

// Every open /dev/nvidiactl and /dev/nvidia0 file; guarded by nv_lock().
std::set<NvFile*>& nv_files() {
  static auto* files = new std::set<NvFile*>;  // never destroyed (see nv_lock)
  return *files;
}

// file_operations of /dev/nvidiactl and /dev/nvidia0 ----------------------------------------

long nv_open(kernel::File& file) {
  std::lock_guard lock(nv_lock());
  auto* nvf = new NvFile;
  nvf->kind = file.minor == kNvCtlMinor ? NodeKind::Control : NodeKind::Gpu;
  nvf->gpu = file.minor == kNvCtlMinor ? 0 : static_cast<int>(file.minor);
  file.private_data = nvf;
  nv_files().insert(nvf);
  return 0;
}

void nv_release(kernel::File& file) {
  std::lock_guard lock(nv_lock());
  NvFile* nvf = static_cast<NvFile*>(file.private_data);
  // Closing a control file frees every RM client made through it (process exit does the same).
  if (nvf->kind == NodeKind::Control) rm_free_file_clients(&file);
  if (nvf->exported.valid) rm_export_released(*nvf);
  // A /dev/nvidia0 registered with this control file acts for nobody from now on.
  for (NvFile* other : nv_files()) {
    if (other->ctl == &file) other->ctl = nullptr;
  }
  nv_files().erase(nvf);
  delete nvf;
  file.private_data = nullptr;
}

// Contract: the nvidia.ko ioctl entry (nvidia_ioctl). Returns 0 when the escape ran (its RM status
// is in the argument), -ENOTTY for an unknown request, -EINVAL for a wrong size, -EFAULT when the
// argument cannot be read or written back.
long nvidia_ioctl(kernel::File& file, unsigned long request, void* user_arg) {
  uint32_t nr = nv_ioc_nr(static_cast<uint32_t>(request));
  uint32_t size = nv_ioc_size(static_cast<uint32_t>(request));
  if (nv_ioc_type(static_cast<uint32_t>(request)) != NV_IOCTL_MAGIC || (request >> 32) != 0 || !find_nr(nr)) {
    trace::note(trace::Layer::Nvidia, "nvidia: unknown ioctl {:#x}: -ENOTTY", request);
    return -kernel::kENOTTY;
  }
  const NvIoctl* entry = find_exact(nr, size);
  if (!entry || size > kMaxArgSize) {
    trace::note(trace::Layer::Nvidia, "nvidia: {} with a {}-byte argument: -EINVAL", find_nr(nr)->name, size);
    return -kernel::kEINVAL;
  }
  std::vector<unsigned char> arg(size);
  if (kernel::copy_from_user(arg.data(), user_arg, size) != 0) {
    trace::note(trace::Layer::Nvidia, "nvidia: {}: bad argument pointer: -EFAULT", entry->name);
    return -kernel::kEFAULT;
  }
  std::lock_guard lock(nv_lock());
  NvFile& nvf = nvfile(file);
  nv_select_gpu(nvf.gpu);  // the RM entry points select the GPU of the object they act on
  NodeMask node = nvf.kind == NodeKind::Control ? kCtl : kGpu;
  long r = 0;
  if (!(entry->nodes & node)) {
    if (entry->status_offset == kNoStatus) return -kernel::kEINVAL;
    trace::note(trace::Layer::Nvidia, "nvidia: {} is not valid on {}: NV_ERR_INVALID_ARGUMENT", entry->name, file.path);
    NV_STATUS status = NV_ERR_INVALID_ARGUMENT;
    std::memcpy(arg.data() + entry->status_offset, &status, sizeof status);
  } else if (const auto injected = entry->status_offset == kNoStatus ? std::nullopt : fault::ioctl_status(entry->name)) {
    // Fault injection (MINICUDA_FAULT ioctl:NAME@N=NV_ERR_X): RM answers with that status and
    // the escape does nothing else.
    trace::note(trace::Layer::Nvidia, "fault injection ({}): {} answers {}", fault::last_rule(), entry->name,
                nv_status_name(*injected));
    const NV_STATUS status = *injected;
    std::memcpy(arg.data() + entry->status_offset, &status, sizeof status);
  } else {
    r = entry->handler(nvf, file, arg.data(), size);
    if (r < 0) return r;
  }
  if (kernel::copy_to_user(user_arg, arg.data(), size) != 0) return -kernel::kEFAULT;
  return r;
}

long nvidia_mmap(kernel::File& file, kernel::Vma& vma) {
  std::lock_guard lock(nv_lock());
  return nv_mmap_context(nvfile(file), vma);
}

const char* nvidia_ioctl_name(unsigned long request) {
  if (nv_ioc_type(static_cast<uint32_t>(request)) != NV_IOCTL_MAGIC) return nullptr;
  return nv_escape_name(nv_ioc_nr(static_cast<uint32_t>(request)));
}

// poll() on a GPU file: what a thread waiting for the GPU sleeps in (a blocking-sync wait). The
// GPU's inline channels (CUDA_LAUNCH_BLOCKING=1) run here, in the caller's thread; then the
// file is readable (the event the sleeper waited for has happened, or there is none to wait for).
short nvidia_poll(kernel::File& file) {
  gpu::Device* device = nullptr;
  {
    std::lock_guard lock(nv_lock());
    device = &nv_device(file.private_data ? nvfile(file).gpu : 0);
  }
  device->host().poll(/*include_inline=*/true);
  return kernel::kPollIn;
}

const kernel::FileOperations kNvidiaFops = {"nvidia", nv_open, nv_release, nvidia_ioctl, nvidia_mmap,
                                           nvidia_ioctl_name, nvidia_poll};

struct NvGpu {
  std::unique_ptr<gpu::Device> device;
  std::unique_ptr<Pma> pma;
  int bus = 0;
  uint8_t uuid[16] = {};
};
// Filled once by module init, then only read; never destroyed (see nv_lock).
std::vector<NvGpu>& gpus() {
  static auto* g = new std::vector<NvGpu>;
  return *g;
}
int g_selected = 0;  // guarded by nv_lock()

// The presets of the GPUs to probe (MINICUDA_DEVICES, MINICUDA_DEVICE); bad entries are reported
// and skipped, and no usable entry means one GPU.
std::vector<gpu::Preset> presets_from_env() {
  gpu::Preset preset = gpu::Preset::H200;
  const char* env = std::getenv("MINICUDA_DEVICE");
  if (env && *env) {
    if (auto p = gpu::parse_preset(env)) {
      preset = *p;
    } else {
      std::fprintf(stderr, "minicuda: nvidia.ko: unknown MINICUDA_DEVICE '%s', using the H200 preset\n", env);
    }
  }
  std::vector<gpu::Preset> presets;
  const char* list = std::getenv("MINICUDA_DEVICES");
  std::string text = list ? list : "";
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    const long n = std::strtol(text.c_str(), nullptr, 10);
    presets.assign(static_cast<size_t>(std::clamp(n, 1L, 8L)), preset);
    if (n < 1 || n > 8) std::fprintf(stderr, "minicuda: nvidia.ko: MINICUDA_DEVICES=%s: using %zu GPUs (1 to 8)\n", list, presets.size());
  } else if (!text.empty()) {
    size_t start = 0;
    while (start <= text.size() && presets.size() < 8) {
      size_t comma = text.find(',', start);
      std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (auto p = gpu::parse_preset(name.c_str())) {
        presets.push_back(*p);
      } else {
        std::fprintf(stderr, "minicuda: nvidia.ko: MINICUDA_DEVICES: unknown preset '%s' skipped\n", name.c_str());
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (presets.empty()) presets.push_back(preset);
  return presets;
}

}  // namespace

std::recursive_mutex& nv_lock() {
  // Never destroyed, like every table of the module: the GPU's worker thread (the fault
  // interrupt) may still run while static objects are destroyed at exit.
  static auto* m = new std::recursive_mutex;
  return *m;
}

int nv_gpu_count() { return static_cast<int>(gpus().size()); }
void nv_select_gpu(int index) {
  if (index >= 0 && index < nv_gpu_count()) g_selected = index;
}
int nv_selected_gpu() { return g_selected; }
gpu::Device& nv_device() { return *gpus()[static_cast<size_t>(g_selected)].device; }
gpu::Device& nv_device(int index) { return *gpus().at(static_cast<size_t>(index)).device; }
int nv_gpu_bus(int index) { return gpus().at(static_cast<size_t>(index)).bus; }
const uint8_t* nv_gpu_uuid(int index) { return gpus().at(static_cast<size_t>(index)).uuid; }
std::string nv_gpu_tag(int index) { return nv_gpu_count() > 1 ? "gpu" + std::to_string(index) + ": " : ""; }
int nv_gpu_by_uuid(const uint8_t* uuid) {
  for (int i = 0; i < nv_gpu_count(); ++i) {
    if (std::memcmp(uuid, nv_gpu_uuid(i), 16) == 0) return i;
  }
  return -1;
}

void nv_memory_freed(const RmObject& object) {
  for (NvFile* nvf : nv_files()) {
    if (nvf->mmap.valid && nvf->mmap.memory == &object) nvf->mmap = MmapContext{};
  }
}

Pma& nv_pma() { return *gpus()[static_cast<size_t>(g_selected)].pma; }

// Module init: probe the GPUs and create their nodes (nvidia_init_module + nv_probe).
void nv_register_devices() {
  std::vector<gpu::Preset> presets = presets_from_env();
  int bus = -1;
  for (size_t i = 0; i < presets.size(); ++i) {
    NvGpu g;
    g.device = std::make_unique<gpu::Device>(presets[i]);
    const gpu::DeviceProperties& props = g.device->properties();
    // RM keeps the VRAM above totalGlobalMem for itself (firmware, page tables, reserved heap).
    g.pma = std::make_unique<Pma>(props.total_global_mem);
    bus = std::max(props.pci_bus_id, bus + 1);
    g.bus = bus;
    std::memcpy(g.uuid, props.uuid, 16);
    g.uuid[15] = static_cast<uint8_t>(g.uuid[15] + i);
    gpus().push_back(std::move(g));
  }
  for (int i = 0; i < nv_gpu_count(); ++i) {
    gpu::Device& device = nv_device(i);
    // The GPU starts fetching: its host interface watches the channels from its own thread.
    device.host().set_fault_handler([i](const gpu::ChannelFault& fault) {
      std::lock_guard lock(nv_lock());
      nv_select_gpu(i);
      nv_channel_fault(fault);
    });
    device.start_worker();
    trace::note(trace::Layer::Nvidia, "{}nvidia.ko: probed {} ({} SMs, {} MiB VRAM)", nv_gpu_tag(i), device.properties().name,
                device.properties().multiprocessor_count, device.properties().vram_bytes >> 20);
  }
  kernel::register_chrdev("/dev/nvidiactl", kNvMajor, kNvCtlMinor, &kNvidiaFops);
  for (int i = 0; i < nv_gpu_count(); ++i) {
    kernel::register_chrdev("/dev/nvidia" + std::to_string(i), kNvMajor, static_cast<unsigned>(i), &kNvidiaFops);
  }
}

}  // namespace minicuda::nvidia

namespace minicuda::kernel {
void nvidia_module_init() { nvidia::nv_register_devices(); }
}  // namespace minicuda::kernel
