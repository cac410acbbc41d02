// Stream-ordered allocator probe for CUDA 13 on an H200: return codes of the pool calls on bad
// input, the default pool attributes, ReservedMemCurrent after allocations of several sizes (the
// chunk granularity), address reuse within a stream and across streams (with and without an event
// dependency), what the release threshold and cudaMemPoolTrimTo do at a synchronize, and how
// cudaMallocAsync behaves during stream capture. Recorded into probe_mempool.txt.
//
// Build: nvcc -arch=sm_90 -o probe_mempool probe_mempool.cu -lcuda
// Each line: key = value; error codes print as "<int> <name>". Questions that could crash or
// poison the context run in a child (`probe_mempool iso <id>`), which prints its own lines and
// reports a crash as "iso.<id>.child = crashed signal=N".
#include <cuda.h>
#include <cuda_runtime.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static const char* cu_name(CUresult r) {
  const char* n = nullptr;
  return cuGetErrorName(r, &n) == CUDA_SUCCESS && n ? n : "UNKNOWN_CURESULT";
}
#define RT(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", key, (int)e_, cudaGetErrorName(e_)); fflush(stdout); } while (0)
#define DRV(key, expr) do { CUresult r_ = (expr); printf("%s = %d %s\n", key, (int)r_, cu_name(r_)); fflush(stdout); } while (0)
#define LAST(key) RT(key ".getlast", cudaGetLastError())
#define VAL(key, fmt, v) do { printf("%s = " fmt "\n", key, v); fflush(stdout); } while (0)

static const char* kAttrName[] = {"0", "ReuseFollowEventDependencies", "ReuseAllowOpportunistic",
                                  "ReuseAllowInternalDependencies", "ReleaseThreshold",
                                  "ReservedMemCurrent", "ReservedMemHigh", "UsedMemCurrent",
                                  "UsedMemHigh"};

// Spins for about `cycles` clock cycles, so the stream it runs in stays busy.
__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
__global__ void touch(char* p) { p[0] = 1; }

static cudaMemPoolProps device_props(int dev) {
  cudaMemPoolProps p;
  memset(&p, 0, sizeof p);
  p.allocType = cudaMemAllocationTypePinned;
  p.handleTypes = cudaMemHandleTypeNone;
  p.location.type = cudaMemLocationTypeDevice;
  p.location.id = dev;
  return p;
}

static void print_attrs(const char* prefix, cudaMemPool_t pool) {
  char key[160];
  for (int a = 1; a <= 8; ++a) {
    if (a <= 3) {
      int v = -1;
      snprintf(key, sizeof key, "%s.%s.rc", prefix, kAttrName[a]);
      RT(key, cudaMemPoolGetAttribute(pool, (cudaMemPoolAttr)a, &v));
      snprintf(key, sizeof key, "%s.%s", prefix, kAttrName[a]);
      VAL(key, "%d", v);
    } else {
      unsigned long long v = 12345;
      snprintf(key, sizeof key, "%s.%s.rc", prefix, kAttrName[a]);
      RT(key, cudaMemPoolGetAttribute(pool, (cudaMemPoolAttr)a, &v));
      snprintf(key, sizeof key, "%s.%s", prefix, kAttrName[a]);
      VAL(key, "%llu", v);
    }
  }
}

static unsigned long long attr64(cudaMemPool_t pool, cudaMemPoolAttr a) {
  unsigned long long v = 0;
  cudaMemPoolGetAttribute(pool, a, &v);
  return v;
}

// ---- isolated questions ----------------------------------------------------------------------
struct Iso { const char* id; void (*fn)(); };
static Iso g_iso[96];
static int g_iso_count = 0;
struct IsoReg { IsoReg(const char* id, void (*fn)()) { g_iso[g_iso_count++] = Iso{id, fn}; } };
static cudaMemPool_t default_pool0() { cudaMemPool_t p; cudaDeviceGetDefaultMemPool(&p, 0); return p; }
#define ISO(id) static void iso_##id(); static IsoReg iso_reg_##id(#id, iso_##id); static void iso_##id()

