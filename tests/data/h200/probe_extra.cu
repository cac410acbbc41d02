// Extra conformance probe (driver + runtime edge cases) for CUDA 13 on an H200.
// Build: nvcc -arch=sm_90 -o probe_extra probe_extra.cu -lcuda
// Each line: key = value. Error codes print as "<int> <name>" (cuGetErrorName for
// CUresult, cudaGetErrorName for cudaError_t). Child modes (re-exec of self):
//   probe_extra badctx        cuCtxSetCurrent on a bogus handle (may crash)
//   probe_extra nobadflags    same as no argument, but skips cuInit(1)
//   probe_extra iso <id>      one isolated question (see ISO_DEF); crashes are reported by the parent
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <sys/wait.h>
#include <string>

static const char* cuName(CUresult r) {
  const char* n = nullptr;
  if (cuGetErrorName(r, &n) != CUDA_SUCCESS || !n) return "UNKNOWN_CURESULT";
  return n;
}
#define DSHOW(key, expr) do { CUresult r_ = (expr); printf("%s = %d %s\n", key, (int)r_, cuName(r_)); } while (0)
#define SHOW(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", key, (int)e_, cudaGetErrorName(e_)); } while (0)
#define CLR() (void)cudaGetLastError()
#define MiB (1ull << 20)

// Render a pointer relative to a reference: null / same / +delta / raw hex.
static void rel(char* buf, size_t n, const void* v, const void* ref) {
  if (v == nullptr) snprintf(buf, n, "null");
  else if (v == ref) snprintf(buf, n, "same");
  else snprintf(buf, n, "0x%llx", (unsigned long long)(uintptr_t)v);
}

static void badctx_child() {
  DSHOW("drv.badctx.init", cuInit(0));
  fflush(stdout);
  DSHOW("drv.badctx.setCurrent_0x1234", cuCtxSetCurrent((CUcontext)0x1234));
  fflush(stdout);
  CUcontext c = nullptr;
  CUresult r = cuCtxGetCurrent(&c);
  printf("drv.badctx.getCurrent = %d %s ctx=0x%llx\n", (int)r, cuName(r), (unsigned long long)(uintptr_t)c);
  fflush(stdout);
  CUdevice d = -7;
  r = cuCtxGetDevice(&d);
  printf("drv.badctx.getDevice = %d %s dev=%d\n", (int)r, cuName(r), (int)d);
  fflush(stdout);
  CUdeviceptr p = 0;
  DSHOW("drv.badctx.memAlloc", cuMemAlloc_v2(&p, 256));
  fflush(stdout);
  _exit(0);
}

// Runs this binary again with one argument; reports how the child ended.
static void run_child(const char* key, const char* mode) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/proc/self/exe", "probe_extra", mode, (char*)nullptr);
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) printf("%s = crashed signal=%d\n", key, WTERMSIG(st));
  else printf("%s = exited %d\n", key, WEXITSTATUS(st));
  fflush(stdout);
}

// ---- Isolated questions: each runs in a fresh process (this binary re-executed as
// `probe_extra iso <id>`), so a crash in the driver is reported as "crashed" instead of
// killing the whole probe. mode 0: cuInit(0) only; 1: cuInit + primary context retained
// and current; 2: nothing (runtime API does its own init).
struct Iso { const char* id; const char* key; int mode; void (*fn)(); };
static Iso* g_iso[64]; static int g_niso = 0;
struct IsoReg { IsoReg(Iso* i) { g_iso[g_niso++] = i; } };
#define ISO_DEF(id, key, mode, body) \
  static void iso_fn_##id() { body } \
  static Iso iso_##id = {#id, key, mode, iso_fn_##id}; static IsoReg iso_reg_##id(&iso_##id);

static int iso_child(const char* id) {
  for (int i = 0; i < g_niso; i++) {
    if (strcmp(g_iso[i]->id, id)) continue;
    if (g_iso[i]->mode <= 1) cuInit(0);
    if (g_iso[i]->mode == 1) { CUcontext c = nullptr; cuDevicePrimaryCtxRetain(&c, 0); cuCtxSetCurrent(c); }
    g_iso[i]->fn();
    fflush(stdout);
    _exit(0);
  }
  printf("iso.unknown = %s\n", id);
  return 1;
}

static void iso(const char* id) {
  const char* key = id;
  for (int i = 0; i < g_niso; i++) if (!strcmp(g_iso[i]->id, id)) key = g_iso[i]->key;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) { execl("/proc/self/exe", "probe_extra", "iso", id, (char*)nullptr); _exit(127); }
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) printf("%s = crashed signal=%d\n", key, WTERMSIG(st));
  else if (WEXITSTATUS(st) != 0) printf("%s = child_exit %d\n", key, WEXITSTATUS(st));
  fflush(stdout);
}

ISO_DEF(name_len0, "drv.deviceGetName.len0", 0, {
  char buf[64]; memset(buf, 'X', sizeof buf); buf[63] = 0;
  DSHOW("drv.deviceGetName.len0", cuDeviceGetName(buf, 0, 0)); printf("drv.deviceGetName.len0.buf0 = %02x\n", (unsigned char)buf[0]); })
ISO_DEF(name_nullbuf, "drv.deviceGetName.nullbuf", 0, { DSHOW("drv.deviceGetName.nullbuf", cuDeviceGetName(nullptr, 64, 0)); })
ISO_DEF(name_dev5, "drv.deviceGetName.dev5", 0, { char buf[64]; DSHOW("drv.deviceGetName.dev5", cuDeviceGetName(buf, 64, 5)); })
ISO_DEF(name_len5, "drv.deviceGetName.len5", 0, {
  char buf[64]; memset(buf, 'X', sizeof buf); buf[63] = 0;
  DSHOW("drv.deviceGetName.len5", cuDeviceGetName(buf, 5, 0));
  printf("drv.deviceGetName.len5.str = [%.*s]\n", 5, buf);
  printf("drv.deviceGetName.len5.bytes ="); for (int i = 0; i < 8; i++) printf(" %02x", (unsigned char)buf[i]); printf("\n"); })
ISO_DEF(name_len1, "drv.deviceGetName.len1", 0, {
  char buf[64]; memset(buf, 'X', sizeof buf); buf[63] = 0;
  DSHOW("drv.deviceGetName.len1", cuDeviceGetName(buf, 1, 0));
  printf("drv.deviceGetName.len1.bytes ="); for (int i = 0; i < 4; i++) printf(" %02x", (unsigned char)buf[i]); printf("\n"); })
