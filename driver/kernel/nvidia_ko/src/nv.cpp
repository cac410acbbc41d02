// nvidia.ko: module init, the /dev/nvidiactl and /dev/nvidia0 nodes, and the ioctl dispatcher.
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
#include <set>

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
  file.private_data = nvf;
  nv_files().insert(nvf);
  return 0;
}

void nv_release(kernel::File& file) {
  std::lock_guard lock(nv_lock());
  NvFile* nvf = static_cast<NvFile*>(file.private_data);
  // Closing a control file frees every RM client made through it (process exit does the same).
  if (nvf->kind == NodeKind::Control) rm_free_file_clients(&file);
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
short nvidia_poll(kernel::File&) {
  nv_device().host().poll(/*include_inline=*/true);
  return kernel::kPollIn;
}

const kernel::FileOperations kNvidiaFops = {"nvidia", nv_open, nv_release, nvidia_ioctl, nvidia_mmap,
                                           nvidia_ioctl_name, nvidia_poll};

std::unique_ptr<gpu::Device>& device_slot() {
  static std::unique_ptr<gpu::Device> device;
  return device;
}

}  // namespace

std::recursive_mutex& nv_lock() {
  // Never destroyed, like every table of the module: the GPU's worker thread (the fault
  // interrupt) may still run while static objects are destroyed at exit.
  static auto* m = new std::recursive_mutex;
  return *m;
}

gpu::Device& nv_device() { return *device_slot(); }

void nv_memory_freed(const RmObject& object) {
  for (NvFile* nvf : nv_files()) {
    if (nvf->mmap.valid && nvf->mmap.memory == &object) nvf->mmap = MmapContext{};
  }
}

Pma& nv_pma() {
  // RM keeps the VRAM above totalGlobalMem for itself (firmware, page tables, reserved heap).
  static Pma pma(nv_device().properties().total_global_mem);
  return pma;
}

// Module init: probe the GPU and create its nodes (nvidia_init_module + nv_probe).
void nv_register_devices() {
  const char* env = std::getenv("MINICUDA_DEVICE");
  gpu::Preset preset = gpu::Preset::H200;
  if (env && *env) {
    if (auto p = gpu::parse_preset(env)) {
      preset = *p;
    } else {
      std::fprintf(stderr, "minicuda: nvidia.ko: unknown MINICUDA_DEVICE '%s', using the H200 preset\n", env);
    }
  }
  device_slot() = std::make_unique<gpu::Device>(preset);
  // The GPU starts fetching: its host interface watches the channels from its own thread.
  device_slot()->host().set_fault_handler(nv_channel_fault);
  device_slot()->start_worker();
  trace::note(trace::Layer::Nvidia, "nvidia.ko: probed {} ({} SMs, {} MiB VRAM)", nv_device().properties().name,
              nv_device().properties().multiprocessor_count, nv_device().properties().vram_bytes >> 20);
  kernel::register_chrdev("/dev/nvidiactl", kNvMajor, kNvCtlMinor, &kNvidiaFops);
  kernel::register_chrdev("/dev/nvidia0", kNvMajor, 0, &kNvidiaFops);
}

}  // namespace minicuda::nvidia

namespace minicuda::kernel {
void nvidia_module_init() { nvidia::nv_register_devices(); }
}  // namespace minicuda::kernel
