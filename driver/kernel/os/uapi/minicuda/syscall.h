// minicuda::kernel's system-call interface: everything user mode (the simulated libc, libcuda,
// libcudart) may know of the simulated OS kernel - what unistd.h, sys/mman.h, sys/ioctl.h,
// fcntl.h, poll.h and errno.h give a real process. The kernel's inside (processes, files,
// character devices, copy_from_user) is minicuda/kernel.h, which only the kernel and its modules
// see: the user-mode libraries' CMake targets link minicuda::syscall, whose include directory
// holds this header alone.
//
// Each sys_* function is one system call and returns what the raw Linux system call returns (a
// value >= 0, or -errno). Every one is a trace scope on trace::Layer::Kernel that prints the call
// as strace does (`open("/dev/nvidiactl", O_RDWR|O_CLOEXEC) = 3`).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace minicuda::kernel {

// Linux errno values (asm-generic/errno-base.h), returned negated by system calls.
inline constexpr long kEPERM = EPERM;
inline constexpr long kENOENT = ENOENT;
inline constexpr long kEINTR = EINTR;
inline constexpr long kEBADF = EBADF;
inline constexpr long kEAGAIN = EAGAIN;
inline constexpr long kENOMEM = ENOMEM;
inline constexpr long kEFAULT = EFAULT;
inline constexpr long kEBUSY = EBUSY;
inline constexpr long kENODEV = ENODEV;
inline constexpr long kEINVAL = EINVAL;
inline constexpr long kEMFILE = EMFILE;
inline constexpr long kENOTTY = ENOTTY;
inline constexpr long kEBADFD = EBADFD;
// The name of an errno value ("EFAULT"), for the trace; "E?" if unknown.
std::string_view errno_name(long err);

// mmap prot and flags with the Linux values (sys/mman.h).
inline constexpr int kProtNone = 0x0;
inline constexpr int kProtRead = 0x1;
inline constexpr int kProtWrite = 0x2;
inline constexpr int kMapShared = 0x01;
inline constexpr int kMapPrivate = 0x02;
inline constexpr int kMapFixed = 0x10;
inline constexpr int kMapAnonymous = 0x20;
// open flags (fcntl.h)
inline constexpr int kORdWr = 02;
inline constexpr int kOCloexec = 02000000;

inline constexpr uint64_t kPageSize = 4096;

// struct pollfd and its event bits (poll.h).
struct PollFd {
  int fd;
  short events;
  short revents;
};
inline constexpr short kPollIn = 0x001;
inline constexpr short kPollPri = 0x002;
inline constexpr short kPollNval = 0x020;

// --- system calls ----------------------------------------------------------------------------

// open(path, flags): a new descriptor for a registered device node, or -ENOENT (-EFAULT for a
// NULL path, -EMFILE when the table is full, or the driver's open error).
int sys_open(const char* path, int flags);
// close(fd): 0, or -EBADF.
long sys_close(int fd);
// ioctl(fd, request, arg): the driver's result, or -EBADF / -ENOTTY (no ioctl operation).
long sys_ioctl(int fd, unsigned long request, void* arg);
// mmap(addr, length, prot, flags, fd, offset): the address, or a value in [-4095, -1] cast to a
// pointer, like the raw syscall (MAP_FAILED is what libc makes of it). Anonymous private memory
// is zero-filled; a device fd is handed to the driver's mmap operation.
void* sys_mmap(void* addr, size_t length, int prot, int flags, int fd, long offset);
// munmap(addr, length): 0, or -EINVAL.
long sys_munmap(void* addr, size_t length);
// brk(addr): the new program break, or the unchanged one if addr is below the heap start, would
// run into a mapping or outside the window (the raw Linux brk never fails otherwise).
void* sys_brk(void* addr);
// poll(fds, nfds, timeout_ms) for struct pollfd: asks each file's driver which of `events` are
// ready, fills revents, and returns how many fds have some; waits (re-asking every 50 us) up to
// timeout_ms (-1: for ever) while none has. A bad fd gets POLLNVAL; more than 1024 fds: -EINVAL;
// an unreadable or unwritable fds array: -EFAULT.
long sys_poll(PollFd* fds, unsigned long nfds, int timeout_ms);
// getpid(): the calling process's id (the first process is 1000). Never fails.
int sys_getpid();

// Was a value returned by sys_mmap an error?
inline bool mmap_failed(void* result) {
  return reinterpret_cast<uintptr_t>(result) >= static_cast<uintptr_t>(-4095);
}

// --- the vDSO --------------------------------------------------------------------------------
//
// Linux maps into every process a small library of kernel code that runs in user mode (the
// vDSO): its functions read data the kernel keeps current instead of entering the kernel, so
// they cost no system call and strace does not show them (clock_gettime, getcpu).
//
// minicuda runs several simulated processes in one host process, so each user-mode library keeps
// its per-process state (libc's arena, libcuda's driver state, libcudart's runtime) by pid, where
// a real library has it in its process's own data segment. They look the pid up on nearly every
// call, which a real library never needs to do: vdso_getpid() answers without a system call, so
// that the trace shows the system calls the real libraries make and no others.

// The calling thread's process id, as sys_getpid() returns it, without a system call or a trace
// line.
int vdso_getpid();

}  // namespace minicuda::kernel