ISO(double_free_async) {
  void* p = nullptr;
  RT("double_free_async.malloc", cudaMallocAsync(&p, 1024, 0));
  RT("double_free_async.free1", cudaFreeAsync(p, 0));
  RT("double_free_async.free2", cudaFreeAsync(p, 0));
  LAST("double_free_async");
  RT("double_free_async.sync", cudaStreamSynchronize(0));
  RT("double_free_async.after_malloc", cudaMallocAsync(&p, 1024, 0));
}
ISO(double_free_after_sync) {
  void* p = nullptr;
  RT("double_free_after_sync.malloc", cudaMallocAsync(&p, 1024, 0));
  RT("double_free_after_sync.free1", cudaFreeAsync(p, 0));
  RT("double_free_after_sync.sync1", cudaStreamSynchronize(0));
  RT("double_free_after_sync.free2", cudaFreeAsync(p, 0));
  LAST("double_free_after_sync");
  RT("double_free_after_sync.sync2", cudaStreamSynchronize(0));
}
ISO(cudafree_of_async) {
  void* p = nullptr;
  RT("cudafree_of_async.malloc", cudaMallocAsync(&p, 1024, 0));
  RT("cudafree_of_async.sync0", cudaStreamSynchronize(0));
  RT("cudafree_of_async.cudaFree", cudaFree(p));
  LAST("cudafree_of_async");
  RT("cudafree_of_async.sync", cudaDeviceSynchronize());
  RT("cudafree_of_async.freeasync_after", cudaFreeAsync(p, 0));
  RT("cudafree_of_async.sync2", cudaDeviceSynchronize());
}
ISO(cudafree_of_async_nosync) {
  void* p = nullptr;
  RT("cudafree_of_async_nosync.malloc", cudaMallocAsync(&p, 1024, 0));
  RT("cudafree_of_async_nosync.cudaFree", cudaFree(p));
  RT("cudafree_of_async_nosync.sync", cudaDeviceSynchronize());
}
ISO(freeasync_of_cudamalloc) {
  void* p = nullptr;
  RT("freeasync_of_cudamalloc.cudaMalloc", cudaMalloc(&p, 1024));
  RT("freeasync_of_cudamalloc.freeasync", cudaFreeAsync(p, 0));
  LAST("freeasync_of_cudamalloc");
  RT("freeasync_of_cudamalloc.sync", cudaStreamSynchronize(0));
  RT("freeasync_of_cudamalloc.cudaFree_after", cudaFree(p));
}
ISO(freeasync_host_ptr) {
  static char buf[64];
  RT("freeasync_host_ptr.freeasync", cudaFreeAsync(buf, 0));
  LAST("freeasync_host_ptr");
  RT("freeasync_host_ptr.sync", cudaStreamSynchronize(0));
}
ISO(freeasync_interior) {
  void* p = nullptr;
  RT("freeasync_interior.malloc", cudaMallocAsync(&p, 4096, 0));
  RT("freeasync_interior.free", cudaFreeAsync((char*)p + 256, 0));
  LAST("freeasync_interior");
  RT("freeasync_interior.sync", cudaStreamSynchronize(0));
  RT("freeasync_interior.free_base", cudaFreeAsync(p, 0));
  RT("freeasync_interior.sync2", cudaStreamSynchronize(0));
}
ISO(bad_stream) {
  void* p = nullptr;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaStreamDestroy(s);
  RT("bad_stream.malloc_destroyed", cudaMallocAsync(&p, 16, s));
  RT("bad_stream.free_destroyed", cudaFreeAsync(p, s));
}
ISO(destroy_twice) {
  cudaMemPool_t pool;
  cudaMemPoolProps props = device_props(0);
  RT("destroy_twice.create", cudaMemPoolCreate(&pool, &props));
  RT("destroy_twice.destroy1", cudaMemPoolDestroy(pool));
  RT("destroy_twice.destroy2", cudaMemPoolDestroy(pool));
  unsigned long long v = 0;
  RT("destroy_twice.getattr_destroyed", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v));
}
ISO(destroy_with_live_alloc) {
  cudaMemPool_t pool;
  cudaMemPoolProps props = device_props(0);
  void* p = nullptr;
  RT("destroy_with_live_alloc.create", cudaMemPoolCreate(&pool, &props));
  RT("destroy_with_live_alloc.malloc", cudaMallocFromPoolAsync(&p, 4096, pool, 0));
  RT("destroy_with_live_alloc.sync", cudaStreamSynchronize(0));
  RT("destroy_with_live_alloc.destroy", cudaMemPoolDestroy(pool));
  RT("destroy_with_live_alloc.free", cudaFreeAsync(p, 0));
  RT("destroy_with_live_alloc.sync2", cudaStreamSynchronize(0));
}
ISO(setmempool_then_destroy) {
  cudaMemPool_t pool, cur, def;
  cudaMemPoolProps props = device_props(0);
  RT("setmempool_then_destroy.create", cudaMemPoolCreate(&pool, &props));
  RT("setmempool_then_destroy.set", cudaDeviceSetMemPool(0, pool));
  RT("setmempool_then_destroy.destroy", cudaMemPoolDestroy(pool));
  RT("setmempool_then_destroy.get", cudaDeviceGetMemPool(&cur, 0));
  cudaDeviceGetDefaultMemPool(&def, 0);
  VAL("setmempool_then_destroy.current_is_default", "%d", cur == def ? 1 : 0);
}
ISO(malloc_in_capture_legacy) {
  // cudaMallocAsync on the legacy stream while another stream captures in global mode.
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void* p = nullptr;
  RT("malloc_in_capture_legacy.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  RT("malloc_in_capture_legacy.malloc_legacy", cudaMallocAsync(&p, 1024, 0));
  RT("malloc_in_capture_legacy.cudaMalloc", cudaMalloc(&p, 1024));
  cudaGraph_t g = nullptr;
  RT("malloc_in_capture_legacy.end", cudaStreamEndCapture(s, &g));
  LAST("malloc_in_capture_legacy");
}
ISO(pool_calls_in_capture) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  RT("pool_calls_in_capture.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  RT("pool_calls_in_capture.trim", cudaMemPoolTrimTo(pool, 0));
  unsigned long long v = 0;
  RT("pool_calls_in_capture.getattr", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v));
  RT("pool_calls_in_capture.setattr", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &v));
  cudaMemPoolProps props = device_props(0);
  cudaMemPool_t np;
  RT("pool_calls_in_capture.create", cudaMemPoolCreate(&np, &props));
  cudaGraph_t g = nullptr;
  RT("pool_calls_in_capture.end", cudaStreamEndCapture(s, &g));
  LAST("pool_calls_in_capture");
}
ISO(free_captured_alloc_outside) {
  // An allocation made in a captured graph, freed with cudaFreeAsync outside the graph.
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void* p = nullptr;
  RT("free_captured_alloc_outside.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  RT("free_captured_alloc_outside.malloc", cudaMallocAsync(&p, 1 << 20, s));
  cudaGraph_t g = nullptr;
  RT("free_captured_alloc_outside.end", cudaStreamEndCapture(s, &g));
  cudaGraphExec_t ge = nullptr;
  RT("free_captured_alloc_outside.instantiate", cudaGraphInstantiate(&ge, g, 0));
  RT("free_captured_alloc_outside.launch", cudaGraphLaunch(ge, s));
  RT("free_captured_alloc_outside.sync", cudaStreamSynchronize(s));
  RT("free_captured_alloc_outside.launch_again", cudaGraphLaunch(ge, s));
  RT("free_captured_alloc_outside.sync_again", cudaStreamSynchronize(s));
  RT("free_captured_alloc_outside.freeasync", cudaFreeAsync(p, s));
  RT("free_captured_alloc_outside.sync2", cudaStreamSynchronize(s));
  RT("free_captured_alloc_outside.launch3", cudaGraphLaunch(ge, s));
  RT("free_captured_alloc_outside.sync3", cudaStreamSynchronize(s));
}
ISO(free_foreign_in_capture) {
  // cudaFreeAsync during capture of a pointer allocated outside the capture.
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void* p = nullptr;
  cudaMallocAsync(&p, 4096, s);
  cudaStreamSynchronize(s);
  RT("free_foreign_in_capture.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  RT("free_foreign_in_capture.free", cudaFreeAsync(p, s));
  cudaGraph_t g = nullptr;
  RT("free_foreign_in_capture.end", cudaStreamEndCapture(s, &g));
  size_t n = 0;
  if (g) { cudaGraphGetNodes(g, nullptr, &n); }
  VAL("free_foreign_in_capture.nodes", "%zu", n);
  if (g) {
    cudaGraphNode_t nodes[8];
    size_t m = 8;
    cudaGraphGetNodes(g, nodes, &m);
    for (size_t i = 0; i < m && i < 8; ++i) {
      cudaGraphNodeType t;
      cudaGraphNodeGetType(nodes[i], &t);
      printf("free_foreign_in_capture.node%zu.type = %d\n", i, (int)t);
    }
  }
  LAST("free_foreign_in_capture");
}
ISO(cudamalloc_null_size0_async) {
  void* p = (void*)0x1234;
  RT("size0.malloc", cudaMallocAsync(&p, 0, 0));
  VAL("size0.ptr_is_null", "%d", p == nullptr ? 1 : 0);
  VAL("size0.ptr", "%p", p);
  RT("size0.free", cudaFreeAsync(p, 0));
  RT("size0.sync", cudaStreamSynchronize(0));
}
ISO(malloc_null_out) {
  RT("malloc_null_out.malloc", cudaMallocAsync(nullptr, 16, 0));
  RT("malloc_null_out.frompool", cudaMallocFromPoolAsync(nullptr, 16, nullptr, 0));
  cudaMemPool_t pool; cudaDeviceGetDefaultMemPool(&pool, 0);
  RT("malloc_null_out.frompool_defpool", cudaMallocFromPoolAsync(nullptr, 16, pool, 0));
  LAST("malloc_null_out");
}
ISO(g1) { RT("getattr_null_value.get", cudaMemPoolGetAttribute(default_pool0(), cudaMemPoolAttrReleaseThreshold, nullptr)); }
ISO(g2) { RT("getattr_null_value.set", cudaMemPoolSetAttribute(default_pool0(), cudaMemPoolAttrReleaseThreshold, nullptr)); }
ISO(p1) { unsigned long long v = 0; RT("null_pool.getattr", cudaMemPoolGetAttribute(nullptr, cudaMemPoolAttrReleaseThreshold, &v)); }
ISO(p2) { unsigned long long v = 0; RT("null_pool.setattr", cudaMemPoolSetAttribute(nullptr, cudaMemPoolAttrReleaseThreshold, &v)); }
ISO(p3) { RT("null_pool.trim", cudaMemPoolTrimTo(nullptr, 0)); }
ISO(p4) { RT("null_pool.destroy", cudaMemPoolDestroy(nullptr)); }
ISO(p5) { void* p = nullptr; RT("null_pool.frompool", cudaMallocFromPoolAsync(&p, 16, nullptr, 0)); }
ISO(p6) { RT("null_pool.setmempool", cudaDeviceSetMemPool(0, nullptr)); }
ISO(p7) { cudaMemLocation loc{cudaMemLocationTypeDevice, 0}; cudaMemAccessFlags f; RT("null_pool.getaccess", cudaMemPoolGetAccess(&f, nullptr, &loc)); }
ISO(p8) { cudaMemAccessDesc d{}; d.location = {cudaMemLocationTypeDevice, 0}; d.flags = cudaMemAccessFlagsProtReadWrite; RT("null_pool.setaccess", cudaMemPoolSetAccess(nullptr, &d, 1)); }
ISO(driver_null) {
  CUmemoryPool pool = nullptr;
  CUdeviceptr dp = 0;
  cuuint64_t v = 0;
  DRV("driver_null.allocasync_size0", cuMemAllocAsync(&dp, 0, 0));
  DRV("driver_null.freeasync_0", cuMemFreeAsync(0, 0));
  DRV("driver_null.defaultpool_baddev", cuDeviceGetDefaultMemPool(&pool, 7));
  DRV("driver_null.trim_nullpool", cuMemPoolTrimTo(nullptr, 0));
  DRV("driver_null.destroy_nullpool", cuMemPoolDestroy(nullptr));
  DRV("driver_null.frompool_nullpool", cuMemAllocFromPoolAsync(&dp, 16, nullptr, 0));
  DRV("driver_null.setmempool_nullpool", cuDeviceSetMemPool(0, nullptr));
}

// Runs `self iso <id>` for each isolated question, with a 20 s alarm for hangs.
static void run_isolated(const char* self) {
  for (int i = 0; i < g_iso_count; ++i) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(20);
      execl(self, self, "iso", g_iso[i].id, (char*)nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) printf("iso.%s.child = crashed signal=%d\n", g_iso[i].id, WTERMSIG(status));
    else printf("iso.%s.child = exited %d\n", g_iso[i].id, WEXITSTATUS(status));
  }
}
static int iso_child(const char* id) {
  cudaFree(0);
  for (int i = 0; i < g_iso_count; ++i)
    if (strcmp(g_iso[i].id, id) == 0) { g_iso[i].fn(); fflush(stdout); return 0; }
  printf("iso.unknown = %s\n", id);
  return 2;
}

// ---- in-process questions --------------------------------------------------------------------
static void probe_defaults() {
  int v = -1;
  RT("devattr.MemoryPoolsSupported.rc", cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0));
  VAL("devattr.MemoryPoolsSupported", "%d", v);
  RT("devattr.MemoryPoolSupportedHandleTypes.rc", cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
  VAL("devattr.MemoryPoolSupportedHandleTypes", "%d", v);
  cudaMemPool_t def = nullptr, cur = nullptr;
  RT("default.get", cudaDeviceGetDefaultMemPool(&def, 0));
  RT("default.getmempool", cudaDeviceGetMemPool(&cur, 0));
  VAL("default.current_is_default", "%d", cur == def ? 1 : 0);
  VAL("default.handle_nonnull", "%d", def != nullptr ? 1 : 0);
  print_attrs("default_attr", def);
  cudaMemPool_t pool;
  cudaMemPoolProps props = device_props(0);
  RT("created.create", cudaMemPoolCreate(&pool, &props));
  VAL("created.differs_from_default", "%d", pool != def ? 1 : 0);
  print_attrs("created_attr", pool);
  cudaMemLocation loc{cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags f = (cudaMemAccessFlags)77;
  RT("access.get_dev0.rc", cudaMemPoolGetAccess(&f, pool, &loc));
  VAL("access.get_dev0", "%d", (int)f);
  loc.id = 1; f = (cudaMemAccessFlags)77;
  RT("access.get_dev1.rc", cudaMemPoolGetAccess(&f, pool, &loc));
  VAL("access.get_dev1", "%d", (int)f);
  loc.id = -1;
  RT("access.get_devm1.rc", cudaMemPoolGetAccess(&f, pool, &loc));
  loc = {cudaMemLocationTypeHost, 0};
  f = (cudaMemAccessFlags)77;
  RT("access.get_host.rc", cudaMemPoolGetAccess(&f, pool, &loc));
  VAL("access.get_host", "%d", (int)f);
  loc = {cudaMemLocationTypeDevice, 0};
  cudaMemAccessDesc d{};
  d.location = {cudaMemLocationTypeDevice, 0};
  d.flags = cudaMemAccessFlagsProtReadWrite;
  RT("access.set_dev0_rw", cudaMemPoolSetAccess(pool, &d, 1));
  d.flags = cudaMemAccessFlagsProtRead;
  RT("access.set_dev0_read", cudaMemPoolSetAccess(pool, &d, 1));
  d.flags = cudaMemAccessFlagsProtNone;
  RT("access.set_dev0_none", cudaMemPoolSetAccess(pool, &d, 1));
  d.flags = (cudaMemAccessFlags)2;
  RT("access.set_dev0_flags2", cudaMemPoolSetAccess(pool, &d, 1));
  d.location.id = 1; d.flags = cudaMemAccessFlagsProtReadWrite;
  RT("access.set_dev1_rw", cudaMemPoolSetAccess(pool, &d, 1));
  d.location = {cudaMemLocationTypeHost, 0};
  RT("access.set_host_rw", cudaMemPoolSetAccess(pool, &d, 1));
  d.location = {cudaMemLocationTypeDevice, 0};
  RT("access.set_count0", cudaMemPoolSetAccess(pool, &d, 0));
  RT("access.set_nulldesc_count0", cudaMemPoolSetAccess(pool, nullptr, 0));
  LAST("access");
  RT("created.destroy", cudaMemPoolDestroy(pool));
  RT("default.destroy", cudaMemPoolDestroy(def));
  LAST("default.destroy");
}

static void probe_create_errors() {
  cudaMemPool_t pool;
  cudaMemPoolProps p = device_props(0);
  p = device_props(0); p.allocType = cudaMemAllocationTypeInvalid;
  RT("create.alloctype_invalid", cudaMemPoolCreate(&pool, &p));
  p = device_props(0); p.location.id = 1;
  RT("create.dev1", cudaMemPoolCreate(&pool, &p));
  p = device_props(0); p.location.id = -1;
  RT("create.devm1", cudaMemPoolCreate(&pool, &p));
  p = device_props(0); p.location.type = cudaMemLocationTypeInvalid;
  RT("create.loc_invalid", cudaMemPoolCreate(&pool, &p));
  p = device_props(0); p.location.type = cudaMemLocationTypeHost;
  cudaError_t e = cudaMemPoolCreate(&pool, &p);
  RT("create.loc_host", e);
  if (e == cudaSuccess) cudaMemPoolDestroy(pool);
  p = device_props(0); p.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  e = cudaMemPoolCreate(&pool, &p);
  RT("create.handle_fd", e);
  if (e == cudaSuccess) cudaMemPoolDestroy(pool);
  p = device_props(0); p.handleTypes = cudaMemHandleTypeWin32;
  RT("create.handle_win32", cudaMemPoolCreate(&pool, &p));
  p = device_props(0); p.handleTypes = (cudaMemAllocationHandleType)0x40;
  RT("create.handle_0x40", cudaMemPoolCreate(&pool, &p));
  p = device_props(0); p.reserved[0] = 1;
  e = cudaMemPoolCreate(&pool, &p);
  RT("create.reserved_nonzero", e);
  if (e == cudaSuccess) cudaMemPoolDestroy(pool);
  p = device_props(0); p.maxSize = 1 << 20;
  e = cudaMemPoolCreate(&pool, &p);
  RT("create.maxsize_1MiB", e);
  if (e == cudaSuccess) {
    void* a = nullptr;
    RT("maxsize_1MiB.alloc_512KiB", cudaMallocFromPoolAsync(&a, 512 << 10, pool, 0));
    VAL("maxsize_1MiB.reserved", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
    void* b = nullptr;
    RT("maxsize_1MiB.alloc_1MiB_more", cudaMallocFromPoolAsync(&b, 1 << 20, pool, 0));
    LAST("maxsize_1MiB");
    cudaFreeAsync(a, 0); cudaStreamSynchronize(0);
    cudaMemPoolDestroy(pool);
  }
  p = device_props(0); p.maxSize = 3 << 20;
  e = cudaMemPoolCreate(&pool, &p);
  RT("create.maxsize_3MiB", e);
  if (e == cudaSuccess) {
    void* a = nullptr;
    RT("maxsize_3MiB.alloc_1KiB", cudaMallocFromPoolAsync(&a, 1024, pool, 0));
    VAL("maxsize_3MiB.reserved", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
    void* b = nullptr;
    RT("maxsize_3MiB.alloc_4MiB", cudaMallocFromPoolAsync(&b, 4 << 20, pool, 0));
    LAST("maxsize_3MiB");
    cudaFreeAsync(a, 0); cudaStreamSynchronize(0);
    cudaMemPoolDestroy(pool);
  }
  cudaMemPool_t d;
  RT("defaultpool.dev1", cudaDeviceGetDefaultMemPool(&d, 1));
  RT("defaultpool.devm1", cudaDeviceGetDefaultMemPool(&d, -1));
  RT("getmempool.dev1", cudaDeviceGetMemPool(&d, 1));
  cudaDeviceGetDefaultMemPool(&d, 0);
  RT("setmempool.dev1", cudaDeviceSetMemPool(1, d));
  RT("setmempool.devm1", cudaDeviceSetMemPool(-1, d));
  RT("setmempool.default", cudaDeviceSetMemPool(0, d));
  LAST("create_errors");
}

static void probe_attr_errors() {
  cudaMemPool_t pool;
  cudaMemPoolProps props = device_props(0);
  cudaMemPoolCreate(&pool, &props);
  unsigned long long v = 0;
  RT("getattr.attr0", cudaMemPoolGetAttribute(pool, (cudaMemPoolAttr)0, &v));
  RT("getattr.attr9", cudaMemPoolGetAttribute(pool, (cudaMemPoolAttr)9, &v));
  RT("getattr.attr100", cudaMemPoolGetAttribute(pool, (cudaMemPoolAttr)100, &v));
  RT("setattr.attr0", cudaMemPoolSetAttribute(pool, (cudaMemPoolAttr)0, &v));
  RT("setattr.attr9", cudaMemPoolSetAttribute(pool, (cudaMemPoolAttr)9, &v));
  v = 0;
  RT("setattr.ReservedMemCurrent_0", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v));
  RT("setattr.UsedMemCurrent_0", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &v));
  RT("setattr.ReservedMemHigh_0", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &v));
  RT("setattr.UsedMemHigh_0", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v));
  v = 5;
  RT("setattr.ReservedMemHigh_5", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &v));
  RT("setattr.UsedMemHigh_5", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v));
  int iv = 0;
  RT("setattr.ReuseFollowEventDependencies_0", cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &iv));
  iv = 2;
  RT("setattr.ReuseAllowOpportunistic_2", cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &iv));
  iv = -1;
  RT("setattr.ReuseAllowInternalDependencies_m1", cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &iv));
  print_attrs("after_set_attr", pool);
  unsigned long long big = ~0ull;
  RT("setattr.ReleaseThreshold_max", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big));
  VAL("setattr.ReleaseThreshold_max.readback", "%llu", attr64(pool, cudaMemPoolAttrReleaseThreshold));
  big = 12345;
  RT("setattr.ReleaseThreshold_12345", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big));
  VAL("setattr.ReleaseThreshold_12345.readback", "%llu", attr64(pool, cudaMemPoolAttrReleaseThreshold));
  RT("trim.huge", cudaMemPoolTrimTo(pool, ~(size_t)0));
  LAST("attr_errors");
  cudaMemPoolDestroy(pool);
}