ISO_DEF(totalmem_null, "drv.deviceTotalMem.null", 0, { DSHOW("drv.deviceTotalMem.null", cuDeviceTotalMem_v2(nullptr, 0)); })
ISO_DEF(attr_null, "drv.deviceGetAttribute.null", 0, { DSHOW("drv.deviceGetAttribute.null", cuDeviceGetAttribute(nullptr, (CUdevice_attribute)1, 0)); })
ISO_DEF(uuid_null, "drv.deviceGetUuid_v2.null", 0, { DSHOW("drv.deviceGetUuid_v2.null", cuDeviceGetUuid_v2(nullptr, 0)); })
ISO_DEF(ctxcur_null, "drv.noctx.ctxGetCurrent.nullArg", 0, { DSHOW("drv.noctx.ctxGetCurrent.nullArg", cuCtxGetCurrent(nullptr)); })
ISO_DEF(retain_null, "drv.primary.retain.null", 0, { DSHOW("drv.primary.retain.null", cuDevicePrimaryCtxRetain(nullptr, 0)); })
ISO_DEF(apiver_nullout, "drv.primary.ctxGetApiVersion_nullout", 1, {
  CUcontext c = nullptr; cuCtxGetCurrent(&c); DSHOW("drv.primary.ctxGetApiVersion_nullout", cuCtxGetApiVersion(c, nullptr)); })
ISO_DEF(memalloc_null, "drv.memAlloc.nullArg", 1, { DSHOW("drv.memAlloc.nullArg", cuMemAlloc_v2(nullptr, 256)); })
ISO_DEF(memfree_1234, "drv.memFree.0x1234", 1, { DSHOW("drv.memFree.0x1234", cuMemFree_v2((CUdeviceptr)0x1234)); })
ISO_DEF(memfree_stack, "drv.memFree.hostStack", 1, { int hv = 0; DSHOW("drv.memFree.hostStack", cuMemFree_v2((CUdeviceptr)(uintptr_t)&hv)); })
ISO_DEF(meminfo_nullfree, "drv.memGetInfo.nullFree", 1, {
  size_t t = 0; DSHOW("drv.memGetInfo.nullFree", cuMemGetInfo_v2(nullptr, &t)); printf("drv.memGetInfo.nullFree.t = %zu\n", t); })
ISO_DEF(meminfo_nulltotal, "drv.memGetInfo.nullTotal", 1, {
  size_t f = 0; DSHOW("drv.memGetInfo.nullTotal", cuMemGetInfo_v2(&f, nullptr)); printf("drv.memGetInfo.nullTotal.f_nonzero = %d\n", (int)(f != 0)); })
ISO_DEF(hostalloc_null, "drv.memHostAlloc.nullArg", 1, { DSHOW("drv.memHostAlloc.nullArg", cuMemHostAlloc(nullptr, 4096, 0)); })
ISO_DEF(freehost_null, "drv.memFreeHost.null", 1, { DSHOW("drv.memFreeHost.null", cuMemFreeHost(nullptr)); })
ISO_DEF(freehost_stack, "drv.memFreeHost.stack", 1, { int sv = 0; DSHOW("drv.memFreeHost.stack", cuMemFreeHost(&sv)); })
ISO_DEF(freehost_pageable, "drv.memFreeHost.pageable", 1, {
  void* pg = malloc(4096); DSHOW("drv.memFreeHost.pageable", cuMemFreeHost(pg)); })
ISO_DEF(freehost_dev, "drv.memFreeHost.devicePtr", 1, {
  CUdeviceptr dp = 0; cuMemAlloc_v2(&dp, 1024); DSHOW("drv.memFreeHost.devicePtr", cuMemFreeHost((void*)(uintptr_t)dp)); })
ISO_DEF(freehost_double, "drv.memFreeHost.double", 1, {
  void* h = nullptr; cuMemHostAlloc(&h, 4096, 0);
  DSHOW("drv.memFreeHost.first", cuMemFreeHost(h)); fflush(stdout); DSHOW("drv.memFreeHost.double", cuMemFreeHost(h)); })
ISO_DEF(ptrattr_nulldata, "drv.ptrAttr.nullData", 1, {
  CUdeviceptr dp = 0; cuMemAlloc_v2(&dp, 1024); DSHOW("drv.ptrAttr.nullData", cuPointerGetAttribute(nullptr, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dp)); })
ISO_DEF(rt_count_null, "rt.getDeviceCount.null", 2, { SHOW("rt.getDeviceCount.null", cudaGetDeviceCount(nullptr)); SHOW("rt.getDeviceCount.null.getlast", cudaGetLastError()); })
ISO_DEF(rt_props_null, "rt.getDeviceProperties.null", 2, { SHOW("rt.getDeviceProperties.null", cudaGetDeviceProperties(nullptr, 0)); SHOW("rt.getDeviceProperties.null.getlast", cudaGetLastError()); })
ISO_DEF(rt_getdev_null, "rt.getDevice.null", 2, { SHOW("rt.getDevice.null", cudaGetDevice(nullptr)); })
ISO_DEF(rt_meminfo_null, "rt.memGetInfo.nullFree", 2, {
  size_t t = 0; SHOW("rt.memGetInfo.nullFree", cudaMemGetInfo(nullptr, &t)); printf("rt.memGetInfo.nullFree.t = %zu\n", t); })
ISO_DEF(rt_hostalloc_null, "rt.hostAlloc.nullArg", 2, { SHOW("rt.hostAlloc.nullArg", cudaHostAlloc(nullptr, 64, 0)); })
ISO_DEF(rt_freehost_null, "rt.freeHost.null", 2, { SHOW("rt.freeHost.null", cudaFreeHost(nullptr)); })
ISO_DEF(rt_ptrattr_null, "rt.ptrAttr.nullAttrs", 2, {
  void* d = nullptr; cudaMalloc(&d, 4096); SHOW("rt.ptrAttr.nullAttrs", cudaPointerGetAttributes(nullptr, d)); })
ISO_DEF(rt_rtver_null, "rt.runtimeGetVersion.null", 2, { SHOW("rt.runtimeGetVersion.null", cudaRuntimeGetVersion(nullptr)); })
ISO_DEF(rt_drvver_null, "rt.driverGetVersion.null", 2, { SHOW("rt.driverGetVersion.null", cudaDriverGetVersion(nullptr)); })
ISO_DEF(rt_attr_null, "rt.deviceGetAttribute.null", 2, { SHOW("rt.deviceGetAttribute.null", cudaDeviceGetAttribute(nullptr, cudaDevAttrMaxThreadsPerBlock, 0)); })

