// The calls of shared/reference/host/host_malloc.c, whose strace is reference/host/strace.txt:
// the libc tests and the golden trace both run exactly this sequence on minicuda's libc.
#pragma once

#include "minicuda/libc.h"

namespace minicuda::testing {

// The four blocks' addresses (c: the second malloc(200000)); all freed by the end.
struct HostMallocBlocks {
  void *a, *b, *c, *d;
};

inline HostMallocBlocks run_host_malloc_c() {
  namespace libc = minicuda::libc;
  void* a = libc::malloc(64);
  void* b = libc::malloc(64);
  void* c = libc::malloc(200000);
  void* d = libc::malloc(100000);
  libc::free(c);
  c = libc::malloc(200000);
  libc::free(a);
  libc::free(b);
  libc::free(c);
  libc::free(d);
  return {a, b, c, d};
}

}  // namespace minicuda::testing