static void probe_malloc_errors() {
  void* p = nullptr;
  RT("malloc.huge_2e50", cudaMallocAsync(&p, (size_t)1 << 50, 0));
  LAST("malloc.huge_2e50");
  RT("malloc.huge_2e63", cudaMallocAsync(&p, (size_t)1 << 63, 0));
  LAST("malloc.huge_2e63");
  RT("malloc.after_huge", cudaMallocAsync(&p, 64, 0));
  RT("malloc.after_huge.free", cudaFreeAsync(p, 0));
  RT("freeasync.null", cudaFreeAsync(nullptr, 0));
  LAST("freeasync.null");
  CUdeviceptr dp = 0;
  DRV("drv.allocasync_huge", cuMemAllocAsync(&dp, (size_t)1 << 50, 0));
  cudaStreamSynchronize(0);
}

// Reserved after one allocation of each size in a fresh pool: reveals the chunk sizes.
static void probe_granularity() {
  const size_t sizes[] = {1, 256, 512, 4096, 65536, 1 << 20, (2 << 20) - 1, 2 << 20, (2 << 20) + 1,
                          4 << 20, 8 << 20, 16 << 20, 32 << 20, (32 << 20) + 1, 33 << 20,
                          64 << 20, 100 << 20, 256 << 20, 1ull << 30};
  cudaMemPoolProps props = device_props(0);
  for (size_t s : sizes) {
    cudaMemPool_t pool;
    cudaMemPoolCreate(&pool, &props);
    void* p = nullptr;
    cudaError_t e = cudaMallocFromPoolAsync(&p, s, pool, 0);
    printf("gran.%zu.rc = %d reserved=%llu used=%llu align4k=%d align2m=%d\n", s, (int)e,
           attr64(pool, cudaMemPoolAttrReservedMemCurrent), attr64(pool, cudaMemPoolAttrUsedMemCurrent),
           (int)(((uintptr_t)p & 0xfff) == 0), (int)(((uintptr_t)p & 0x1fffff) == 0));
    cudaFreeAsync(p, 0);
    cudaStreamSynchronize(0);
    printf("gran.%zu.after_free_sync reserved=%llu used=%llu\n", s,
           attr64(pool, cudaMemPoolAttrReservedMemCurrent), attr64(pool, cudaMemPoolAttrUsedMemCurrent));
    cudaMemPoolDestroy(pool);
  }
  // Many small allocations in one pool: address spacing and when Reserved grows.
  cudaMemPool_t pool;
  cudaMemPoolCreate(&pool, &props);
  unsigned long long threshold = ~0ull;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  const size_t small[] = {1, 1, 100, 256, 257, 512, 1000, 4096};
  void* prev = nullptr;
  for (int i = 0; i < 8; ++i) {
    void* p = nullptr;
    cudaMallocFromPoolAsync(&p, small[i], pool, 0);
    printf("seq.%d.size%zu ptr_mod512=%llu delta=%lld reserved=%llu used=%llu\n", i, small[i],
           (unsigned long long)((uintptr_t)p % 512), prev ? (long long)((char*)p - (char*)prev) : 0ll,
           attr64(pool, cudaMemPoolAttrReservedMemCurrent), attr64(pool, cudaMemPoolAttrUsedMemCurrent));
    prev = p;
  }
  // 1 MiB allocations until Reserved grows past its first chunk.
  unsigned long long r0 = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
  for (int i = 0; i < 80; ++i) {
    void* p = nullptr;
    cudaMallocFromPoolAsync(&p, 1 << 20, pool, 0);
    unsigned long long r = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    if (r != r0) { printf("seq1m.grow_at_%d reserved=%llu\n", i, r); r0 = r; }
  }
  VAL("seq.reserved_high", "%llu", attr64(pool, cudaMemPoolAttrReservedMemHigh));
  VAL("seq.used_high", "%llu", attr64(pool, cudaMemPoolAttrUsedMemHigh));
  cudaStreamSynchronize(0);
  cudaMemPoolDestroy(pool);
}

