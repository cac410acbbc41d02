// The syscall entry: ioctl dispatch to the driver, -ENOTTY without an ioctl operation, device
// mmap handed to the driver, and the strace-style trace of each call.
#include <gtest/gtest.h>

#include <cstring>

#include "minicuda/kernel.h"
#include "minicuda/trace.h"

namespace k = minicuda::kernel;
namespace trace = minicuda::trace;

namespace {
long echo_ioctl(k::File&, unsigned long cmd, void* arg) {
  int v = 0;
  if (k::copy_from_user(&v, arg, sizeof v) != 0) return -k::kEFAULT;
  v += static_cast<int>(cmd);
  return k::copy_to_user(arg, &v, sizeof v);
}
long fill_mmap(k::File&, k::Vma& vma) {
  // A driver mapping: here, make the range readable and fill it with the offset's low byte.
  auto* p = reinterpret_cast<unsigned char*>(vma.start);
  (void)p;
  return vma.offset == 0 ? 0 : -k::kEINVAL;
}
const char* name_of(unsigned long cmd) { return cmd == 5 ? "TEST_ADD_FIVE" : nullptr; }
const k::FileOperations kEcho = {"echo", nullptr, nullptr, echo_ioctl, fill_mmap, name_of, nullptr};
const k::FileOperations kNoIoctl = {"noioctl", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

struct Nodes {
  Nodes() {
    k::register_chrdev("/dev/minicuda-echo", 241, 0, &kEcho);
    k::register_chrdev("/dev/minicuda-noioctl", 241, 1, &kNoIoctl);
  }
  ~Nodes() {
    k::unregister_chrdev("/dev/minicuda-echo");
    k::unregister_chrdev("/dev/minicuda-noioctl");
  }
};
}  // namespace

TEST(Syscalls, IoctlReachesTheDriverWithTheUserPointer) {
  Nodes nodes;
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  int fd = k::sys_open("/dev/minicuda-echo", k::kORdWr);
  int v = 10;
  EXPECT_EQ(k::sys_ioctl(fd, 5, &v), 0);
  EXPECT_EQ(v, 15);
  EXPECT_EQ(k::sys_ioctl(fd, 5, reinterpret_cast<void*>(0x10)), -k::kEFAULT);
  int nf = k::sys_open("/dev/minicuda-noioctl", k::kORdWr);
  EXPECT_EQ(k::sys_ioctl(nf, 5, &v), -k::kENOTTY);
  EXPECT_EQ(k::sys_ioctl(99, 5, &v), -k::kEBADF);
}

TEST(Syscalls, DeviceMmapGoesToTheDriverAndItsErrorIsReturned) {
  Nodes nodes;
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  int fd = k::sys_open("/dev/minicuda-echo", k::kORdWr);
  void* ok = k::sys_mmap(nullptr, 4096, k::kProtRead, k::kMapShared, fd, 0);
  EXPECT_FALSE(k::mmap_failed(ok));
  void* bad = k::sys_mmap(nullptr, 4096, k::kProtRead, k::kMapShared, fd, 4096);
  EXPECT_EQ(reinterpret_cast<intptr_t>(bad), -k::kEINVAL);
  int nf = k::sys_open("/dev/minicuda-noioctl", k::kORdWr);
  EXPECT_EQ(reinterpret_cast<intptr_t>(k::sys_mmap(nullptr, 4096, k::kProtRead, k::kMapShared, nf, 0)), -k::kENODEV);
}

TEST(Syscalls, TraceLooksLikeStrace) {
  Nodes nodes;
  k::boot();  // the modules' probe messages are not part of this trace
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  trace::Recorder rec;
  int fd = k::sys_open("/dev/minicuda-echo", k::kORdWr | k::kOCloexec);
  int v = 1;
  k::sys_ioctl(fd, 5, &v);
  k::sys_ioctl(fd, 0xc030462b, nullptr);
  void* m = k::sys_mmap(nullptr, 8192, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  k::sys_munmap(m, 8192);
  k::sys_close(fd);
  k::sys_open("/dev/nope", k::kORdWr);
  auto ev = rec.events();
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[0].text, "open(\"/dev/minicuda-echo\", O_RDWR|O_CLOEXEC)");
  EXPECT_EQ(ev[0].result, "3");
  EXPECT_EQ(ev[1].text, fmt::format("ioctl(3</dev/minicuda-echo>, TEST_ADD_FIVE, {})", static_cast<void*>(&v)));
  EXPECT_EQ(ev[2].text, "ioctl(3</dev/minicuda-echo>, _IOC(_IOC_READ|_IOC_WRITE, 0x46, 0x2b, 0x30), NULL)");
  EXPECT_EQ(ev[2].result, "-1 EFAULT");
  EXPECT_EQ(ev[3].text, "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)");
  EXPECT_EQ(ev[3].result, fmt::format("{}", m));
  EXPECT_EQ(ev[4].text, fmt::format("munmap({}, 8192)", m));
  EXPECT_EQ(ev[5].text, "close(3)");
  EXPECT_EQ(ev[6].result, "-1 ENOENT (No such file or directory)");
}

// getpid() is a system call with its strace line; the vDSO's answer is the same pid, with no
// system call and so no trace line. Each simulated process has its own pid.
TEST(Syscalls, GetpidNamesTheCallersProcessAndOnlyTheSystemCallIsTraced) {
  auto a = k::spawn_process();
  auto b = k::spawn_process();
  k::ProcessScope as_a(*a);
  trace::Recorder rec;
  EXPECT_EQ(k::sys_getpid(), a->pid());
  EXPECT_EQ(k::vdso_getpid(), a->pid());
  {
    k::ProcessScope as_b(*b);
    EXPECT_EQ(k::sys_getpid(), b->pid());
    EXPECT_EQ(k::vdso_getpid(), b->pid());
  }
  EXPECT_EQ(k::vdso_getpid(), a->pid());
  EXPECT_NE(a->pid(), b->pid());
  auto ev = rec.events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].text, "getpid()");
  EXPECT_EQ(ev[0].result, std::to_string(a->pid()));
  EXPECT_EQ(ev[0].layer, trace::Layer::Kernel);
  EXPECT_EQ(ev[1].result, std::to_string(b->pid()));
}
