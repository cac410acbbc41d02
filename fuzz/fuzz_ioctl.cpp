// libFuzzer target: the simulated kernel's ioctl entry and the two kernel modules behind it
// (nvidia.ko's escape dispatcher and RM, nvidia-uvm.ko), driven as a hostile user-mode driver
// would drive them.
//
// Each input is a fresh simulated process that opens /dev/nvidiactl, /dev/nvidia0 and
// /dev/nvidia-uvm, makes itself an RM client (so that inputs can reach past the handle checks),
// then runs operations decoded from the input until it is used up:
//   - an ioctl: a descriptor (one of the three, a closed one, a made-up one); a request number
//     (mostly a known NV_ESC_* or UVM_* one, sometimes any); a size (mostly the right one);
//     an argument pointer (a user buffer filled from the input, NULL, an unmapped address, a
//     kernel-half address); and fix-ups that plant, at offsets the input picks, a live handle or
//     the address of a second user buffer (pointers inside arguments: pAllocParms, params...);
//   - mmap / munmap of /dev/nvidia0 (RM_MAP_MEMORY's second half), with lengths and offsets from
//     the input.
// The process then exits, which frees whatever RM objects and mappings the input made. Every
// call must return (an errno or an RM status), never crash, hang or leak.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "minicuda/kernel.h"
#include "nv_uapi.h"

namespace k = minicuda::kernel;

namespace {

constexpr size_t kArgBytes = 16384;  // the _IOC size limit: every argument fits in one buffer

// The request numbers worth aiming at: every escape nvidia.ko knows of (and some it does not
// implement), and every UVM request.
std::vector<uint32_t> escape_numbers() {
  std::vector<uint32_t> out;
#define MINICUDA_ESCAPE(name, value) out.push_back(value);
  NV_UAPI_ESCAPES(MINICUDA_ESCAPE)
#undef MINICUDA_ESCAPE
  return out;
}
std::vector<uint64_t> uvm_requests() {
  std::vector<uint64_t> out;
#define MINICUDA_UVM(name, value) out.push_back(value);
  NV_UAPI_UVM_IOCTLS(MINICUDA_UVM)
#undef MINICUDA_UVM
  return out;
}

// The argument sizes libcuda (or tinygrad) really uses, so that sizes are often right.
constexpr uint32_t kKnownSizes[] = {sizeof(NVOS64_PARAMETERS),
                                    sizeof(NVOS21_PARAMETERS),
                                    sizeof(NVOS00_PARAMETERS),
                                    sizeof(NVOS54_PARAMETERS),
                                    sizeof(nv_ioctl_nvos02_parameters_with_fd),
                                    sizeof(nv_ioctl_nvos33_parameters_with_fd),
                                    sizeof(NVOS34_PARAMETERS),
                                    sizeof(nv_ioctl_sys_params_t),
                                    sizeof(nv_ioctl_register_fd_t),
                                    sizeof(nv_ioctl_card_info_t) * 32};

struct Session {
  int ctl = -1, gpu = -1, uvm = -1;
  NvHandle client = 0;
  std::vector<NvHandle> handles;  // the client, and objects made by this input
  unsigned char* arg = nullptr;   // two user buffers in the simulated address space
  unsigned char* inner = nullptr;
};

void make_client(Session& s) {
  NVOS64_PARAMETERS p{};
  p.hClass = NV01_ROOT;
  std::memcpy(s.arg, &p, sizeof p);
  if (k::sys_ioctl(s.ctl, NV_IOWR(NV_ESC_RM_ALLOC, sizeof p), s.arg) == 0) {
    std::memcpy(&p, s.arg, sizeof p);
    if (p.status == NV_OK) {
      s.client = p.hObjectNew;
      s.handles.push_back(s.client);
    }
  }
}

int pick_fd(FuzzedDataProvider& in, const Session& s) {
  switch (in.ConsumeIntegralInRange(0, 5)) {
    case 0: return s.gpu;
    case 1: return s.uvm;
    case 2: return in.ConsumeIntegralInRange(-2, 40);  // closed, made up, or stdin
    default: return s.ctl;
  }
}

void* pick_pointer(FuzzedDataProvider& in, const Session& s) {
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0: return nullptr;
    case 1: return reinterpret_cast<void*>(0x1000);                 // unmapped
    case 2: return reinterpret_cast<void*>(0xffff800000000000ull);  // the kernel's half
    case 3: return s.arg + in.ConsumeIntegralInRange<size_t>(1, 4095);  // inside, misaligned
    default: return s.arg;
  }
}

