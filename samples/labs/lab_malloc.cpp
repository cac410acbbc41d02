// lab_malloc (docs/labs/, lab "malloc"): one minicuda::libc::malloc of the size given on the
// command line, in a process whose heap is still empty. Does libc grow the heap (brk) or map a
// block of its own (mmap)?
//
// Run it:  MINICUDA_TRACE=libc,kernel build/bin/lab_malloc 64
//          MINICUDA_TRACE=libc,kernel build/bin/lab_malloc 200000
// and read the lines under "malloc(...)": the libc layer's decision, the kernel's system call.
#include <minicuda/libc.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 64;
  void* p = minicuda::libc::malloc(bytes);
  minicuda::libc::MallocStats s = minicuda::libc::malloc_stats();
  std::printf("malloc(%zu) = %p: heap %zu B from brk, %zu mmapped block(s)\n", bytes, p, s.heap_bytes,
              s.mmapped_chunks);
  minicuda::libc::free(p);
  return p != nullptr ? 0 : 1;
}
