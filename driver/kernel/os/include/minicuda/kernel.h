// minicuda::kernel: the inside of the simulated operating-system kernel, the interface that the
// kernel's own files and its modules (driver/kernel/nvidia_ko) use - Linux's include/linux, not its
// include/uapi. User-mode code never sees this header: it reaches the kernel through the system
// calls of minicuda/syscall.h, which this header includes.
//
// Behind the system calls:
//   - a Process per simulated process: a file-descriptor table and an address space (a brk heap
//     and an mmap area inside a window of real, reserved host memory, so returned pointers work);
//     current() is the process the calling host thread runs as;
//   - character devices that drivers register with a table of file operations;
//   - copy_from_user / copy_to_user, which refuse bad user pointers with -EFAULT.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "minicuda/syscall.h"

namespace minicuda::kernel {

class Process;
struct File;

// A mapping of a device file, handed to the driver's mmap operation (the vm_area_struct).
struct Vma {
  uint64_t start = 0;   // host address chosen by the kernel (page aligned)
  uint64_t length = 0;  // page aligned
  int prot = 0;
  uint64_t offset = 0;  // the mmap offset argument
};

// The operations a character-device driver implements (struct file_operations).
struct FileOperations {
  const char* name;
  // Called on open(); may set file.private_data. Returns 0 or -errno.
  long (*open)(File& file);
  // Called when the last descriptor for the file is closed.
  void (*release)(File& file);
  // ioctl(fd, cmd, arg): arg is a user pointer. Returns >= 0 or -errno.
  long (*ioctl)(File& file, unsigned long cmd, void* user_arg);
  // Fills vma [start, start+length) with device memory. Returns 0 or -errno; may be null (-ENODEV).
  long (*mmap)(File& file, Vma& vma);
  // The name of an ioctl request for the trace ("NV_ESC_RM_ALLOC"), or null if unknown (strace's
  // ioctl decoder). May be null.
  const char* (*ioctl_name)(unsigned long cmd);
  // poll(): the events ready on the file now (kPollIn...), after doing what the driver does for
  // a sleeper (nvidia.ko runs an inline GPU's work here). May be null (always ready).
  short (*poll)(File& file);
};

// An open file (struct file). Shared by nothing: one per successful open().
struct File {
  std::string path;
  const FileOperations* fops = nullptr;
  unsigned major = 0, minor = 0;
  Process* process = nullptr;  // the process that opened it
  void* private_data = nullptr;
  int flags = 0;
};

// Registers a character device node at path ("/dev/nvidiactl"). Returns 0, or -EBUSY if taken.
long register_chrdev(const std::string& path, unsigned major, unsigned minor, const FileOperations* fops);
// Removes a node (tests). Open files keep working until closed.
void unregister_chrdev(const std::string& path);

// A region of a process's address space (vm_area_struct).
struct Mapping {
  uint64_t start = 0, length = 0;
  int prot = 0;
  int flags = 0;
  std::shared_ptr<File> file;  // null for anonymous memory
  int pins = 0;                // driver pins on these pages (e.g. cudaHostAlloc's OS descriptor)
  // munmap()ed by the process while pinned: gone for the process (lookups skip it, its file is
  // released), but the pages stay, and the range unusable, until the last unpin - as Linux
  // keeps pinned pages for the device after the vma is gone.
  bool orphaned = false;
};

// A process's address space: a window of reserved host memory with the brk heap at its bottom
// and the mmap area growing down from its top, like the Linux layout.
class AddressSpace {
 public:
  AddressSpace();
  ~AddressSpace();
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  uint64_t window_base() const { return base_; }
  uint64_t window_size() const { return size_; }
  uint64_t start_brk() const { return start_brk_; }
  uint64_t brk() const;
  // Is [addr, addr+len) inside one mapping (or the heap) with at least this protection? A range
  // wholly outside the window is memory the program got from the host's own C library or mmap
  // (the simulated process runs inside the host process): mapped if the host maps every page of
  // it with that protection (/proc/self/maps).
  bool is_mapped(uint64_t addr, uint64_t len, int prot) const;
  // The mapping containing addr, if any (copy).
  bool find_mapping(uint64_t addr, Mapping* out) const;
  // Adds (pinned) or drops one driver pin on the mapping holding [addr, addr+len) (drivers pin
  // pages for DMA; pins nest). Returns false if the range is not inside one mapping, or if
  // pinning a mapping the process has unmapped. Dropping the last pin of an unmapped
  // (orphaned) mapping frees its pages. Heap pages and the host memory outside the window
  // (is_mapped) are pinned by range: pinning needs them mapped, unpinning the same range.
  bool set_pinned(uint64_t addr, uint64_t len, bool pinned);
  // Host bytes made accessible (heap + mappings).
  uint64_t mapped_bytes() const;
  // Drops the mappings' references to their device files and hands them over (process exit:
  // the last reference to a file may be a mapping, and its driver must see release()).
  std::vector<std::shared_ptr<File>> take_mapped_files();

