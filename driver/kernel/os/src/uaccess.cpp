// copy_from_user / copy_to_user: how a driver reads and writes the memory a user pointer names.
//
// The real kernel checks that the range is below the user/kernel split (access_ok) and then
// copies with an instruction that may fault; a fault is caught through the exception table and
// turned into -EFAULT. minicuda does the same without risking a host crash: it rejects null-page
// and non-canonical addresses, then copies with process_vm_readv/writev on its own process, which
// the host kernel answers with EFAULT for any unmapped or protected byte instead of a signal.
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

namespace minicuda::kernel {

namespace {
constexpr uint64_t kMmapMinAddr = 0x10000;          // vm.mmap_min_addr
constexpr uint64_t kTaskSize = 0x7ffffffff000ull;   // TASK_SIZE_MAX on x86-64

bool access_ok(const void* p, size_t n) {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  return a >= kMmapMinAddr && a + n >= a && a + n <= kTaskSize;
}
}  // namespace

long copy_from_user(void* dst, const void* user_src, size_t n) {
  if (n == 0) return 0;
  if (!access_ok(user_src, n)) return -kEFAULT;
  iovec local{dst, n};
  iovec remote{const_cast<void*>(user_src), n};
  ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  return r == static_cast<ssize_t>(n) ? 0 : -kEFAULT;
}

long copy_to_user(void* user_dst, const void* src, size_t n) {
  if (n == 0) return 0;
  if (!access_ok(user_dst, n)) return -kEFAULT;
  iovec local{const_cast<void*>(src), n};
  iovec remote{user_dst, n};
  ssize_t r = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
  return r == static_cast<ssize_t>(n) ? 0 : -kEFAULT;
}

}  // namespace minicuda::kernel
