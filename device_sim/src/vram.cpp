// vram: the GPU's physical video memory (the "FB", frame buffer, in NVIDIA's terms).
//
// VRAM is one memfd as large as the device's memory. ftruncate makes it sparse: a 141 GB H200
// arena costs no host memory until a page is written, and discard() punches the pages out
// again. The memfd is also what makes UVA work: the MMU maps slices of it (MAP_SHARED) at the
// device virtual address, so every mapping of an FB offset sees the same bytes, exactly as every
// GPU virtual address mapped to one physical page does.
//
// Who talks to it: Device owns it; the Mmu maps its fd; nvidia.ko's allocator hands out offsets
// and calls discard() when memory is freed.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "minicuda/device.h"

namespace minicuda::gpu {

namespace {

// A host call that must not fail: the simulator cannot run without its VRAM. Not user input, so
// this is an invariant and aborts with the reason.
[[noreturn]] void vram_panic(const char* what, uint64_t bytes) {
  std::fprintf(stderr, "minicuda: cannot create the simulated VRAM (%llu bytes): %s: %s\n",
               static_cast<unsigned long long>(bytes), what, std::strerror(errno));
  std::abort();
}

}  // namespace

// Creates the VRAM arena: a sparse memfd of `bytes` bytes, all reading as zero. Aborts (with a
// message on stderr) if the host refuses the memfd: the simulator cannot run without it.
Vram::Vram(uint64_t bytes) : bytes_(bytes) {
  fd_ = memfd_create("minicuda-vram", MFD_CLOEXEC);
  if (fd_ < 0) vram_panic("memfd_create", bytes);
  if (ftruncate(fd_, static_cast<off_t>(bytes)) != 0) vram_panic("ftruncate", bytes);
}

// Closes the memfd; its pages go back to the host once the last mapping of them is gone.
Vram::~Vram() {
  if (fd_ >= 0) close(fd_);
}

// Gives back the host memory behind [offset, offset+length). Whole host pages inside the range
// are freed; a partial page at either end is zeroed. The range must lie inside VRAM (a bug in
// the caller otherwise, asserted). A zero length does nothing.
void Vram::discard(uint64_t offset, uint64_t length) {
  assert(offset <= bytes_ && length <= bytes_ - offset && "discard outside VRAM");
  if (length == 0) return;
  int rc = fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                     static_cast<off_t>(length));
  assert(rc == 0 && "fallocate(PUNCH_HOLE) on the VRAM memfd failed");
  (void)rc;
}

// Returns how many bytes of host memory back VRAM now: pages written and not discarded.
uint64_t Vram::resident_bytes() const {
  struct stat st {};
  if (fstat(fd_, &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

}  // namespace minicuda::gpu