 private:
  friend void* sys_brk(void*);
  friend void* sys_mmap(void*, size_t, int, int, int, long);
  friend long sys_munmap(void*, size_t);
  uint64_t set_brk_locked(uint64_t new_brk);
  long map_locked(uint64_t length, int prot, int flags, uint64_t hint, uint64_t* out);
  long unmap_locked(uint64_t addr, uint64_t length, std::vector<Mapping>* removed);

  uint64_t base_ = 0, size_ = 0;
  uint64_t start_brk_ = 0;
  uint64_t brk_ = 0;           // guarded by mutex_
  uint64_t mmap_floor_ = 0;    // lowest address the mmap area may use; guarded by mutex_
  std::map<uint64_t, Mapping> mappings_;  // by start address; guarded by mutex_
  // Pins of heap pages and of host memory outside the window, by (start, length); guarded by mutex_.
  std::map<std::pair<uint64_t, uint64_t>, int> range_pins_;
  bool outside_window(uint64_t addr, uint64_t len) const { return addr + len <= base_ || addr >= base_ + size_; }
  mutable std::mutex mutex_;
};

// A simulated process: pid, file-descriptor table, address space.
class Process {
 public:
  explicit Process(int pid);
  ~Process();
  int pid() const { return pid_; }
  AddressSpace& mm() { return mm_; }
  // The open file behind fd, or null.
  std::shared_ptr<File> file(int fd) const;
  // Number of open descriptors.
  size_t open_files() const;
  // Closes every descriptor (process exit); drivers see release() for each file.
  void close_all();

 private:
  friend int sys_open(const char*, int);
  friend long sys_close(int);
  int install(std::shared_ptr<File> file);  // lowest free fd >= 3, or -EMFILE
  std::shared_ptr<File> remove(int fd);

  int pid_;
  AddressSpace mm_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<File>> fds_;  // guarded by mutex_; 0..2 are the console
};

// The process the calling host thread runs as. The first use creates process 1000 (the
// "program"), so that a plain host program is one simulated process.
Process& current();
// Makes the calling thread run as another process until destroyed (isolation tests).
class ProcessScope {
 public:
  explicit ProcessScope(Process& process);
  ~ProcessScope();
  ProcessScope(const ProcessScope&) = delete;
  ProcessScope& operator=(const ProcessScope&) = delete;

 private:
  Process* previous_;
};
// Creates a new simulated process with the next pid.
std::unique_ptr<Process> spawn_process();

// --- user memory access (for drivers) --------------------------------------------------------

// Copies n bytes from user space. 0, or -EFAULT if any byte is not readable user memory.
long copy_from_user(void* dst, const void* user_src, size_t n);
// Copies n bytes to user space. 0, or -EFAULT if any byte is not writable user memory.
long copy_to_user(void* user_dst, const void* src, size_t n);

// Loads the kernel modules (nvidia.ko and nvidia-uvm.ko) once; every sys_open calls it first, so
// the device nodes exist as they would after boot.
void boot();

}  // namespace minicuda::kernel