static void print_props(const cudaDeviceProp& p) {
  printf("prop.name = %s\n", p.name);
  printf("prop.uuid = "); for (int i = 0; i < 16; i++) printf("%02x", (unsigned char)p.uuid.bytes[i]); printf("\n");
  printf("prop.luid = "); for (int i = 0; i < 8; i++) printf("%02x", (unsigned char)p.luid[i]); printf("\n");
  printf("prop.luidDeviceNodeMask = %u\n", p.luidDeviceNodeMask);
  printf("prop.totalGlobalMem = %zu\n", p.totalGlobalMem);
  printf("prop.sharedMemPerBlock = %zu\n", p.sharedMemPerBlock);
  printf("prop.regsPerBlock = %d\n", p.regsPerBlock);
  printf("prop.warpSize = %d\n", p.warpSize);
  printf("prop.memPitch = %zu\n", p.memPitch);
  printf("prop.maxThreadsPerBlock = %d\n", p.maxThreadsPerBlock);
  printf("prop.maxThreadsDim ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxThreadsDim[i]); printf("\n");
  printf("prop.maxGridSize ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxGridSize[i]); printf("\n");
  printf("prop.totalConstMem = %zu\n", p.totalConstMem);
  printf("prop.major = %d\n", p.major);
  printf("prop.minor = %d\n", p.minor);
  printf("prop.textureAlignment = %zu\n", p.textureAlignment);
  printf("prop.texturePitchAlignment = %zu\n", p.texturePitchAlignment);
  printf("prop.multiProcessorCount = %d\n", p.multiProcessorCount);
  printf("prop.integrated = %d\n", p.integrated);
  printf("prop.canMapHostMemory = %d\n", p.canMapHostMemory);
  printf("prop.maxTexture1D = %d\n", p.maxTexture1D);
  printf("prop.maxTexture1DMipmap = %d\n", p.maxTexture1DMipmap);
  printf("prop.maxTexture2D ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxTexture2D[i]); printf("\n");
  printf("prop.maxTexture2DMipmap ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxTexture2DMipmap[i]); printf("\n");
  printf("prop.maxTexture2DLinear ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxTexture2DLinear[i]); printf("\n");
  printf("prop.maxTexture2DGather ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxTexture2DGather[i]); printf("\n");
  printf("prop.maxTexture3D ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxTexture3D[i]); printf("\n");
  printf("prop.maxTexture3DAlt ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxTexture3DAlt[i]); printf("\n");
  printf("prop.maxTextureCubemap = %d\n", p.maxTextureCubemap);
  printf("prop.maxTexture1DLayered ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxTexture1DLayered[i]); printf("\n");
  printf("prop.maxTexture2DLayered ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxTexture2DLayered[i]); printf("\n");
  printf("prop.maxTextureCubemapLayered ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxTextureCubemapLayered[i]); printf("\n");
  printf("prop.maxSurface1D = %d\n", p.maxSurface1D);
  printf("prop.maxSurface2D ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxSurface2D[i]); printf("\n");
  printf("prop.maxSurface3D ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxSurface3D[i]); printf("\n");
  printf("prop.maxSurface1DLayered ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxSurface1DLayered[i]); printf("\n");
  printf("prop.maxSurface2DLayered ="); for (int i = 0; i < 3; i++) printf(" %d", p.maxSurface2DLayered[i]); printf("\n");
  printf("prop.maxSurfaceCubemap = %d\n", p.maxSurfaceCubemap);
  printf("prop.maxSurfaceCubemapLayered ="); for (int i = 0; i < 2; i++) printf(" %d", p.maxSurfaceCubemapLayered[i]); printf("\n");
  printf("prop.surfaceAlignment = %zu\n", p.surfaceAlignment);
  printf("prop.concurrentKernels = %d\n", p.concurrentKernels);
  printf("prop.ECCEnabled = %d\n", p.ECCEnabled);
  printf("prop.pciBusID = %d\n", p.pciBusID);
  printf("prop.pciDeviceID = %d\n", p.pciDeviceID);
  printf("prop.pciDomainID = %d\n", p.pciDomainID);
  printf("prop.tccDriver = %d\n", p.tccDriver);
  printf("prop.asyncEngineCount = %d\n", p.asyncEngineCount);
  printf("prop.unifiedAddressing = %d\n", p.unifiedAddressing);
  printf("prop.memoryBusWidth = %d\n", p.memoryBusWidth);
  printf("prop.l2CacheSize = %d\n", p.l2CacheSize);
  printf("prop.persistingL2CacheMaxSize = %d\n", p.persistingL2CacheMaxSize);
  printf("prop.maxThreadsPerMultiProcessor = %d\n", p.maxThreadsPerMultiProcessor);
  printf("prop.streamPrioritiesSupported = %d\n", p.streamPrioritiesSupported);
  printf("prop.globalL1CacheSupported = %d\n", p.globalL1CacheSupported);
  printf("prop.localL1CacheSupported = %d\n", p.localL1CacheSupported);
  printf("prop.sharedMemPerMultiprocessor = %zu\n", p.sharedMemPerMultiprocessor);
  printf("prop.regsPerMultiprocessor = %d\n", p.regsPerMultiprocessor);
  printf("prop.managedMemory = %d\n", p.managedMemory);
  printf("prop.isMultiGpuBoard = %d\n", p.isMultiGpuBoard);
  printf("prop.multiGpuBoardGroupID = %d\n", p.multiGpuBoardGroupID);
  printf("prop.hostNativeAtomicSupported = %d\n", p.hostNativeAtomicSupported);
  printf("prop.pageableMemoryAccess = %d\n", p.pageableMemoryAccess);
  printf("prop.concurrentManagedAccess = %d\n", p.concurrentManagedAccess);
  printf("prop.computePreemptionSupported = %d\n", p.computePreemptionSupported);
  printf("prop.canUseHostPointerForRegisteredMem = %d\n", p.canUseHostPointerForRegisteredMem);
  printf("prop.cooperativeLaunch = %d\n", p.cooperativeLaunch);
  printf("prop.sharedMemPerBlockOptin = %zu\n", p.sharedMemPerBlockOptin);
  printf("prop.pageableMemoryAccessUsesHostPageTables = %d\n", p.pageableMemoryAccessUsesHostPageTables);
  printf("prop.directManagedMemAccessFromHost = %d\n", p.directManagedMemAccessFromHost);
  printf("prop.maxBlocksPerMultiProcessor = %d\n", p.maxBlocksPerMultiProcessor);
  printf("prop.accessPolicyMaxWindowSize = %d\n", p.accessPolicyMaxWindowSize);
  printf("prop.reservedSharedMemPerBlock = %zu\n", p.reservedSharedMemPerBlock);
  printf("prop.hostRegisterSupported = %d\n", p.hostRegisterSupported);
  printf("prop.sparseCudaArraySupported = %d\n", p.sparseCudaArraySupported);
  printf("prop.hostRegisterReadOnlySupported = %d\n", p.hostRegisterReadOnlySupported);
  printf("prop.timelineSemaphoreInteropSupported = %d\n", p.timelineSemaphoreInteropSupported);
  printf("prop.memoryPoolsSupported = %d\n", p.memoryPoolsSupported);
  printf("prop.gpuDirectRDMASupported = %d\n", p.gpuDirectRDMASupported);
  printf("prop.gpuDirectRDMAFlushWritesOptions = %u\n", p.gpuDirectRDMAFlushWritesOptions);
  printf("prop.gpuDirectRDMAWritesOrdering = %d\n", p.gpuDirectRDMAWritesOrdering);
  printf("prop.memoryPoolSupportedHandleTypes = %u\n", p.memoryPoolSupportedHandleTypes);
  printf("prop.deferredMappingCudaArraySupported = %d\n", p.deferredMappingCudaArraySupported);
  printf("prop.ipcEventSupported = %d\n", p.ipcEventSupported);
  printf("prop.clusterLaunch = %d\n", p.clusterLaunch);
  printf("prop.unifiedFunctionPointers = %d\n", p.unifiedFunctionPointers);
  printf("prop.deviceNumaConfig = %d\n", p.deviceNumaConfig);
  printf("prop.deviceNumaId = %d\n", p.deviceNumaId);
  printf("prop.mpsEnabled = %d\n", p.mpsEnabled);
  printf("prop.hostNumaId = %d\n", p.hostNumaId);
  printf("prop.gpuPciDeviceID = %u\n", p.gpuPciDeviceID);
  printf("prop.gpuPciSubsystemID = %u\n", p.gpuPciSubsystemID);
  printf("prop.hostNumaMultinodeIpcSupported = %d\n", p.hostNumaMultinodeIpcSupported);
  printf("prop.reserved ="); for (int i = 0; i < 56; i++) printf(" %d", p.reserved[i]); printf("\n");
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1 && !strcmp(argv[1], "badctx")) { badctx_child(); return 0; }
  if (argc > 2 && !strcmp(argv[1], "iso")) return iso_child(argv[2]);
  bool skip_badflags = argc > 1 && !strcmp(argv[1], "nobadflags");

  // ---------------- Driver API before cuInit ----------------
  {
    int n = -7;
    DSHOW("drv.preinit.deviceGetCount", cuDeviceGetCount(&n)); printf("drv.preinit.deviceGetCount.n = %d\n", n);
    CUcontext c = (CUcontext)0x1;
    CUresult r = cuCtxGetCurrent(&c);
    printf("drv.preinit.ctxGetCurrent = %d %s\n", (int)r, cuName(r));
    printf("drv.preinit.ctxGetCurrent.ctx = %s\n", c == nullptr ? "null" : (c == (CUcontext)0x1 ? "untouched" : "other"));
    int v = -7;
    DSHOW("drv.preinit.driverGetVersion", cuDriverGetVersion(&v)); printf("drv.preinit.driverGetVersion.value = %d\n", v);
    CUdevice d = -7;
    DSHOW("drv.preinit.deviceGet0", cuDeviceGet(&d, 0));
  }

  // ---------------- Driver API: init and device queries ----------------
  if (!skip_badflags) DSHOW("drv.init.flags1", cuInit(1));
  DSHOW("drv.init.0", cuInit(0));
  DSHOW("drv.init.flags1_after", cuInit(1));
  DSHOW("drv.init.0_again", cuInit(0));
  {
    int v = -7;
    DSHOW("drv.driverGetVersion.null", cuDriverGetVersion(nullptr));
    DSHOW("drv.driverGetVersion", cuDriverGetVersion(&v)); printf("drv.driverGetVersion.value = %d\n", v);
    int n = -7;
    DSHOW("drv.deviceGetCount.null", cuDeviceGetCount(nullptr));
    DSHOW("drv.deviceGetCount", cuDeviceGetCount(&n)); printf("drv.deviceGetCount.n = %d\n", n);
    CUdevice d = -7;
    DSHOW("drv.deviceGet.neg1", cuDeviceGet(&d, -1)); printf("drv.deviceGet.neg1.d = %d\n", (int)d);
    d = -7; DSHOW("drv.deviceGet.1", cuDeviceGet(&d, 1)); printf("drv.deviceGet.1.d = %d\n", (int)d);
    DSHOW("drv.deviceGet.null", cuDeviceGet(nullptr, 0));
    d = -7; DSHOW("drv.deviceGet.0", cuDeviceGet(&d, 0)); printf("drv.deviceGet.0.d = %d\n", (int)d);

    char buf[64];
    memset(buf, 'X', sizeof buf); buf[63] = 0;
    iso("name_len0"); iso("name_nullbuf"); iso("name_dev5"); iso("name_len5"); iso("name_len1");
    memset(buf, 'X', sizeof buf); buf[63] = 0;
    DSHOW("drv.deviceGetName.len64", cuDeviceGetName(buf, 64, 0)); printf("drv.deviceGetName.len64.str = [%s]\n", buf);

    size_t tm = 0;
    iso("totalmem_null");
    DSHOW("drv.deviceTotalMem", cuDeviceTotalMem_v2(&tm, 0)); printf("drv.deviceTotalMem.value = %zu\n", tm);
    DSHOW("drv.deviceTotalMem.dev1", cuDeviceTotalMem_v2(&tm, 1));

    int av = -7;
    DSHOW("drv.deviceGetAttribute.attr0", cuDeviceGetAttribute(&av, (CUdevice_attribute)0, 0)); printf("drv.deviceGetAttribute.attr0.v = %d\n", av);
    av = -7; DSHOW("drv.deviceGetAttribute.attr9999", cuDeviceGetAttribute(&av, (CUdevice_attribute)9999, 0)); printf("drv.deviceGetAttribute.attr9999.v = %d\n", av);
    av = -7; DSHOW("drv.deviceGetAttribute.dev7", cuDeviceGetAttribute(&av, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 7)); printf("drv.deviceGetAttribute.dev7.v = %d\n", av);
    iso("attr_null");
    av = -7; DSHOW("drv.deviceGetAttribute.attr1", cuDeviceGetAttribute(&av, (CUdevice_attribute)1, 0)); printf("drv.deviceGetAttribute.attr1.v = %d\n", av);
    av = -7; DSHOW("drv.deviceGetAttribute.computeMode", cuDeviceGetAttribute(&av, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0)); printf("drv.deviceGetAttribute.computeMode.v = %d\n", av);
    av = -7; DSHOW("drv.deviceGetAttribute.clockRate", cuDeviceGetAttribute(&av, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0)); printf("drv.deviceGetAttribute.clockRate.v = %d\n", av);

    CUuuid u; memset(&u, 0, sizeof u);
    DSHOW("drv.deviceGetUuid_v2", cuDeviceGetUuid_v2(&u, 0));
    printf("drv.deviceGetUuid_v2.hex = "); for (int i = 0; i < 16; i++) printf("%02x", (unsigned char)u.bytes[i]); printf("\n");
    iso("uuid_null");
    DSHOW("drv.deviceGetUuid_v2.dev1", cuDeviceGetUuid_v2(&u, 1));
  }

  // ---------------- Driver API: no current context ----------------
  {
    CUcontext c = (CUcontext)0x1;
    DSHOW("drv.noctx.ctxGetCurrent", cuCtxGetCurrent(&c)); printf("drv.noctx.ctxGetCurrent.isNull = %d\n", (int)(c == nullptr));
    iso("ctxcur_null");
    CUdevice d = -7;
    DSHOW("drv.noctx.ctxGetDevice", cuCtxGetDevice(&d)); printf("drv.noctx.ctxGetDevice.d = %d\n", (int)d);
    CUdeviceptr p = 0xdead;
    DSHOW("drv.noctx.memAlloc", cuMemAlloc_v2(&p, 256)); printf("drv.noctx.memAlloc.p = 0x%llx\n", (unsigned long long)p);
    size_t f = 0, t = 0;
    DSHOW("drv.noctx.memGetInfo", cuMemGetInfo_v2(&f, &t));
    DSHOW("drv.noctx.memFree0", cuMemFree_v2(0));
    DSHOW("drv.noctx.ctxSynchronize", cuCtxSynchronize());
    unsigned int ver = 0;
    DSHOW("drv.noctx.ctxGetApiVersion", cuCtxGetApiVersion(nullptr, &ver)); printf("drv.noctx.ctxGetApiVersion.v = %u\n", ver);
    DSHOW("drv.noctx.ctxSetCurrent_null", cuCtxSetCurrent(nullptr));
    c = (CUcontext)0x1; cuCtxGetCurrent(&c); printf("drv.noctx.after_setnull.isNull = %d\n", (int)(c == nullptr));
    DSHOW("drv.noctx.ctxPopCurrent", cuCtxPopCurrent(&c));
  }

  // ---------------- Driver API: primary context ----------------
  CUcontext pc = nullptr;
  {
    unsigned int fl = 777; int act = -7;
    DSHOW("drv.primary.getState_before", cuDevicePrimaryCtxGetState(0, &fl, &act)); printf("drv.primary.getState_before.value = flags=%u active=%d\n", fl, act);
    DSHOW("drv.primary.getState.dev1", cuDevicePrimaryCtxGetState(1, &fl, &act));
    iso("retain_null");
    DSHOW("drv.primary.retain.dev1", cuDevicePrimaryCtxRetain(&pc, 1));
    DSHOW("drv.primary.retain", cuDevicePrimaryCtxRetain(&pc, 0)); printf("drv.primary.retain.isNull = %d\n", (int)(pc == nullptr));
    fl = 777; act = -7;
    DSHOW("drv.primary.getState_after_retain", cuDevicePrimaryCtxGetState(0, &fl, &act)); printf("drv.primary.getState_after_retain.value = flags=%u active=%d\n", fl, act);
    CUcontext c = nullptr; cuCtxGetCurrent(&c); printf("drv.primary.retain_makes_current = %d\n", (int)(c == pc));
    DSHOW("drv.primary.setCurrent", cuCtxSetCurrent(pc));
    CUdevice d = -7; DSHOW("drv.primary.ctxGetDevice", cuCtxGetDevice(&d)); printf("drv.primary.ctxGetDevice.d = %d\n", (int)d);
    unsigned int ver = 0;
    DSHOW("drv.primary.ctxGetApiVersion_null", cuCtxGetApiVersion(nullptr, &ver)); printf("drv.primary.ctxGetApiVersion_null.v = %u\n", ver);
    ver = 0; DSHOW("drv.primary.ctxGetApiVersion_pc", cuCtxGetApiVersion(pc, &ver)); printf("drv.primary.ctxGetApiVersion_pc.v = %u\n", ver);
    iso("apiver_nullout");
  }

  // memAlloc / memFree
  {
    CUdeviceptr p = 0xdead;
    DSHOW("drv.memAlloc.zero", cuMemAlloc_v2(&p, 0)); printf("drv.memAlloc.zero.p = 0x%llx\n", (unsigned long long)p);
    iso("memalloc_null");
    p = 0xdead;
    DSHOW("drv.memAlloc.huge_1<<50", cuMemAlloc_v2(&p, 1ull << 50)); printf("drv.memAlloc.huge.p = 0x%llx\n", (unsigned long long)p);
    DSHOW("drv.memFree.zero", cuMemFree_v2(0));
    iso("memfree_1234");
    CUdeviceptr a = 0; DSHOW("drv.memAlloc.1024", cuMemAlloc_v2(&a, 1024));
    DSHOW("drv.memFree.interior", cuMemFree_v2(a + 16));
    DSHOW("drv.memFree.first", cuMemFree_v2(a));
    DSHOW("drv.memFree.double", cuMemFree_v2(a));
    iso("memfree_stack");
  }

  // memGetInfo
  {
    size_t f = 0, t = 0;
    iso("meminfo_nullfree"); iso("meminfo_nulltotal");
    f = t = 0; DSHOW("drv.memGetInfo", cuMemGetInfo_v2(&f, &t));
    printf("drv.memGetInfo.values = free=%zu total=%zu used=%zu\n", f, t, t - f);
  }

  // pinned host memory
  {
    void* h = (void*)0x1;
    DSHOW("drv.memHostAlloc.zero", cuMemHostAlloc(&h, 0, 0)); printf("drv.memHostAlloc.zero.h = %s\n", h == nullptr ? "null" : (h == (void*)0x1 ? "untouched" : "nonnull"));
    if (h != nullptr && h != (void*)0x1) DSHOW("drv.memHostAlloc.zero.free", cuMemFreeHost(h));
    h = (void*)0x1;
    DSHOW("drv.memHostAlloc.flags0x80", cuMemHostAlloc(&h, 4096, 0x80)); printf("drv.memHostAlloc.flags0x80.h = %s\n", h == nullptr ? "null" : (h == (void*)0x1 ? "untouched" : "nonnull"));
    if (h != nullptr && h != (void*)0x1) cuMemFreeHost(h);
    iso("hostalloc_null");
    h = nullptr;
    DSHOW("drv.memHostAlloc.4096", cuMemHostAlloc(&h, 4096, 0));
    printf("drv.memHostAlloc.4096.mod4096 = %llu\n", (unsigned long long)((uintptr_t)h % 4096));
    printf("drv.memHostAlloc.4096.mod2M = %llu\n", (unsigned long long)((uintptr_t)h % (2 << 20)));
    void* h2 = nullptr; DSHOW("drv.memHostAlloc.4096_second", cuMemHostAlloc(&h2, 4096, 0));
    printf("drv.memHostAlloc.4096_second.delta = %lld\n", (long long)((char*)h2 - (char*)h));
    void* h3 = nullptr; DSHOW("drv.memAllocHost.100", cuMemAllocHost_v2(&h3, 100));
    printf("drv.memAllocHost.100.mod4096 = %llu\n", (unsigned long long)((uintptr_t)h3 % 4096));

    // pointer attributes
    CUdeviceptr dp = 0; cuMemAlloc_v2(&dp, 1000);
    char* pageable = (char*)malloc(4096);
    struct { const char* k; CUdeviceptr p; } cases[] = {
      {"device", dp}, {"device_interior", dp + 100}, {"pinned", (CUdeviceptr)(uintptr_t)h},
      {"pageable", (CUdeviceptr)(uintptr_t)pageable}, {"null", 0}, {"0x1234", (CUdeviceptr)0x1234}};
    for (auto& cs : cases) {
      unsigned int mt = 777; char key[128];
      snprintf(key, sizeof key, "drv.ptrAttr.memType.%s", cs.k);
      CUresult r = cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, cs.p);
      printf("%s = %d %s value=%u\n", key, (int)r, cuName(r), mt);
    }
    CUdeviceptr rs = 0; size_t rsz = 0;
    DSHOW("drv.ptrAttr.rangeStart.device1000", cuPointerGetAttribute(&rs, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dp)); printf("drv.ptrAttr.rangeStart.device1000.eqPtr = %d\n", (int)(rs == dp));
    DSHOW("drv.ptrAttr.rangeSize.device1000", cuPointerGetAttribute(&rsz, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dp)); printf("drv.ptrAttr.rangeSize.device1000.value = %zu\n", rsz);
    rs = 0; DSHOW("drv.ptrAttr.rangeStart.interior", cuPointerGetAttribute(&rs, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, dp + 100)); printf("drv.ptrAttr.rangeStart.interior.eqPtr = %d\n", (int)(rs == dp));
    rsz = 0; DSHOW("drv.ptrAttr.rangeSize.interior", cuPointerGetAttribute(&rsz, CU_POINTER_ATTRIBUTE_RANGE_SIZE, dp + 100)); printf("drv.ptrAttr.rangeSize.interior.value = %zu\n", rsz);
    rsz = 0; CUdeviceptr mb = 0;
    DSHOW("drv.ptrAttr.mappingSize.device1000", cuPointerGetAttribute(&rsz, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, dp)); printf("drv.ptrAttr.mappingSize.device1000.value = %zu\n", rsz);
    DSHOW("drv.ptrAttr.mappingBase.device1000", cuPointerGetAttribute(&mb, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, dp)); printf("drv.ptrAttr.mappingBase.device1000.ptrMinusBase = %lld\n", (long long)(dp - mb));
    rsz = 0; DSHOW("drv.ptrAttr.rangeSize.pinned", cuPointerGetAttribute(&rsz, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)(uintptr_t)h)); printf("drv.ptrAttr.rangeSize.pinned.value = %zu\n", rsz);
    void* hp = (void*)0x1;
    DSHOW("drv.ptrAttr.hostPointer.device", cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, dp)); printf("drv.ptrAttr.hostPointer.device.value = 0x%llx\n", (unsigned long long)(uintptr_t)hp);
    CUdeviceptr dv = 0x1;
    DSHOW("drv.ptrAttr.devicePointer.pinned", cuPointerGetAttribute(&dv, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)(uintptr_t)h)); printf("drv.ptrAttr.devicePointer.pinned.eqHost = %d\n", (int)(dv == (CUdeviceptr)(uintptr_t)h));
    hp = (void*)0x1;
    DSHOW("drv.ptrAttr.hostPointer.pinned", cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, (CUdeviceptr)(uintptr_t)h)); printf("drv.ptrAttr.hostPointer.pinned.eqHost = %d\n", (int)(hp == h));
    CUcontext cc = nullptr; int ord = -7;
    DSHOW("drv.ptrAttr.context.device", cuPointerGetAttribute(&cc, CU_POINTER_ATTRIBUTE_CONTEXT, dp)); printf("drv.ptrAttr.context.device.eqPrimary = %d\n", (int)(cc == pc));
    DSHOW("drv.ptrAttr.ordinal.device", cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dp)); printf("drv.ptrAttr.ordinal.device.value = %d\n", ord);
    iso("ptrattr_nulldata");
    {
      CUpointer_attribute at[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
      const char* nm[] = {"pageable", "device", "pinned", "null"};
      CUdeviceptr ps[] = {(CUdeviceptr)(uintptr_t)pageable, dp, (CUdeviceptr)(uintptr_t)h, 0};
      for (int i = 0; i < 4; i++) {
        unsigned int mt = 777; CUcontext ctx = (CUcontext)0x1; int o = -7;
        void* data[3] = {&mt, &ctx, &o};
        CUresult r = cuPointerGetAttributes(3, at, data, ps[i]);
        printf("drv.ptrAttrs.%s = %d %s memType=%u ctx=%s ordinal=%d\n", nm[i], (int)r, cuName(r), mt,
               ctx == nullptr ? "null" : (ctx == pc ? "primary" : (ctx == (CUcontext)0x1 ? "untouched" : "other")), o);
      }
    }
    iso("freehost_null"); iso("freehost_stack"); iso("freehost_pageable"); iso("freehost_dev"); iso("freehost_double");
    cuMemFreeHost(h); cuMemFreeHost(h2); cuMemFreeHost(h3);
    cuMemFree_v2(dp);
    free(pageable);
  }

  // pool / sub-allocation behaviour
  {
    size_t f0 = 0, t = 0, f1 = 0;
    CUdeviceptr prev = 0;
    CUdeviceptr ptrs[16]; int np = 0;
    size_t sizes[] = {256 << 10, 256 << 10, 256 << 10, 2 << 20, 3 << 20, 1 << 20, (3 << 20) / 2, 256 << 10, 64 << 20};
    const char* names[] = {"256K_a", "256K_b", "256K_c", "2M", "3M", "1M", "1.5M", "256K_d", "64M"};
    for (int i = 0; i < 9; i++) {
      cuMemGetInfo_v2(&f0, &t);
      CUdeviceptr p = 0; CUresult r = cuMemAlloc_v2(&p, sizes[i]);
      cuMemGetInfo_v2(&f1, &t);
      printf("drv.pool.alloc_%s = %d %s mod2M=%llu delta_from_prev=%lld free_delta=%lld\n", names[i], (int)r, cuName(r),
             (unsigned long long)(p % (2 << 20)), prev ? (long long)(p - prev) : 0LL, (long long)f0 - (long long)f1);
      prev = p; ptrs[np++] = p;
    }
    for (int i = 0; i < np; i++) {
      cuMemGetInfo_v2(&f0, &t);
      cuMemFree_v2(ptrs[i]);
      cuMemGetInfo_v2(&f1, &t);
      printf("drv.pool.free_%s.free_delta = %lld\n", names[i], (long long)f1 - (long long)f0);
    }
    // Reuse after free: does a same-size allocation get the same address back?
    CUdeviceptr q1 = 0, q2 = 0;
    cuMemAlloc_v2(&q1, 256 << 10); cuMemFree_v2(q1); cuMemAlloc_v2(&q2, 256 << 10);
    printf("drv.pool.realloc_same_addr = %d\n", (int)(q1 == q2));
    cuMemFree_v2(q2);
  }

  // release the primary context
  {
    DSHOW("drv.primary.setCurrent_null", cuCtxSetCurrent(nullptr));
    DSHOW("drv.primary.release1", cuDevicePrimaryCtxRelease_v2(0));
    unsigned int fl = 777; int act = -7;
    cuDevicePrimaryCtxGetState(0, &fl, &act); printf("drv.primary.getState_after_release1 = flags=%u active=%d\n", fl, act);
    DSHOW("drv.primary.release2_extra", cuDevicePrimaryCtxRelease_v2(0));
    DSHOW("drv.primary.release3_extra", cuDevicePrimaryCtxRelease_v2(0));
    fl = 777; act = -7;
    cuDevicePrimaryCtxGetState(0, &fl, &act); printf("drv.primary.getState_end = flags=%u active=%d\n", fl, act);
    DSHOW("drv.primary.release.dev1", cuDevicePrimaryCtxRelease_v2(1));
    CUcontext c = (CUcontext)0x1; cuCtxGetCurrent(&c); printf("drv.primary.end_current_isNull = %d\n", (int)(c == nullptr));
  }
  run_child("drv.badctx.child", "badctx");

  // ---------------- Runtime API ----------------
  iso("rt_count_null"); iso("rt_props_null"); iso("rt_getdev_null"); iso("rt_meminfo_null"); iso("rt_hostalloc_null");
  iso("rt_freehost_null"); iso("rt_ptrattr_null"); iso("rt_rtver_null"); iso("rt_drvver_null"); iso("rt_attr_null");
  { int n = -7; SHOW("rt.getDeviceCount", cudaGetDeviceCount(&n)); printf("rt.getDeviceCount.n = %d\n", n); CLR(); }
  {
    unsigned int fl = 777; int act = -7;
    cuDevicePrimaryCtxGetState(0, &fl, &act); printf("rt.primary_state_after_getDeviceCount = flags=%u active=%d\n", fl, act);
  }
  cudaDeviceProp prop;
  SHOW("rt.getDeviceProperties.dev1", cudaGetDeviceProperties(&prop, 1)); CLR();
  SHOW("rt.getDeviceProperties.neg1", cudaGetDeviceProperties(&prop, -1)); CLR();
  SHOW("rt.setDevice.1", cudaSetDevice(1));
  SHOW("rt.setDevice.1.getlast", cudaGetLastError()); CLR();
  {
    void* h = (void*)0x1;
    SHOW("rt.mallocHost.zero", cudaMallocHost(&h, 0)); printf("rt.mallocHost.zero.h = %s\n", h == nullptr ? "null" : (h == (void*)0x1 ? "untouched" : "nonnull")); CLR();
    if (h != nullptr && h != (void*)0x1) cudaFreeHost(h);
    h = (void*)0x1;
    SHOW("rt.hostAlloc.zero", cudaHostAlloc(&h, 0, 0)); printf("rt.hostAlloc.zero.h = %s\n", h == nullptr ? "null" : (h == (void*)0x1 ? "untouched" : "nonnull")); CLR();
    if (h != nullptr && h != (void*)0x1) cudaFreeHost(h);
    h = (void*)0x1;
    SHOW("rt.hostAlloc.flags0x80", cudaHostAlloc(&h, 4096, 0x80)); printf("rt.hostAlloc.flags0x80.h = %s\n", h == nullptr ? "null" : (h == (void*)0x1 ? "untouched" : "nonnull"));
    SHOW("rt.hostAlloc.flags0x80.getlast", cudaGetLastError()); CLR();
    if (h != nullptr && h != (void*)0x1) cudaFreeHost(h);
    void* d = nullptr; cudaMalloc(&d, 4096);
    void* ph = nullptr; cudaMallocHost(&ph, 4096);
    SHOW("rt.freeHost.devicePtr", cudaFreeHost(d));
    SHOW("rt.freeHost.devicePtr.getlast", cudaGetLastError()); CLR();
    SHOW("rt.free.pinnedHostPtr", cudaFree(ph));
    SHOW("rt.free.pinnedHostPtr.getlast", cudaGetLastError()); CLR();
    cudaPointerAttributes a;
    char* pageable = (char*)malloc(4096);
    struct { const char* k; void* p; } cases[] = {{"pageable", pageable}, {"null", nullptr}, {"device", d}, {"device_interior", (char*)d + 100}, {"pinned", ph}, {"0x1234", (void*)0x1234}};
    for (auto& cs : cases) {
      memset(&a, 0x5a, sizeof a);
      cudaError_t e = cudaPointerGetAttributes(&a, cs.p);
      char dpb[64], hpb[64];
      rel(dpb, sizeof dpb, a.devicePointer, cs.p); rel(hpb, sizeof hpb, a.hostPointer, cs.p);
      printf("rt.ptrAttr.%s = %d %s type=%d device=%d devicePointer=%s hostPointer=%s\n", cs.k, (int)e, cudaGetErrorName(e), (int)a.type, a.device, dpb, hpb);
      SHOW((std::string("rt.ptrAttr.") + cs.k + ".getlast").c_str(), cudaGetLastError()); CLR();
    }
    SHOW("rt.freeHost.pinned", cudaFreeHost(ph)); CLR();
    SHOW("rt.free.device", cudaFree(d)); CLR();
    free(pageable);
  }
  printf("rt.errorName.neg1 = %s\n", cudaGetErrorName((cudaError_t)-1));
  printf("rt.errorString.neg1 = %s\n", cudaGetErrorString((cudaError_t)-1));
  printf("rt.errorName.10000 = %s\n", cudaGetErrorName((cudaError_t)10000));
  printf("rt.errorString.10000 = %s\n", cudaGetErrorString((cudaError_t)10000));
  printf("rt.errorName.0 = %s\n", cudaGetErrorName((cudaError_t)0));
  printf("rt.errorString.0 = %s\n", cudaGetErrorString((cudaError_t)0));
  printf("rt.errorName.46 = %s\n", cudaGetErrorName((cudaError_t)46));
  printf("rt.errorString.46 = %s\n", cudaGetErrorString((cudaError_t)46));
  {
    const char* s = nullptr;
    CUresult r = cuGetErrorName((CUresult)9999, &s); printf("drv.getErrorName.9999 = %d %s str=%s\n", (int)r, cuName(r), s ? s : "null");
    s = nullptr; r = cuGetErrorString((CUresult)9999, &s); printf("drv.getErrorString.9999 = %d %s str=%s\n", (int)r, cuName(r), s ? s : "null");
    s = nullptr; r = cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s); printf("drv.getErrorString.1 = %s\n", s ? s : "null");
    s = nullptr; r = cuGetErrorString(CUDA_ERROR_INVALID_CONTEXT, &s); printf("drv.getErrorString.201 = %s\n", s ? s : "null");
  }
  {
    int v = -7;
    SHOW("rt.deviceGetAttribute.maxThreadsPerBlock", cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0)); printf("rt.deviceGetAttribute.maxThreadsPerBlock.v = %d\n", v); CLR();
    v = -7; SHOW("rt.deviceGetAttribute.attr0", cudaDeviceGetAttribute(&v, (cudaDeviceAttr)0, 0)); printf("rt.deviceGetAttribute.attr0.v = %d\n", v); CLR();
    v = -7; SHOW("rt.deviceGetAttribute.attr9999", cudaDeviceGetAttribute(&v, (cudaDeviceAttr)9999, 0)); printf("rt.deviceGetAttribute.attr9999.v = %d\n", v); CLR();
    v = -7; SHOW("rt.deviceGetAttribute.dev3", cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 3)); printf("rt.deviceGetAttribute.dev3.v = %d\n", v); CLR();
  }
  {
    void* big = (void*)0x1;
    SHOW("rt.oom.malloc", cudaMalloc(&big, 1ull << 50)); printf("rt.oom.malloc.p = %s\n", big == nullptr ? "null" : (big == (void*)0x1 ? "untouched" : "other"));
    SHOW("rt.oom.peek", cudaPeekAtLastError());
    SHOW("rt.oom.getlast", cudaGetLastError());
    SHOW("rt.oom.peek_after_getlast", cudaPeekAtLastError());
    CLR();
  }
  memset(&prop, 0, sizeof prop);
  SHOW("rt.getDeviceProperties", cudaGetDeviceProperties(&prop, 0)); CLR();
  print_props(prop);
  {
    void* dA = nullptr; cudaMalloc(&dA, 1024);
    void* dB = nullptr; cudaMalloc(&dB, 1024); CLR();
    SHOW("rt.deviceReset", cudaDeviceReset());
    SHOW("rt.deviceReset.getlast", cudaGetLastError());
    unsigned int fl = 777; int act = -7;
    cuDevicePrimaryCtxGetState(0, &fl, &act); printf("rt.deviceReset.primary_state = flags=%u active=%d\n", fl, act);
    void* d2 = nullptr;
    SHOW("rt.deviceReset.malloc_after", cudaMalloc(&d2, 1024));
    SHOW("rt.deviceReset.malloc_after.getlast", cudaGetLastError());
    printf("rt.deviceReset.malloc_after.same_addr_as_first_prereset = %d\n", (int)(d2 == dA));
    printf("rt.deviceReset.malloc_after.same_addr_as_second_prereset = %d\n", (int)(d2 == dB));
    cudaPointerAttributes a; memset(&a, 0, sizeof a);
    void* stale = (d2 == dB) ? dA : dB;  // a pre-reset pointer that no new allocation reuses
    SHOW("rt.deviceReset.ptrAttr_stale", cudaPointerGetAttributes(&a, stale)); printf("rt.deviceReset.ptrAttr_stale.type = %d\n", (int)a.type); CLR();
    SHOW("rt.deviceReset.free_stale", cudaFree(stale)); CLR();
    SHOW("rt.deviceReset.free_new", cudaFree(d2)); CLR();
    SHOW("rt.deviceReset.sync", cudaDeviceSynchronize()); CLR();
  }
  return 0;
}
