// The system-call entry: the user -> kernel boundary of the simulated OS.
//
// Each sys_* function is what the syscall instruction would reach: it opens a trace scope on
// Layer::Kernel that prints the call the way strace does (so the output can be compared with
// shared/reference/host/strace.txt), validates the arguments, and hands device files to their
// driver. Return values are the raw ones: >= 0 or -errno.
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "internal.h"
#include "minicuda/fault.h"
#include "minicuda/trace.h"

namespace minicuda::kernel {

namespace {

std::string ptr(uint64_t v) { return v == 0 ? "NULL" : fmt::format("{:#x}", v); }

std::string prot_string(int prot) {
  if (prot == kProtNone) return "PROT_NONE";
  std::string s;
  if (prot & kProtRead) s += "PROT_READ";
  if (prot & kProtWrite) s += s.empty() ? "PROT_WRITE" : "|PROT_WRITE";
  return s;
}

std::string map_flags_string(int flags) {
  std::string s = (flags & kMapShared) ? "MAP_SHARED" : "MAP_PRIVATE";
  if (flags & kMapFixed) s += "|MAP_FIXED";
  if (flags & kMapAnonymous) s += "|MAP_ANONYMOUS";
  return s;
}

std::string open_flags_string(int flags) {
  std::string s = "O_RDWR";
  if (flags & kOCloexec) s += "|O_CLOEXEC";
  return s;
}

std::string ret_string(long r) { return r < 0 ? fmt::format("-1 {}", errno_name(-r)) : fmt::format("{}", r); }

// _IOC decoding for requests no driver names: strace prints _IOC(dir, type, nr, size).
std::string ioc_string(unsigned long req) {
  unsigned dir = (req >> 30) & 3, type = (req >> 8) & 0xff, nr = req & 0xff, size = (req >> 16) & 0x3fff;
  if (dir == 0 && type == 0) return fmt::format("{:#x}", req);
  static const char* kDir[] = {"_IOC_NONE", "_IOC_WRITE", "_IOC_READ", "_IOC_READ|_IOC_WRITE"};
  return fmt::format("_IOC({}, {:#x}, {:#x}, {:#x})", kDir[dir], type, nr, size);
}

void* err_ptr(long err) { return reinterpret_cast<void*>(static_cast<intptr_t>(err)); }

}  // namespace

std::string_view errno_name(long err) {
  // glibc knows every Linux errno's name (EPERM, EINTR, ...), injected ones included.
  const char* name = err > 0 && err < 4096 ? strerrorname_np(static_cast<int>(err)) : nullptr;
  return name != nullptr ? name : "E?";
}

int sys_open(const char* path, int flags) {
  boot();
  trace::Scope scope(trace::Layer::Kernel, "open(\"{}\", {})", path ? path : "NULL", open_flags_string(flags));
  if (path == nullptr) {
    scope.result("-1 EFAULT");
    return static_cast<int>(-kEFAULT);
  }
  DeviceNode node;
  if (!lookup_chrdev(path, &node)) {
    scope.result("-1 ENOENT (No such file or directory)");
    return static_cast<int>(-kENOENT);
  }
  Process& process = current();
  auto file = std::make_shared<File>();
  file->path = node.path;
  file->fops = node.fops;
  file->major = node.major;
  file->minor = node.minor;
  file->process = &process;
  file->flags = flags;
  if (node.fops->open) {
    long r = node.fops->open(*file);
    if (r < 0) {
      scope.result("{}", ret_string(r));
      return static_cast<int>(r);
    }
  }
  int fd = process.install(file);
  if (fd < 0) {
    if (node.fops->release) node.fops->release(*file);
  }
  scope.result("{}", ret_string(fd));
  return fd;
}

long sys_close(int fd) {
  trace::Scope scope(trace::Layer::Kernel, "close({})", fd);
  std::shared_ptr<File> file = current().remove(fd);
  if (!file) {
    scope.result("-1 EBADF");
    return -kEBADF;
  }
  release_file(file);
  scope.result("0");
  return 0;
}

long sys_ioctl(int fd, unsigned long request, void* arg) {
  std::shared_ptr<File> file = current().file(fd);
  const char* name = (file && file->fops->ioctl_name) ? file->fops->ioctl_name(request) : nullptr;
  trace::Scope scope(trace::Layer::Kernel, "ioctl({}{}, {}, {})", fd,
                     file ? fmt::format("<{}>", file->path) : std::string(),
                     name ? std::string(name) : ioc_string(request), ptr(reinterpret_cast<uint64_t>(arg)));
  if (!file) {
    scope.result("-1 EBADF");
    return -kEBADF;
  }
  if (!file->fops->ioctl) {
    scope.result("-1 ENOTTY");
    return -kENOTTY;
  }
  // Fault injection (MINICUDA_FAULT ioctl:NAME@N=ERRNO): the call fails here, before the module.
  if (const auto err = fault::ioctl_errno(name ? name : ioc_string(request))) {
    trace::note(trace::Layer::Kernel, "fault injection ({}): -{}", fault::last_rule(), errno_name(*err));
    scope.result("{}", ret_string(-*err));
    return -*err;
  }
  long r = file->fops->ioctl(*file, request, arg);
  scope.result("{}", ret_string(r));
  return r;
}

long sys_poll(PollFd* fds, unsigned long nfds, int timeout_ms) {
  trace::Scope scope(trace::Layer::Kernel, "poll({}, {}, {})", ptr(reinterpret_cast<uint64_t>(fds)), nfds, timeout_ms);
  if (nfds > 1024) {
    scope.result("-1 EINVAL");
    return -kEINVAL;
  }
  std::vector<PollFd> local(nfds);
  if (nfds != 0 && copy_from_user(local.data(), fds, nfds * sizeof(PollFd)) != 0) {
    scope.result("-1 EFAULT");
    return -kEFAULT;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  long ready = 0;
  for (;;) {
    ready = 0;
    for (PollFd& p : local) {
      std::shared_ptr<File> file = current().file(p.fd);
      if (!file) {
        p.revents = kPollNval;
      } else {
        short mask = file->fops->poll ? file->fops->poll(*file) : static_cast<short>(kPollIn);
        p.revents = static_cast<short>(mask & (p.events | kPollNval));
      }
      ready += p.revents != 0;
    }
    if (ready != 0 || timeout_ms == 0 || (timeout_ms > 0 && std::chrono::steady_clock::now() >= deadline)) break;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (nfds != 0 && copy_to_user(fds, local.data(), nfds * sizeof(PollFd)) != 0) {
    scope.result("-1 EFAULT");
    return -kEFAULT;
  }
  scope.result("{}", ready);
  return ready;
}

void* sys_mmap(void* addr, size_t length, int prot, int flags, int fd, long offset) {
  trace::Scope scope(trace::Layer::Kernel, "mmap({}, {}, {}, {}, {}, {})", ptr(reinterpret_cast<uint64_t>(addr)),
                     length, prot_string(prot), map_flags_string(flags), fd,
                     offset == 0 ? std::string("0") : fmt::format("{:#x}", offset));
  Process& process = current();
  AddressSpace& mm = process.mm();
  bool anonymous = flags & kMapAnonymous;
  if (length == 0 || (flags & kMapFixed) || (prot & ~(kProtRead | kProtWrite)) ||
      ((flags & kMapShared) == 0 && (flags & kMapPrivate) == 0) || offset % kPageSize != 0 || offset < 0) {
    scope.result("-1 EINVAL");
    return err_ptr(-kEINVAL);
  }
  std::shared_ptr<File> file;
  if (!anonymous) {
    file = process.file(fd);
    if (!file) {
      scope.result("-1 EBADF");
      return err_ptr(-kEBADF);
    }
    if (!file->fops->mmap) {
      scope.result("-1 ENODEV");
      return err_ptr(-kENODEV);
    }
  }
  uint64_t start = 0;
  {
    std::lock_guard lock(mm.mutex_);
    long r = mm.map_locked(length, prot, flags, reinterpret_cast<uint64_t>(addr), &start);
    if (r < 0) {
      scope.result("{}", ret_string(r));
      return err_ptr(r);
    }
    mm.mappings_[start].file = file;
  }
  if (file) {
    Vma vma{start, (length + kPageSize - 1) & ~(kPageSize - 1), prot, static_cast<uint64_t>(offset)};
    long r = file->fops->mmap(*file, vma);
    if (r < 0) {
      std::vector<Mapping> removed;
      {
        std::lock_guard lock(mm.mutex_);
        mm.unmap_locked(start, vma.length, &removed);
      }
      for (auto& m : removed) release_file(m.file);
      scope.result("{}", ret_string(r));
      return err_ptr(r);
    }
  }
  scope.result("{:#x}", start);
  return reinterpret_cast<void*>(start);
}

long sys_munmap(void* addr, size_t length) {
  trace::Scope scope(trace::Layer::Kernel, "munmap({}, {})", ptr(reinterpret_cast<uint64_t>(addr)), length);
  AddressSpace& mm = current().mm();
  std::vector<Mapping> removed;
  long r;
  {
    std::lock_guard lock(mm.mutex_);
    r = mm.unmap_locked(reinterpret_cast<uint64_t>(addr), length, &removed);
  }
  for (auto& m : removed) {
    if (m.file) release_file(m.file);
  }
  scope.result("{}", ret_string(r));
  return r;
}

void* sys_brk(void* addr) {
  trace::Scope scope(trace::Layer::Kernel, "brk({})", ptr(reinterpret_cast<uint64_t>(addr)));
  AddressSpace& mm = current().mm();
  uint64_t result;
  {
    std::lock_guard lock(mm.mutex_);
    uint64_t before = mm.brk_;
    result = addr == nullptr ? mm.brk_ : mm.set_brk_locked(reinterpret_cast<uint64_t>(addr));
    if (addr != nullptr && result != before) {
      int64_t delta = static_cast<int64_t>(result) - static_cast<int64_t>(before);
      trace::note(trace::Layer::Kernel, "mm: heap {} by {:#x} B to {:#x}", delta > 0 ? "grows" : "shrinks",
                  delta > 0 ? delta : -delta, result);
    }
  }
  scope.result("{:#x}", result);
  return reinterpret_cast<void*>(result);
}

int sys_getpid() {
  trace::Scope scope(trace::Layer::Kernel, "getpid()");
  int pid = current().pid();
  scope.result("{}", pid);
  return pid;
}

// The vDSO's getpid (syscall.h): kernel code that user mode runs without a system call.
int vdso_getpid() { return current().pid(); }

}  // namespace minicuda::kernel