// Plants a live handle or the inner buffer's address at offsets the input picks.
void fix_up(FuzzedDataProvider& in, Session& s, uint32_t size) {
  const int fixes = in.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < fixes && size >= 8; ++i) {
    const size_t at = in.ConsumeIntegralInRange<size_t>(0, (size - 4) / 4) * 4;
    if (in.ConsumeBool() && !s.handles.empty()) {
      const NvHandle h = s.handles[in.ConsumeIntegralInRange<size_t>(0, s.handles.size() - 1)];
      std::memcpy(s.arg + at, &h, sizeof h);
    } else if (at + 8 <= size) {
      const uint64_t p = reinterpret_cast<uint64_t>(s.inner);
      std::memcpy(s.arg + at, &p, sizeof p);
    }
  }
}

void one_ioctl(FuzzedDataProvider& in, Session& s, const std::vector<uint32_t>& escapes,
               const std::vector<uint64_t>& uvm) {
  const int fd = pick_fd(in, s);
  unsigned long request = 0;
  uint32_t size = 0;
  if (fd == s.uvm && in.ConsumeBool()) {
    request = uvm[in.ConsumeIntegralInRange<size_t>(0, uvm.size() - 1)];
    size = kArgBytes;
  } else {
    const uint32_t nr = in.ConsumeBool() ? escapes[in.ConsumeIntegralInRange<size_t>(0, escapes.size() - 1)]
                                         : in.ConsumeIntegral<uint8_t>();
    size = in.ConsumeBool() ? in.PickValueInArray(kKnownSizes) : in.ConsumeIntegralInRange<uint32_t>(0, 0x3fff);
    request = in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegral<uint32_t>() : NV_IOWR(nr, size);
  }
  std::memset(s.arg, 0, kArgBytes);
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 512));
  if (!bytes.empty()) std::memcpy(s.arg, bytes.data(), bytes.size());
  const std::vector<uint8_t> inner = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 512));
  std::memset(s.inner, 0, kArgBytes);
  if (!inner.empty()) std::memcpy(s.inner, inner.data(), inner.size());
  fix_up(in, s, size < kArgBytes ? size : kArgBytes);
  void* pointer = pick_pointer(in, s);
  if (k::sys_ioctl(fd, request, pointer) == 0 && pointer == s.arg && size >= sizeof(NVOS64_PARAMETERS)) {
    // Remember what an RM_ALLOC made, so later operations can use it.
    NVOS64_PARAMETERS p;
    std::memcpy(&p, s.arg, sizeof p);
    if (nv_ioc_nr(static_cast<uint32_t>(request)) == NV_ESC_RM_ALLOC && p.status == NV_OK && s.handles.size() < 64)
      s.handles.push_back(p.hObjectNew);
  }
}

void one_mapping(FuzzedDataProvider& in, const Session& s) {
  const size_t length = in.ConsumeIntegralInRange<size_t>(0, 1 << 22);
  const long offset = in.ConsumeIntegralInRange<long>(-1, 1 << 22);
  void* p = k::sys_mmap(nullptr, length, k::kProtRead | k::kProtWrite, k::kMapShared, in.ConsumeBool() ? s.gpu : s.ctl,
                        offset);
  if (!k::mmap_failed(p)) k::sys_munmap(p, length);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint32_t> escapes = escape_numbers();
  static const std::vector<uint64_t> uvm = uvm_requests();
  FuzzedDataProvider in(data, size);
  auto process = k::spawn_process();
  {
    k::ProcessScope scope(*process);
    Session s;
    s.ctl = k::sys_open("/dev/nvidiactl", k::kORdWr | k::kOCloexec);
    s.gpu = k::sys_open("/dev/nvidia0", k::kORdWr | k::kOCloexec);
    s.uvm = k::sys_open("/dev/nvidia-uvm", k::kORdWr | k::kOCloexec);
    void* buffers = k::sys_mmap(nullptr, 2 * kArgBytes, k::kProtRead | k::kProtWrite,
                                k::kMapPrivate | k::kMapAnonymous, -1, 0);
    if (k::mmap_failed(buffers)) __builtin_trap();
    s.arg = static_cast<unsigned char*>(buffers);
    s.inner = s.arg + kArgBytes;
    make_client(s);
    for (int ops = 0; ops < 32 && in.remaining_bytes() > 0; ++ops) {
      if (in.ConsumeIntegralInRange(0, 15) == 0) {
        one_mapping(in, s);
      } else {
        one_ioctl(in, s, escapes, uvm);
      }
    }
    process->close_all();
  }
  return 0;
}