// Address reuse: same stream, another stream with/without event, opportunistic on/off.
static void probe_reuse() {
  cudaMemPoolProps props = device_props(0);
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  const long long kSpin = 200000000;  // ~100 ms at ~2 GHz: the free in `a` is still pending.
  for (int variant = 0; variant < 8; ++variant) {
    // variant bit0: opportunistic off; bit1: internal deps off; bit2: event-deps off
    cudaMemPool_t pool;
    cudaMemPoolCreate(&pool, &props);
    unsigned long long thr = ~0ull;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
    int opp = !(variant & 1), internal = !(variant & 2), ev = !(variant & 4);
    cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &opp);
    cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &internal);
    cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &ev);
    char key[128];
    void *p1 = nullptr, *p2 = nullptr, *p3 = nullptr, *p4 = nullptr, *p5 = nullptr, *p6 = nullptr;
    // Same stream.
    cudaMallocFromPoolAsync(&p1, 1 << 20, pool, a);
    spin<<<1, 1, 0, a>>>(kSpin);
    cudaFreeAsync(p1, a);
    cudaMallocFromPoolAsync(&p2, 1 << 20, pool, a);
    snprintf(key, sizeof key, "reuse.v%d.same_stream_same_addr", variant);
    VAL(key, "%d", p1 == p2 ? 1 : 0);
    // Other stream, no dependency, free still pending.
    spin<<<1, 1, 0, a>>>(kSpin);
    cudaFreeAsync(p2, a);
    cudaError_t e = cudaMallocFromPoolAsync(&p3, 1 << 20, pool, b);
    snprintf(key, sizeof key, "reuse.v%d.other_stream_pending.rc", variant);
    VAL(key, "%d", (int)e);
    snprintf(key, sizeof key, "reuse.v%d.other_stream_pending_same_addr", variant);
    VAL(key, "%d", p3 == p2 ? 1 : 0);
    snprintf(key, sizeof key, "reuse.v%d.other_stream_pending_reserved", variant);
    VAL(key, "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
    cudaStreamSynchronize(a);
    cudaStreamSynchronize(b);
    cudaFreeAsync(p3, b);
    cudaStreamSynchronize(b);
    // Other stream after the free completed (no event): opportunistic reuse.
    if (p3 != p2) { /* p2 already free */ }
    void* q = nullptr;
    cudaMallocFromPoolAsync(&q, 1 << 20, pool, a);
    spin<<<1, 1, 0, a>>>(1000);
    cudaFreeAsync(q, a);
    cudaStreamSynchronize(a);
    cudaMallocFromPoolAsync(&p4, 1 << 20, pool, b);
    snprintf(key, sizeof key, "reuse.v%d.other_stream_completed_same_addr", variant);
    VAL(key, "%d", p4 == q ? 1 : 0);
    cudaFreeAsync(p4, b);
    cudaStreamSynchronize(b);
    // Other stream with an event dependency, free still pending.
    cudaEvent_t ev_done;
    cudaEventCreateWithFlags(&ev_done, cudaEventDisableTiming);
    cudaMallocFromPoolAsync(&p5, 1 << 20, pool, a);
    spin<<<1, 1, 0, a>>>(kSpin);
    cudaFreeAsync(p5, a);
    cudaEventRecord(ev_done, a);
    cudaStreamWaitEvent(b, ev_done, 0);
    cudaMallocFromPoolAsync(&p6, 1 << 20, pool, b);
    snprintf(key, sizeof key, "reuse.v%d.other_stream_event_same_addr", variant);
    VAL(key, "%d", p6 == p5 ? 1 : 0);
    cudaFreeAsync(p6, b);
    cudaDeviceSynchronize();
    cudaEventDestroy(ev_done);
    snprintf(key, sizeof key, "reuse.v%d.getlast", variant);
    RT(key, cudaGetLastError());
    cudaMemPoolDestroy(pool);
  }
  // Smaller request after a bigger free in the same stream: same address?
  cudaMemPool_t pool;
  cudaMemPoolCreate(&pool, &props);
  void *x = nullptr, *y = nullptr;
  cudaMallocFromPoolAsync(&x, 4 << 20, pool, a);
  cudaFreeAsync(x, a);
  cudaMallocFromPoolAsync(&y, 1 << 20, pool, a);
  VAL("reuse.smaller_after_bigger_same_addr", "%d", x == y ? 1 : 0);
  cudaFreeAsync(y, a);
  cudaStreamSynchronize(a);
  cudaMemPoolDestroy(pool);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

