// LD_PRELOAD interposer for the VMM probe: logs open/ioctl/mmap/munmap/close on NVIDIA device
// files, like ../../../../shared reference ioctl_sniff.c, and also dumps argument words:
// the ioctl struct itself (RM 'F' escapes: its encoded size; nvidia-uvm: the first 64 bytes),
// and for RM_ALLOC (0x2b) / RM_CONTROL (0x2a) the first 128 bytes of the pointed-to params.
// NV2080_CTRL_CMD_GR_GET_INFO (0x20801201) also gets its {index, data} list, which lives behind
// the params' grInfoList pointer: " grinfo[0x08=132 ...]".
// Reads go through process_vm_readv so an over-long read cannot fault.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

static char fdname[4096][48];
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_open)(const char*, int, ...);
static int (*real_openat)(int, const char*, int, ...);
static void* (*real_mmap)(void*, size_t, int, int, int, off_t);
static int (*real_close)(int);

static size_t peek(const void* src, void* dst, size_t n) {
  struct iovec l = {dst, n}, r = {(void*)src, n};
  ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
  if (got < 0) { memset(dst, 0, n); return 0; }
  return (size_t)got;
}
static void words(const char* tag, const void* p, size_t n) {
  uint32_t w[32] = {0};
  if (n > sizeof w) n = sizeof w;
  size_t got = peek(p, w, n);
  fprintf(stderr, " %s[", tag);
  for (size_t i = 0; i < (got + 3) / 4; ++i) fprintf(stderr, i ? " %08x" : "%08x", w[i]);
  fprintf(stderr, "]");
}
static void note_open(int fd, const char* p) {
  if (fd >= 0 && fd < 4096 && strstr(p, "nvidia")) {
    snprintf(fdname[fd], sizeof fdname[fd], "%s", p);
    fprintf(stderr, "* kernel open(%s) = fd %d\n", p, fd);
  }
}
int open(const char* p, int f, ...) {
  if (!real_open) real_open = dlsym(RTLD_NEXT, "open");
  va_list ap; va_start(ap, f); int m = va_arg(ap, int); va_end(ap);
  int fd = real_open(p, f, m); note_open(fd, p); return fd;
}
int open64(const char* p, int f, ...) {
  va_list ap; va_start(ap, f); int m = va_arg(ap, int); va_end(ap);
  return open(p, f, m);
}
int openat(int d, const char* p, int f, ...) {
  if (!real_openat) real_openat = dlsym(RTLD_NEXT, "openat");
  va_list ap; va_start(ap, f); int m = va_arg(ap, int); va_end(ap);
  int fd = real_openat(d, p, f, m); note_open(fd, p); return fd;
}
int openat64(int d, const char* p, int f, ...) {
  va_list ap; va_start(ap, f); int m = va_arg(ap, int); va_end(ap);
  return openat(d, p, f, m);
}
int close(int fd) {
  if (!real_close) real_close = dlsym(RTLD_NEXT, "close");
  if (fd >= 0 && fd < 4096 && fdname[fd][0]) {
    fprintf(stderr, "* kernel close(%s fd %d)\n", fdname[fd], fd);
    fdname[fd][0] = 0;
  }
  return real_close(fd);
}
void* mmap(void* a, size_t l, int p, int f, int fd, off_t o) {
  if (!real_mmap) real_mmap = dlsym(RTLD_NEXT, "mmap");
  void* r = real_mmap(a, l, p, f, fd, o);
  if (fd >= 0 && fd < 4096 && fdname[fd][0])
    fprintf(stderr, "* kernel mmap(%s fd %d, addr %p, len %zu, prot %d, flags 0x%x, off 0x%lx) = %p\n",
            fdname[fd], fd, a, l, p, f, (long)o, r);
  return r;
}
void* mmap64(void* a, size_t l, int p, int f, int fd, off_t o) { return mmap(a, l, p, f, fd, o); }
int ioctl(int fd, unsigned long req, ...) {
  if (!real_ioctl) real_ioctl = dlsym(RTLD_NEXT, "ioctl");
  va_list ap; va_start(ap, req); void* arg = va_arg(ap, void*); va_end(ap);
  const char* name = (fd >= 0 && fd < 4096) ? fdname[fd] : "";
  if (!name[0] || !arg) return real_ioctl(fd, req, arg);
  int uvm = strstr(name, "uvm") != NULL;
  unsigned sz = uvm ? 64 : (req >> 16) & 0x3fff;
  if (sz > 128) sz = 128;
  unsigned char before[128];
  peek(arg, before, sz);
  int r = real_ioctl(fd, req, arg);
  fprintf(stderr, "* kernel ioctl(%s fd %d, req 0x%lx nr 0x%02lx size %u) = %d", name, fd, req, req & 0xff,
          (unsigned)((req >> 16) & 0x3fff), r);
  words("in", before, sz);
  words("out", arg, sz);
  unsigned nr = req & 0xff;
  if (!uvm && (nr == 0x2a || nr == 0x2b) && sz >= 32) {
    uint64_t params; uint32_t psize;
    memcpy(&params, (char*)arg + 16, 8); memcpy(&psize, (char*)arg + 24, 4);
    if (params && psize) words("params", (void*)(uintptr_t)params, psize < 128 ? psize : 128);
    uint32_t cmd;
    memcpy(&cmd, (char*)arg + 8, 4);
    if (nr == 0x2a && cmd == 0x20801201 && params) {
      struct { uint32_t size, pad; uint64_t list; } gr;
      uint32_t pairs[2 * 64];
      if (peek((void*)(uintptr_t)params, &gr, sizeof gr) == sizeof gr && gr.size <= 64 &&
          peek((void*)(uintptr_t)gr.list, pairs, gr.size * 8) == gr.size * 8) {
        fprintf(stderr, " grinfo[");
        for (uint32_t i = 0; i < gr.size; ++i) fprintf(stderr, i ? " 0x%02x=%u" : "0x%02x=%u", pairs[2 * i], pairs[2 * i + 1]);
        fprintf(stderr, "]");
      }
    }
  }
  fprintf(stderr, "\n");
  return r;
}