// Release threshold and TrimTo: Reserved after the free, after the sync, after trim.
static void probe_release() {
  cudaMemPoolProps props = device_props(0);
  const unsigned long long thresholds[] = {0, 1 << 20, 32ull << 20, 64ull << 20, ~0ull};
  for (unsigned long long t : thresholds) {
    cudaMemPool_t pool;
    cudaMemPoolCreate(&pool, &props);
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &t);
    void *p = nullptr, *q = nullptr;
    cudaMallocFromPoolAsync(&p, 48 << 20, pool, 0);
    cudaMallocFromPoolAsync(&q, 4 << 20, pool, 0);
    unsigned long long r_alloc = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    cudaFreeAsync(p, 0);
    unsigned long long r_free = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    cudaStreamSynchronize(0);
    unsigned long long r_sync = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    cudaFreeAsync(q, 0);
    cudaStreamSynchronize(0);
    unsigned long long r_sync2 = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    printf("release.thr%llu alloc=%llu free=%llu sync=%llu freeall_sync=%llu high=%llu\n", t, r_alloc,
           r_free, r_sync, r_sync2, attr64(pool, cudaMemPoolAttrReservedMemHigh));
    cudaMemPoolTrimTo(pool, 40 << 20);
    unsigned long long r_t40 = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    cudaMemPoolTrimTo(pool, 1 << 20);
    unsigned long long r_t1 = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    cudaMemPoolTrimTo(pool, 0);
    unsigned long long r_t0 = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    printf("release.thr%llu trim40m=%llu trim1m=%llu trim0=%llu\n", t, r_t40, r_t1, r_t0);
    cudaMemPoolDestroy(pool);
  }
  // Trim while an allocation is live; event synchronize and device synchronize as release points.
  cudaMemPool_t pool;
  cudaMemPoolCreate(&pool, &props);
  unsigned long long thr = ~0ull;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  void *p = nullptr, *q = nullptr;
  cudaMallocFromPoolAsync(&p, 8 << 20, pool, 0);
  cudaMallocFromPoolAsync(&q, 40 << 20, pool, 0);
  cudaFreeAsync(q, 0);
  cudaStreamSynchronize(0);
  VAL("trim_live.before", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  RT("trim_live.trim0", cudaMemPoolTrimTo(pool, 0));
  VAL("trim_live.after", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  VAL("trim_live.used", "%llu", attr64(pool, cudaMemPoolAttrUsedMemCurrent));
  thr = 0;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr);
  cudaMallocFromPoolAsync(&q, 40 << 20, pool, 0);
  cudaFreeAsync(q, 0);
  cudaEvent_t e;
  cudaEventCreate(&e);
  cudaEventRecord(e, 0);
  cudaEventSynchronize(e);
  VAL("release_points.after_event_sync", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  cudaDeviceSynchronize();
  VAL("release_points.after_device_sync", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  cudaMallocFromPoolAsync(&q, 40 << 20, pool, 0);
  cudaFreeAsync(q, 0);
  VAL("release_points.after_free_nosync", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  cudaStreamSynchronize(0);
  VAL("release_points.after_stream_sync", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  cudaFreeAsync(p, 0);
  cudaStreamSynchronize(0);
  VAL("release_points.all_free", "%llu", attr64(pool, cudaMemPoolAttrReservedMemCurrent));
  cudaEventDestroy(e);
  cudaMemPoolDestroy(pool);
  // Default pool and cudaMallocAsync vs cudaMalloc: pointer attributes.
  void* a = nullptr;
  cudaMallocAsync(&a, 1000, 0);
  cudaStreamSynchronize(0);
  cudaPointerAttributes pa{};
  RT("ptrattr.async.rc", cudaPointerGetAttributes(&pa, a));
  VAL("ptrattr.async.type", "%d", (int)pa.type);
  VAL("ptrattr.async.device", "%d", pa.device);
  CUmemoryPool mp = nullptr;
  DRV("ptrattr.async.mempool_handle.rc", cuPointerGetAttribute(&mp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, (CUdeviceptr)a));
  cudaMemPool_t def;
  cudaDeviceGetDefaultMemPool(&def, 0);
  VAL("ptrattr.async.mempool_is_default", "%d", (void*)mp == (void*)def ? 1 : 0);
  VAL("ptrattr.async.align256", "%d", (int)(((uintptr_t)a & 255) == 0));
  touch<<<1, 1>>>((char*)a);
  RT("ptrattr.async.touch_sync", cudaDeviceSynchronize());
  cudaFreeAsync(a, 0);
  cudaStreamSynchronize(0);
}

// cudaMallocAsync during stream capture: which nodes the graph gets, and their launches.
static void probe_capture() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void* p = nullptr;
  RT("capture.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  RT("capture.malloc", cudaMallocAsync(&p, 1 << 20, s));
  VAL("capture.ptr_nonnull", "%d", p != nullptr ? 1 : 0);
  touch<<<1, 1, 0, s>>>((char*)p);
  RT("capture.free", cudaFreeAsync(p, s));
  cudaGraph_t g = nullptr;
  RT("capture.end", cudaStreamEndCapture(s, &g));
  size_t n = 0;
  cudaGraphGetNodes(g, nullptr, &n);
  VAL("capture.nodes", "%zu", n);
  cudaGraphNode_t nodes[8];
  size_t m = 8;
  cudaGraphGetNodes(g, nodes, &m);
  for (size_t i = 0; i < m && i < 8; ++i) {
    cudaGraphNodeType t;
    cudaGraphNodeGetType(nodes[i], &t);
    printf("capture.node%zu.type = %d\n", i, (int)t);
    if (t == cudaGraphNodeTypeMemAlloc) {
      cudaMemAllocNodeParams prm;
      cudaGraphMemAllocNodeGetParams(nodes[i], &prm);
      printf("capture.node%zu.alloc.bytesize = %zu dptr_is_p=%d\n", i, prm.bytesize, prm.dptr == p ? 1 : 0);
    }
  }
  cudaGraphExec_t ge = nullptr;
  RT("capture.instantiate", cudaGraphInstantiate(&ge, g, 0));
  RT("capture.launch", cudaGraphLaunch(ge, s));
  RT("capture.sync", cudaStreamSynchronize(s));
  unsigned long long v = 0;
  cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &v);
  VAL("capture.graphmem_reserved", "%llu", v);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  // Relaxed mode: cudaMallocAsync on another stream is allowed?
  void* r = nullptr;
  cudaStream_t o;
  cudaStreamCreateWithFlags(&o, cudaStreamNonBlocking);
  RT("capture_relaxed.begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  RT("capture_relaxed.malloc_other_stream", cudaMallocAsync(&r, 1024, o));
  RT("capture_relaxed.cudaMalloc", cudaMalloc(&p, 1024));
  RT("capture_relaxed.end", cudaStreamEndCapture(s, &g));
  cudaStreamSynchronize(o);
  cudaFreeAsync(r, o);
  cudaFree(p);
  cudaDeviceSynchronize();
  LAST("capture");
}

static void probe_driver() {
  CUmemoryPool pool = nullptr, def = nullptr;
  CUdevice dev = 0;
  cuDeviceGet(&dev, 0);
  DRV("drv.defaultpool", cuDeviceGetDefaultMemPool(&def, dev));
  cudaMemPool_t rdef;
  cudaDeviceGetDefaultMemPool(&rdef, 0);
  VAL("drv.defaultpool_same_as_runtime", "%d", (void*)def == (void*)rdef ? 1 : 0);
  CUmemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  DRV("drv.create", cuMemPoolCreate(&pool, &props));
  cuuint64_t v = 0;
  DRV("drv.getattr_threshold", cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
  DRV("drv.getattr_bad", cuMemPoolGetAttribute(pool, (CUmemPool_attribute)9, &v));
  CUdeviceptr dp = 0;
  DRV("drv.frompool", cuMemAllocFromPoolAsync(&dp, 1000, pool, 0));
  DRV("drv.freeasync", cuMemFreeAsync(dp, 0));
  DRV("drv.freeasync_again_bad", cuMemFreeAsync(dp + 8, 0));
  DRV("drv.sync", cuStreamSynchronize(0));
  DRV("drv.trim", cuMemPoolTrimTo(pool, 0));
  DRV("drv.destroy", cuMemPoolDestroy(pool));
  DRV("drv.allocasync", cuMemAllocAsync(&dp, 1000, 0));
  DRV("drv.freeasync2", cuMemFreeAsync(dp, 0));
  DRV("drv.sync2", cuStreamSynchronize(0));
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "iso") == 0) return iso_child(argv[2]);
  RT("init", cudaFree(0));
  int rv = 0, dv = 0;
  cudaRuntimeGetVersion(&rv);
  cudaDriverGetVersion(&dv);
  printf("version.runtime = %d\nversion.driver = %d\n", rv, dv);
  probe_defaults();
  probe_create_errors();
  probe_attr_errors();
  probe_malloc_errors();
  probe_granularity();
  probe_reuse();
  probe_release();
  probe_capture();
  probe_driver();
  run_isolated(argv[0]);
  printf("done = 1\n");
  return 0;
}
