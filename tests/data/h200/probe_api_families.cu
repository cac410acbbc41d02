// Probe of the runtime/driver API families minicuda models in issue 13: device flags and limits,
// cache and shared-memory configuration, PCI bus ids, profiler markers, occupancy helpers, host
// memory registration, pitched and 3-D memory, symbols, and event record/wait flags.
// Build: nvcc -arch=sm_90 -o probe_api_families probe_api_families.cu -lcuda
// Each line: key = value. Error codes print as "<int> <name>". Output is unbuffered so that a
// crash keeps every line before it. Not asked: a NULL result pointer to
// cudaOccupancyAvailableDynamicSMemPerBlock, cudaGetSymbolSize or cudaGetSymbolAddress - on the H200
// each of these crashes the process (SIGSEGV), so minicuda answers cudaErrorInvalidValue instead.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cudaProfiler.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>

static const char* cuName(CUresult r) {
  const char* n = nullptr;
  if (cuGetErrorName(r, &n) != CUDA_SUCCESS || !n) return "UNKNOWN_CURESULT";
  return n;
}
#define DSHOW(key, expr) do { CUresult r_ = (expr); printf("%s = %d %s\n", key, (int)r_, cuName(r_)); } while (0)
#define SHOW(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", key, (int)e_, cudaGetErrorName(e_)); } while (0)
#define CLR() (void)cudaGetLastError()
#define VAL(key, fmt, v) printf("%s = " fmt "\n", key, v)

__device__ int g_dev[10];
__constant__ float c_tab[256];
__device__ double g_scalar;

__global__ void k_simple(int* out) { out[threadIdx.x] = (int)c_tab[threadIdx.x] + g_dev[0]; }
__global__ void k_smem(float* out) {
  __shared__ float s[1024];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
__global__ void __launch_bounds__(256) k_bounded(int* out) { out[threadIdx.x] = threadIdx.x; }
static int host_var[4];
static size_t dyn_smem(int block) { return (size_t)block * 8; }

static void device_section() {
  unsigned f = 0xdead;
  SHOW("rt.getDeviceFlags.preinit", cudaGetDeviceFlags(&f));
  VAL("rt.getDeviceFlags.preinit.value", "0x%x", f);
  SHOW("rt.getDeviceFlags.null", cudaGetDeviceFlags(nullptr)); CLR();
  SHOW("rt.setDeviceFlags.bad0x100", cudaSetDeviceFlags(0x100)); CLR();
  SHOW("rt.setDeviceFlags.spin_yield", cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield)); CLR();
  SHOW("rt.setDeviceFlags.schedmask", cudaSetDeviceFlags(cudaDeviceScheduleMask)); CLR();
  SHOW("rt.setDeviceFlags.lmem", cudaSetDeviceFlags(cudaDeviceLmemResizeToMax)); CLR();
  f = 0xdead; cudaGetDeviceFlags(&f); VAL("rt.getDeviceFlags.after_lmem", "0x%x", f);
  SHOW("rt.setDeviceFlags.blocking_maphost", cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost)); CLR();
  f = 0xdead; cudaGetDeviceFlags(&f); VAL("rt.getDeviceFlags.after_blocking", "0x%x", f);
  SHOW("rt.setDeviceFlags.0", cudaSetDeviceFlags(0)); CLR();
  f = 0xdead; cudaGetDeviceFlags(&f); VAL("rt.getDeviceFlags.after_0", "0x%x", f);
  cudaFree(0);  // context now active
  f = 0xdead; cudaGetDeviceFlags(&f); VAL("rt.getDeviceFlags.ctx", "0x%x", f);
  SHOW("rt.setDeviceFlags.ctx_spin", cudaSetDeviceFlags(cudaDeviceScheduleSpin)); CLR();
  f = 0xdead; cudaGetDeviceFlags(&f); VAL("rt.getDeviceFlags.ctx_after_spin", "0x%x", f);
  SHOW("rt.setDeviceFlags.ctx_0", cudaSetDeviceFlags(0)); CLR();
  f = 0xdead; cudaGetDeviceFlags(&f); VAL("rt.getDeviceFlags.ctx_after_0", "0x%x", f);
  SHOW("rt.setDeviceFlags.ctx_bad", cudaSetDeviceFlags(0x100)); CLR();
  { unsigned cf = 0xdead; int act = -1; DSHOW("drv.primaryCtxGetState", cuDevicePrimaryCtxGetState(0, &cf, &act));
    printf("drv.primaryCtxGetState.value = flags=0x%x active=%d\n", cf, act); }
  { unsigned cf = 0xdead; DSHOW("drv.ctxGetFlags", cuCtxGetFlags(&cf)); VAL("drv.ctxGetFlags.value", "0x%x", cf); }

  // Limits.
  for (int l = 0; l <= 8; ++l) {
    size_t v = 0xdead; char k[96];
    snprintf(k, sizeof k, "rt.getLimit.%d", l); SHOW(k, cudaDeviceGetLimit(&v, (cudaLimit)l)); CLR();
    snprintf(k, sizeof k, "rt.getLimit.%d.value", l); VAL(k, "%zu", v);
  }
  SHOW("rt.getLimit.null", cudaDeviceGetLimit(nullptr, cudaLimitStackSize)); CLR();
  SHOW("rt.getLimit.99", cudaDeviceGetLimit(nullptr, (cudaLimit)99)); CLR();
  struct { const char* key; int limit; size_t value; } sets[] = {
      {"stack.0", 0, 0}, {"stack.1", 0, 1}, {"stack.1000", 0, 1000}, {"stack.4096", 0, 4096},
      {"stack.1M", 0, 1 << 20}, {"stack.huge", 0, (size_t)1 << 40},
      {"printf.0", 1, 0}, {"printf.1", 1, 1}, {"printf.1000", 1, 1000}, {"printf.2M", 1, 2 << 20},
      {"heap.0", 2, 0}, {"heap.1", 2, 1}, {"heap.1000", 2, 1000}, {"heap.16M", 2, 16 << 20},
      {"syncdepth.4", 3, 4}, {"pending.100", 4, 100},
      {"l2fetch.0", 5, 0}, {"l2fetch.32", 5, 32}, {"l2fetch.100", 5, 100}, {"l2fetch.128", 5, 128},
      {"l2fetch.256", 5, 256}, {"persist.0", 6, 0}, {"persist.1M", 6, 1 << 20}, {"persist.huge", 6, (size_t)1 << 40},
      {"7.0", 7, 0}, {"8.0", 8, 0}, {"99.0", 99, 0}};
  for (auto& s : sets) {
    char k[96];
    snprintf(k, sizeof k, "rt.setLimit.%s", s.key); SHOW(k, cudaDeviceSetLimit((cudaLimit)s.limit, s.value)); CLR();
    size_t v = 0xdead; cudaDeviceGetLimit(&v, (cudaLimit)s.limit); CLR();
    snprintf(k, sizeof k, "rt.setLimit.%s.get", s.key); VAL(k, "%zu", v);
  }
  cudaDeviceSetLimit(cudaLimitStackSize, 1024);
  cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1048576);
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8388608);
  for (int l = 0; l <= 6; ++l) {
    size_t v = 0xdead; char k[96];
    snprintf(k, sizeof k, "drv.ctxGetLimit.%d", l); DSHOW(k, cuCtxGetLimit(&v, (CUlimit)l));
    snprintf(k, sizeof k, "drv.ctxGetLimit.%d.value", l); VAL(k, "%zu", v);
  }
  DSHOW("drv.ctxGetLimit.null", cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE));
  DSHOW("drv.ctxGetLimit.99", cuCtxGetLimit(nullptr, (CUlimit)99));
  { size_t v = 0; DSHOW("drv.ctxGetLimit.99v", cuCtxGetLimit(&v, (CUlimit)99)); }
  DSHOW("drv.ctxSetLimit.99", cuCtxSetLimit((CUlimit)99, 0));
  DSHOW("drv.ctxSetLimit.stack.2000", cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2000));
  { size_t v = 0; cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE); VAL("drv.ctxSetLimit.stack.2000.get", "%zu", v); }

  // Cache and shared memory configuration.
  cudaFuncCache cc = (cudaFuncCache)77;
  SHOW("rt.getCacheConfig", cudaDeviceGetCacheConfig(&cc)); VAL("rt.getCacheConfig.value", "%d", (int)cc);
  SHOW("rt.getCacheConfig.null", cudaDeviceGetCacheConfig(nullptr)); CLR();
  for (int c = 0; c <= 4; ++c) {
    char k[64];
    snprintf(k, sizeof k, "rt.setCacheConfig.%d", c); SHOW(k, cudaDeviceSetCacheConfig((cudaFuncCache)c)); CLR();
    cc = (cudaFuncCache)77; cudaDeviceGetCacheConfig(&cc);
    snprintf(k, sizeof k, "rt.setCacheConfig.%d.get", c); VAL(k, "%d", (int)cc);
  }
  cudaDeviceSetCacheConfig(cudaFuncCachePreferNone);
  { CUfunc_cache dc = (CUfunc_cache)77; DSHOW("drv.ctxGetCacheConfig", cuCtxGetCacheConfig(&dc)); VAL("drv.ctxGetCacheConfig.value", "%d", (int)dc); }
  DSHOW("drv.ctxSetCacheConfig.5", cuCtxSetCacheConfig((CUfunc_cache)5));
  DSHOW("drv.ctxGetCacheConfig.null", cuCtxGetCacheConfig(nullptr));
  cudaSharedMemConfig sc = (cudaSharedMemConfig)77;
  SHOW("rt.getSharedMemConfig", cudaDeviceGetSharedMemConfig(&sc)); VAL("rt.getSharedMemConfig.value", "%d", (int)sc); CLR();
  SHOW("rt.getSharedMemConfig.null", cudaDeviceGetSharedMemConfig(nullptr)); CLR();
  for (int c = 0; c <= 3; ++c) {
    char k[64];
    snprintf(k, sizeof k, "rt.setSharedMemConfig.%d", c); SHOW(k, cudaDeviceSetSharedMemConfig((cudaSharedMemConfig)c)); CLR();
    sc = (cudaSharedMemConfig)77; cudaDeviceGetSharedMemConfig(&sc); CLR();
    snprintf(k, sizeof k, "rt.setSharedMemConfig.%d.get", c); VAL(k, "%d", (int)sc);
  }
  { CUsharedconfig dsc = (CUsharedconfig)77; DSHOW("drv.ctxGetSharedMemConfig", cuCtxGetSharedMemConfig(&dsc)); VAL("drv.ctxGetSharedMemConfig.value", "%d", (int)dsc); }

  // Functions.
  cudaFuncAttributes fa;
  memset(&fa, 0xff, sizeof fa);
  SHOW("rt.funcGetAttributes.k_smem", cudaFuncGetAttributes(&fa, k_smem));
  printf("rt.funcGetAttributes.k_smem.value = maxThreads=%d numRegs=%d shared=%zu const=%zu local=%zu ptx=%d bin=%d ca=%d maxDyn=%d carve=%d\n",
         fa.maxThreadsPerBlock, fa.numRegs, fa.sharedSizeBytes, fa.constSizeBytes, fa.localSizeBytes, fa.ptxVersion,
         fa.binaryVersion, fa.cacheModeCA, fa.maxDynamicSharedSizeBytes, fa.preferredShmemCarveout);
  SHOW("rt.funcGetAttributes.k_bounded", cudaFuncGetAttributes(&fa, k_bounded));
  VAL("rt.funcGetAttributes.k_bounded.maxThreads", "%d", fa.maxThreadsPerBlock);
  SHOW("rt.funcSetCacheConfig.shared", cudaFuncSetCacheConfig(k_simple, cudaFuncCachePreferShared));
  SHOW("rt.funcSetCacheConfig.bad5", cudaFuncSetCacheConfig(k_simple, (cudaFuncCache)5)); CLR();
  SHOW("rt.funcSetCacheConfig.null", cudaFuncSetCacheConfig((const void*)nullptr, cudaFuncCachePreferShared)); CLR();
  SHOW("rt.funcSetCacheConfig.hostvar", cudaFuncSetCacheConfig((const void*)host_var, cudaFuncCachePreferShared)); CLR();
  SHOW("rt.funcSetSharedMemConfig", cudaFuncSetSharedMemConfig(k_simple, cudaSharedMemBankSizeFourByte)); CLR();

  // Choose device, PCI bus ids.
  cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  int d = -7;
  SHOW("rt.chooseDevice.zero", cudaChooseDevice(&d, &prop)); VAL("rt.chooseDevice.zero.value", "%d", d);
  prop.major = 9; prop.minor = 0; d = -7;
  SHOW("rt.chooseDevice.9_0", cudaChooseDevice(&d, &prop)); VAL("rt.chooseDevice.9_0.value", "%d", d);
  prop.major = 12; d = -7;
  SHOW("rt.chooseDevice.12", cudaChooseDevice(&d, &prop)); VAL("rt.chooseDevice.12.value", "%d", d);
  SHOW("rt.chooseDevice.nulldev", cudaChooseDevice(nullptr, &prop)); CLR();
  SHOW("rt.chooseDevice.nullprop", cudaChooseDevice(&d, nullptr)); CLR();
  char bus[64];
  memset(bus, 'x', sizeof bus); bus[63] = 0;
  SHOW("rt.getPCIBusId", cudaDeviceGetPCIBusId(bus, 64, 0)); VAL("rt.getPCIBusId.value", "%s", bus);
  memset(bus, 'x', sizeof bus); bus[63] = 0;
  SHOW("rt.getPCIBusId.len13", cudaDeviceGetPCIBusId(bus, 13, 0)); VAL("rt.getPCIBusId.len13.value", "%s", bus);
  memset(bus, 'x', sizeof bus); bus[63] = 0;
  SHOW("rt.getPCIBusId.len5", cudaDeviceGetPCIBusId(bus, 5, 0)); CLR(); VAL("rt.getPCIBusId.len5.value", "%s", bus);
  SHOW("rt.getPCIBusId.len0", cudaDeviceGetPCIBusId(bus, 0, 0)); CLR();
  SHOW("rt.getPCIBusId.null", cudaDeviceGetPCIBusId(nullptr, 64, 0)); CLR();
  SHOW("rt.getPCIBusId.dev1", cudaDeviceGetPCIBusId(bus, 64, 1)); CLR();
  SHOW("rt.getPCIBusId.devm1", cudaDeviceGetPCIBusId(bus, 64, -1)); CLR();
  char good[64]; cudaDeviceGetPCIBusId(good, 64, 0);
  d = -7; SHOW("rt.getByPCIBusId", cudaDeviceGetByPCIBusId(&d, good)); VAL("rt.getByPCIBusId.value", "%d", d);
  char lower[64]; strcpy(lower, good); for (char* p = lower; *p; ++p) *p = (char)tolower(*p);
  d = -7; SHOW("rt.getByPCIBusId.lower", cudaDeviceGetByPCIBusId(&d, lower)); CLR(); VAL("rt.getByPCIBusId.lower.value", "%d", d);
  d = -7; SHOW("rt.getByPCIBusId.short", cudaDeviceGetByPCIBusId(&d, good + 5)); CLR(); VAL("rt.getByPCIBusId.short.value", "%d", d);
  d = -7; SHOW("rt.getByPCIBusId.absent", cudaDeviceGetByPCIBusId(&d, "0000:ff:1f.0")); CLR(); VAL("rt.getByPCIBusId.absent.value", "%d", d);
  d = -7; SHOW("rt.getByPCIBusId.junk", cudaDeviceGetByPCIBusId(&d, "junk")); CLR();
  SHOW("rt.getByPCIBusId.nullid", cudaDeviceGetByPCIBusId(&d, nullptr)); CLR();
  SHOW("rt.getByPCIBusId.nulldev", cudaDeviceGetByPCIBusId(nullptr, good)); CLR();
  memset(bus, 'x', sizeof bus); bus[63] = 0;
  DSHOW("drv.deviceGetPCIBusId", cuDeviceGetPCIBusId(bus, 64, 0)); VAL("drv.deviceGetPCIBusId.value", "%s", bus);
  DSHOW("drv.deviceGetPCIBusId.len5", cuDeviceGetPCIBusId(bus, 5, 0));
  DSHOW("drv.deviceGetPCIBusId.dev1", cuDeviceGetPCIBusId(bus, 64, 1));
  { CUdevice dd = -7; DSHOW("drv.deviceGetByPCIBusId", cuDeviceGetByPCIBusId(&dd, good)); VAL("drv.deviceGetByPCIBusId.value", "%d", dd); }
  { CUdevice dd = -7; DSHOW("drv.deviceGetByPCIBusId.absent", cuDeviceGetByPCIBusId(&dd, "0000:ff:1f.0")); }
  { CUdevice dd = -7; DSHOW("drv.deviceGetByPCIBusId.junk", cuDeviceGetByPCIBusId(&dd, "junk")); }

  // Profiler.
  SHOW("rt.profilerStart", cudaProfilerStart());
  SHOW("rt.profilerStart.again", cudaProfilerStart());
  SHOW("rt.profilerStop", cudaProfilerStop());
  SHOW("rt.profilerStop.again", cudaProfilerStop());
  DSHOW("drv.profilerStart", cuProfilerStart());
  DSHOW("drv.profilerStop", cuProfilerStop());

  // Occupancy.
  int mg = -7, bs = -7, nb = -7;
  SHOW("rt.occMaxPotential.k_simple", cudaOccupancyMaxPotentialBlockSize(&mg, &bs, k_simple, 0, 0));
  printf("rt.occMaxPotential.k_simple.value = minGrid=%d block=%d\n", mg, bs);
  SHOW("rt.occMaxPotential.k_bounded", cudaOccupancyMaxPotentialBlockSize(&mg, &bs, k_bounded, 0, 0));
  printf("rt.occMaxPotential.k_bounded.value = minGrid=%d block=%d\n", mg, bs);
  SHOW("rt.occMaxPotential.k_smem", cudaOccupancyMaxPotentialBlockSize(&mg, &bs, k_smem, 0, 0));
  printf("rt.occMaxPotential.k_smem.value = minGrid=%d block=%d\n", mg, bs);
  SHOW("rt.occMaxPotential.limit100", cudaOccupancyMaxPotentialBlockSize(&mg, &bs, k_simple, 0, 100));
  printf("rt.occMaxPotential.limit100.value = minGrid=%d block=%d\n", mg, bs);
  SHOW("rt.occMaxPotential.dyn48K", cudaOccupancyMaxPotentialBlockSize(&mg, &bs, k_simple, 49152, 0));
  printf("rt.occMaxPotential.dyn48K.value = minGrid=%d block=%d\n", mg, bs);
  SHOW("rt.occMaxPotentialVar", cudaOccupancyMaxPotentialBlockSizeVariableSMem(&mg, &bs, k_simple, dyn_smem, 0));
  printf("rt.occMaxPotentialVar.value = minGrid=%d block=%d\n", mg, bs);
  SHOW("rt.occMaxActive.k_simple.256", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_simple, 256, 0));
  VAL("rt.occMaxActive.k_simple.256.value", "%d", nb);
  size_t avail = 0xdead;
  SHOW("rt.occAvailDynSmem.1.128", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 1, 128));
  VAL("rt.occAvailDynSmem.1.128.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.4.256", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 4, 256));
  VAL("rt.occAvailDynSmem.4.256.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.k_smem.2.128", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_smem, 2, 128));
  VAL("rt.occAvailDynSmem.k_smem.2.128.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.32.64", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 32, 64));
  VAL("rt.occAvailDynSmem.32.64.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.33.64", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 33, 64)); CLR();
  VAL("rt.occAvailDynSmem.33.64.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.0.128", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 0, 128)); CLR();
  VAL("rt.occAvailDynSmem.0.128.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.1.2048", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 1, 2048)); CLR();
  VAL("rt.occAvailDynSmem.1.2048.value", "%zu", avail);
  avail = 0xdead; SHOW("rt.occAvailDynSmem.1.0", cudaOccupancyAvailableDynamicSMemPerBlock(&avail, k_simple, 1, 0)); CLR();
  VAL("rt.occAvailDynSmem.1.0.value", "%zu", avail);
  cudaFunction_t fn = nullptr;
  SHOW("rt.getFuncBySymbol", cudaGetFuncBySymbol(&fn, (const void*)k_simple));
  if (fn) {
    CUfunction cf = (CUfunction)fn;
    int v = -7; DSHOW("drv.funcGetAttribute.maxThreads", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, cf));
    VAL("drv.funcGetAttribute.maxThreads.value", "%d", v);
    DSHOW("drv.funcSetCacheConfig.shared", cuFuncSetCacheConfig(cf, CU_FUNC_CACHE_PREFER_SHARED));
    DSHOW("drv.funcSetCacheConfig.bad", cuFuncSetCacheConfig(cf, (CUfunc_cache)5));
    mg = bs = -7;
    DSHOW("drv.occMaxPotential", cuOccupancyMaxPotentialBlockSize(&mg, &bs, cf, nullptr, 0, 0));
    printf("drv.occMaxPotential.value = minGrid=%d block=%d\n", mg, bs);
    avail = 0xdead; DSHOW("drv.occAvailDynSmem.1.128", cuOccupancyAvailableDynamicSMemPerBlock(&avail, cf, 1, 128));
    VAL("drv.occAvailDynSmem.1.128.value", "%zu", avail);
    avail = 0xdead; DSHOW("drv.occAvailDynSmem.33.64", cuOccupancyAvailableDynamicSMemPerBlock(&avail, cf, 33, 64));
    VAL("drv.occAvailDynSmem.33.64.value", "%zu", avail);
    nb = -7; DSHOW("drv.occMaxActiveFlags.bad", cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb, cf, 128, 0, 4));
  }
  int rv = 0, dv = 0;
  SHOW("rt.runtimeGetVersion", cudaRuntimeGetVersion(&rv)); VAL("rt.runtimeGetVersion.value", "%d", rv);
  SHOW("rt.driverGetVersion", cudaDriverGetVersion(&dv)); VAL("rt.driverGetVersion.value", "%d", dv);
  // Heap limit after a launch.
  int* dout = nullptr; cudaMalloc(&dout, 1024);
  k_simple<<<1, 32>>>(dout);
  SHOW("rt.afterLaunch.sync", cudaDeviceSynchronize());
  SHOW("rt.afterLaunch.setLimit.heap", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20)); CLR();
  SHOW("rt.afterLaunch.setLimit.stack", cudaDeviceSetLimit(cudaLimitStackSize, 2048)); CLR();
  SHOW("rt.afterLaunch.setLimit.printf", cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20)); CLR();
  cudaFree(dout);
}

static void host_register_section() {
  const size_t N = 1 << 20;
  char* a = (char*)aligned_alloc(4096, N);
  char* b = (char*)aligned_alloc(4096, N);
  char* c = (char*)malloc(N + 100);
  memset(a, 1, N); memset(b, 2, N); memset(c, 3, N);
  SHOW("rt.hostRegister.default", cudaHostRegister(a, N, cudaHostRegisterDefault));
  SHOW("rt.hostRegister.again", cudaHostRegister(a, N, cudaHostRegisterDefault)); CLR();
  SHOW("rt.hostRegister.interior", cudaHostRegister(a + 4096, 4096, cudaHostRegisterDefault)); CLR();
  SHOW("rt.hostRegister.overlap", cudaHostRegister(a + N - 4096, 8192, cudaHostRegisterDefault)); CLR();
  unsigned hf = 0xdead;
  SHOW("rt.hostGetFlags.registered", cudaHostGetFlags(&hf, a)); VAL("rt.hostGetFlags.registered.value", "0x%x", hf);
  hf = 0xdead; SHOW("rt.hostGetFlags.interior", cudaHostGetFlags(&hf, a + 100)); CLR(); VAL("rt.hostGetFlags.interior.value", "0x%x", hf);
  void* dp = (void*)0x1;
  SHOW("rt.hostGetDevicePointer.default", cudaHostGetDevicePointer(&dp, a, 0));
  printf("rt.hostGetDevicePointer.default.same = %d\n", dp == (void*)a);
  dp = (void*)0x1; SHOW("rt.hostGetDevicePointer.interior", cudaHostGetDevicePointer(&dp, a + 100, 0)); CLR();
  printf("rt.hostGetDevicePointer.interior.same = %d\n", dp == (void*)(a + 100));
  SHOW("rt.hostGetDevicePointer.flags1", cudaHostGetDevicePointer(&dp, a, 1)); CLR();
  SHOW("rt.hostGetDevicePointer.null", cudaHostGetDevicePointer(nullptr, a, 0)); CLR();
  dp = (void*)0x1; SHOW("rt.hostGetDevicePointer.unregistered", cudaHostGetDevicePointer(&dp, b, 0)); CLR();
  printf("rt.hostGetDevicePointer.unregistered.ptr = %s\n", dp == nullptr ? "null" : dp == (void*)0x1 ? "untouched" : "set");
  hf = 0xdead; SHOW("rt.hostGetFlags.unregistered", cudaHostGetFlags(&hf, b)); CLR(); VAL("rt.hostGetFlags.unregistered.value", "0x%x", hf);
  SHOW("rt.hostGetFlags.null", cudaHostGetFlags(nullptr, a)); CLR();
  cudaPointerAttributes pa;
  SHOW("rt.pointerAttr.registered", cudaPointerGetAttributes(&pa, a));
  printf("rt.pointerAttr.registered.value = type=%d device=%d dev_same=%d host_same=%d\n", (int)pa.type, pa.device,
         pa.devicePointer == (void*)a, pa.hostPointer == (void*)a);
  void* d = nullptr; cudaMalloc(&d, N);
  SHOW("rt.registered.memcpyAsync.h2d", cudaMemcpyAsync(d, a, N, cudaMemcpyHostToDevice, 0));
  SHOW("rt.registered.memcpyAsync.d2h", cudaMemcpyAsync(b, d, N, cudaMemcpyDeviceToHost, 0));
  cudaDeviceSynchronize();
  printf("rt.registered.roundtrip = %d\n", b[0] == 1 && b[N - 1] == 1);
  SHOW("rt.hostUnregister", cudaHostUnregister(a));
  SHOW("rt.hostUnregister.again", cudaHostUnregister(a)); CLR();
  SHOW("rt.hostUnregister.never", cudaHostUnregister(b)); CLR();
  SHOW("rt.hostUnregister.null", cudaHostUnregister(nullptr)); CLR();
  SHOW("rt.hostUnregister.device", cudaHostUnregister(d)); CLR();
  SHOW("rt.hostRegister.interior_then_unregister_base.reg", cudaHostRegister(a + 8192, 8192, 0));
  SHOW("rt.hostRegister.interior_then_unregister_base.unreg_base", cudaHostUnregister(a)); CLR();
  SHOW("rt.hostRegister.interior_then_unregister_inner", cudaHostUnregister(a + 8192 + 4096)); CLR();
  SHOW("rt.hostRegister.interior_then_unregister_exact", cudaHostUnregister(a + 8192)); CLR();
  SHOW("rt.hostRegister.unaligned", cudaHostRegister(c + 1, 1000, 0)); CLR();
  hf = 0xdead; SHOW("rt.hostGetFlags.unaligned", cudaHostGetFlags(&hf, c + 1)); CLR(); VAL("rt.hostGetFlags.unaligned.value", "0x%x", hf);
  SHOW("rt.hostUnregister.unaligned", cudaHostUnregister(c + 1)); CLR();
  SHOW("rt.hostRegister.size0", cudaHostRegister(b, 0, 0)); CLR();
  SHOW("rt.hostRegister.null", cudaHostRegister(nullptr, 4096, 0)); CLR();
  SHOW("rt.hostRegister.badflags", cudaHostRegister(b, 4096, 0x40)); CLR();
  SHOW("rt.hostRegister.flags0x10", cudaHostRegister(b, 4096, 0x10)); CLR();
  SHOW("rt.hostRegister.iomemory", cudaHostRegister(b, 4096, cudaHostRegisterIoMemory)); CLR();
  SHOW("rt.hostRegister.readonly", cudaHostRegister(b, 4096, cudaHostRegisterReadOnly)); CLR();
  hf = 0xdead; cudaHostGetFlags(&hf, b); CLR(); VAL("rt.hostRegister.readonly.flags", "0x%x", hf);
  cudaHostUnregister(b); CLR();
  SHOW("rt.hostRegister.mapped_portable", cudaHostRegister(b, 4096, cudaHostRegisterMapped | cudaHostRegisterPortable)); CLR();
  hf = 0xdead; cudaHostGetFlags(&hf, b); CLR(); VAL("rt.hostRegister.mapped_portable.flags", "0x%x", hf);
  cudaHostUnregister(b); CLR();
  void* ha = nullptr; cudaHostAlloc(&ha, 4096, cudaHostAllocMapped);
  hf = 0xdead; SHOW("rt.hostGetFlags.hostAlloc_mapped", cudaHostGetFlags(&hf, ha)); VAL("rt.hostGetFlags.hostAlloc_mapped.value", "0x%x", hf);
  SHOW("rt.hostRegister.of_hostAlloc", cudaHostRegister(ha, 4096, 0)); CLR();
  SHOW("rt.hostUnregister.of_hostAlloc", cudaHostUnregister(ha)); CLR();
  void* hb = nullptr; cudaMallocHost(&hb, 4096);
  hf = 0xdead; SHOW("rt.hostGetFlags.mallocHost", cudaHostGetFlags(&hf, hb)); VAL("rt.hostGetFlags.mallocHost.value", "0x%x", hf);
  SHOW("rt.hostRegister.device", cudaHostRegister(d, 4096, 0)); CLR();
  int stackbuf[1024];
  SHOW("rt.hostRegister.stack", cudaHostRegister(stackbuf, sizeof stackbuf, 0)); CLR();
  cudaHostUnregister(stackbuf); CLR();
  // Driver.
  DSHOW("drv.memHostRegister", cuMemHostRegister(a, N, 0));
  DSHOW("drv.memHostRegister.again", cuMemHostRegister(a, N, 0));
  { unsigned int ff = 0xdead; DSHOW("drv.memHostGetFlags", cuMemHostGetFlags(&ff, a)); VAL("drv.memHostGetFlags.value", "0x%x", ff); }
  { CUdeviceptr p = 1; DSHOW("drv.memHostGetDevicePointer", cuMemHostGetDevicePointer(&p, a, 0)); printf("drv.memHostGetDevicePointer.same = %d\n", p == (CUdeviceptr)a); }
  { CUdeviceptr p = 1; DSHOW("drv.memHostGetDevicePointer.flags1", cuMemHostGetDevicePointer(&p, a, 1)); }
  { CUdeviceptr p = 1; DSHOW("drv.memHostGetDevicePointer.unregistered", cuMemHostGetDevicePointer(&p, b, 0)); }
  DSHOW("drv.memHostUnregister", cuMemHostUnregister(a));
  DSHOW("drv.memHostUnregister.again", cuMemHostUnregister(a));
  DSHOW("drv.memHostRegister.size0", cuMemHostRegister(b, 0, 0));
  DSHOW("drv.memHostRegister.badflags", cuMemHostRegister(b, 4096, 0x40));
  DSHOW("drv.memHostRegister.iomemory", cuMemHostRegister(b, 4096, CU_MEMHOSTREGISTER_IOMEMORY));
  cuMemHostUnregister(b);
  cudaFree(d); cudaFreeHost(ha); cudaFreeHost(hb);
  free(a); free(b); free(c);
}

static void pitch_section() {
  size_t widths[] = {1, 100, 256, 512, 513, 1000, 4096, 100000};
  for (size_t w : widths) {
    void* p = nullptr; size_t pitch = 0xdead; char k[64];
    snprintf(k, sizeof k, "rt.mallocPitch.w%zu", w); SHOW(k, cudaMallocPitch(&p, &pitch, w, 10)); CLR();
    snprintf(k, sizeof k, "rt.mallocPitch.w%zu.pitch", w); VAL(k, "%zu", pitch);
    cudaFree(p);
  }
  { void* p = (void*)1; size_t pitch = 0xdead; SHOW("rt.mallocPitch.w0", cudaMallocPitch(&p, &pitch, 0, 10)); CLR();
    printf("rt.mallocPitch.w0.value = ptr=%s pitch=%zu\n", p ? "set" : "null", pitch); }
  { void* p = (void*)1; size_t pitch = 0xdead; SHOW("rt.mallocPitch.h0", cudaMallocPitch(&p, &pitch, 100, 0)); CLR();
    printf("rt.mallocPitch.h0.value = ptr=%s pitch=%zu\n", p ? "set" : "null", pitch); }
  { size_t pitch; SHOW("rt.mallocPitch.nullptr", cudaMallocPitch(nullptr, &pitch, 100, 10)); CLR(); }
  { void* p; SHOW("rt.mallocPitch.nullpitch", cudaMallocPitch(&p, nullptr, 100, 10)); CLR(); }
  { void* p = nullptr; size_t pitch = 0; SHOW("rt.mallocPitch.hugewidth", cudaMallocPitch(&p, &pitch, (size_t)1 << 32, 1)); CLR();
    VAL("rt.mallocPitch.hugewidth.pitch", "%zu", pitch); cudaFree(p); }
  cudaPitchedPtr pp;
  SHOW("rt.malloc3D", cudaMalloc3D(&pp, make_cudaExtent(100, 10, 5)));
  printf("rt.malloc3D.value = pitch=%zu xsize=%zu ysize=%zu\n", pp.pitch, pp.xsize, pp.ysize);
  cudaFree(pp.ptr);
  { cudaPitchedPtr z; memset(&z, 0x11, sizeof z); SHOW("rt.malloc3D.zero", cudaMalloc3D(&z, make_cudaExtent(0, 10, 5))); CLR();
    printf("rt.malloc3D.zero.value = ptr=%s pitch=%zu\n", z.ptr ? "set" : "null", z.pitch); }
  SHOW("rt.malloc3D.null", cudaMalloc3D(nullptr, make_cudaExtent(1, 1, 1))); CLR();
  { CUdeviceptr p = 0; size_t pitch = 0xdead;
    unsigned elems[] = {1, 2, 3, 4, 8, 16, 32};
    for (unsigned e : elems) { char k[64];
      snprintf(k, sizeof k, "drv.memAllocPitch.e%u", e); DSHOW(k, cuMemAllocPitch(&p, &pitch, 100, 10, e));
      snprintf(k, sizeof k, "drv.memAllocPitch.e%u.pitch", e); VAL(k, "%zu", pitch); if (p) cuMemFree(p); p = 0; } }
  // 2-D copies.
  const size_t W = 100, H = 8;
  void* d = nullptr; size_t dpitch = 0; cudaMallocPitch(&d, &dpitch, W, H);
  char host[W * H], back[W * H];
  for (size_t i = 0; i < sizeof host; ++i) host[i] = (char)i;
  SHOW("rt.memcpy2D.h2d", cudaMemcpy2D(d, dpitch, host, W, W, H, cudaMemcpyHostToDevice));
  SHOW("rt.memcpy2D.d2h", cudaMemcpy2D(back, W, d, dpitch, W, H, cudaMemcpyDeviceToHost));
  printf("rt.memcpy2D.roundtrip = %d\n", memcmp(host, back, sizeof host) == 0);
  SHOW("rt.memcpy2D.dpitch_lt_width", cudaMemcpy2D(d, 50, host, W, W, H, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2D.spitch_lt_width", cudaMemcpy2D(d, dpitch, host, 50, W, H, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2D.pitch_huge", cudaMemcpy2D(d, (size_t)1 << 31, host, W, W, 1, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2D.width0", cudaMemcpy2D(d, dpitch, host, W, 0, H, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2D.height0", cudaMemcpy2D(d, dpitch, host, W, W, 0, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2D.badkind", cudaMemcpy2D(d, dpitch, host, W, W, H, (cudaMemcpyKind)7)); CLR();
  SHOW("rt.memcpy2D.default", cudaMemcpy2D(back, W, d, dpitch, W, H, cudaMemcpyDefault));
  SHOW("rt.memcpy2D.d2d", cudaMemcpy2D(d, dpitch, d, dpitch, W, H, cudaMemcpyDeviceToDevice));
  SHOW("rt.memcpy2D.h2h", cudaMemcpy2D(back, W, host, W, W, H, cudaMemcpyHostToHost));
  SHOW("rt.memcpy2D.wrongkind", cudaMemcpy2D(back, W, d, dpitch, W, H, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2D.null", cudaMemcpy2D(nullptr, dpitch, host, W, W, H, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpy2DAsync", cudaMemcpy2DAsync(d, dpitch, host, W, W, H, cudaMemcpyHostToDevice, 0));
  SHOW("rt.memcpy2DAsync.dpitch_lt_width", cudaMemcpy2DAsync(d, 50, host, W, W, H, cudaMemcpyHostToDevice, 0)); CLR();
  cudaDeviceSynchronize();
  // 2-D memset.
  SHOW("rt.memset2D", cudaMemset2D(d, dpitch, 0x5a, W, H));
  cudaMemcpy2D(back, W, d, dpitch, W, H, cudaMemcpyDeviceToHost);
  printf("rt.memset2D.check = %d\n", back[0] == 0x5a && back[W * H - 1] == 0x5a);
  SHOW("rt.memset2D.pitch_lt_width", cudaMemset2D(d, 50, 0, W, H)); CLR();
  SHOW("rt.memset2D.width0", cudaMemset2D(d, dpitch, 0, 0, H)); CLR();
  SHOW("rt.memset2DAsync", cudaMemset2DAsync(d, dpitch, 1, W, H, 0));
  cudaDeviceSynchronize();
  // 3-D copies.
  cudaPitchedPtr p3; cudaExtent ext = make_cudaExtent(64, 4, 3);
  cudaMalloc3D(&p3, ext);
  char h3[64 * 4 * 3], b3[64 * 4 * 3];
  for (size_t i = 0; i < sizeof h3; ++i) h3[i] = (char)(i * 7);
  cudaMemcpy3DParms m = {};
  m.srcPtr = make_cudaPitchedPtr(h3, 64, 64, 4); m.dstPtr = p3; m.extent = ext; m.kind = cudaMemcpyHostToDevice;
  SHOW("rt.memcpy3D.h2d", cudaMemcpy3D(&m));
  cudaMemcpy3DParms r = {};
  r.srcPtr = p3; r.dstPtr = make_cudaPitchedPtr(b3, 64, 64, 4); r.extent = ext; r.kind = cudaMemcpyDeviceToHost;
  SHOW("rt.memcpy3D.d2h", cudaMemcpy3D(&r));
  printf("rt.memcpy3D.roundtrip = %d\n", memcmp(h3, b3, sizeof h3) == 0);
  { cudaMemcpy3DParms q = r; q.srcPos = make_cudaPos(8, 1, 1); q.dstPos = make_cudaPos(0, 0, 0); q.extent = make_cudaExtent(16, 2, 1);
    memset(b3, 0, sizeof b3); SHOW("rt.memcpy3D.pos", cudaMemcpy3D(&q));
    printf("rt.memcpy3D.pos.check = %d\n", b3[0] == h3[64 * 4 + 64 + 8] && b3[64 + 15] == h3[64 * 4 + 128 + 15]); }
  SHOW("rt.memcpy3D.null", cudaMemcpy3D(nullptr)); CLR();
  { cudaMemcpy3DParms q = m; q.extent = make_cudaExtent(0, 4, 3); SHOW("rt.memcpy3D.extent0", cudaMemcpy3D(&q)); CLR(); }
  { cudaMemcpy3DParms q = m; q.extent = make_cudaExtent(64, 0, 3); SHOW("rt.memcpy3D.height0", cudaMemcpy3D(&q)); CLR(); }
  { cudaMemcpy3DParms q = m; q.srcPtr.pitch = 32; SHOW("rt.memcpy3D.spitch_lt_width", cudaMemcpy3D(&q)); CLR(); }
  { cudaMemcpy3DParms q = m; q.dstPtr.pitch = 32; SHOW("rt.memcpy3D.dpitch_lt_width", cudaMemcpy3D(&q)); CLR(); }
  { cudaMemcpy3DParms q = m; q.kind = (cudaMemcpyKind)9; SHOW("rt.memcpy3D.badkind", cudaMemcpy3D(&q)); CLR(); }
  { cudaMemcpy3DParms q = m; q.srcPtr.ysize = 2; SHOW("rt.memcpy3D.src_ysize_lt_height", cudaMemcpy3D(&q)); CLR(); }
  { cudaMemcpy3DParms q = m; q.kind = cudaMemcpyDefault; SHOW("rt.memcpy3D.default", cudaMemcpy3D(&q)); CLR(); }
  SHOW("rt.memcpy3DAsync", cudaMemcpy3DAsync(&m, 0));
  cudaDeviceSynchronize();
  SHOW("rt.memset3D", cudaMemset3D(p3, 0x33, ext));
  cudaMemcpy3D(&r);
  printf("rt.memset3D.check = %d\n", b3[0] == 0x33 && b3[sizeof b3 - 1] == 0x33);
  { cudaPitchedPtr q = p3; q.pitch = 32; SHOW("rt.memset3D.pitch_lt_width", cudaMemset3D(q, 0, ext)); CLR(); }
  SHOW("rt.memset3D.zero", cudaMemset3D(p3, 0, make_cudaExtent(0, 0, 0))); CLR();
  SHOW("rt.memset3DAsync", cudaMemset3DAsync(p3, 0x44, ext, 0));
  cudaDeviceSynchronize();
  // Driver 2-D/3-D copies.
  { CUDA_MEMCPY2D c2 = {};
    c2.srcMemoryType = CU_MEMORYTYPE_HOST; c2.srcHost = host; c2.srcPitch = W;
    c2.dstMemoryType = CU_MEMORYTYPE_DEVICE; c2.dstDevice = (CUdeviceptr)d; c2.dstPitch = dpitch;
    c2.WidthInBytes = W; c2.Height = H;
    DSHOW("drv.memcpy2D", cuMemcpy2D(&c2));
    CUDA_MEMCPY2D bad = c2; bad.dstPitch = 50; DSHOW("drv.memcpy2D.dpitch_lt_width", cuMemcpy2D(&bad));
    bad = c2; bad.srcMemoryType = (CUmemorytype)9; DSHOW("drv.memcpy2D.badtype", cuMemcpy2D(&bad));
    DSHOW("drv.memcpy2D.null", cuMemcpy2D(nullptr));
    DSHOW("drv.memcpy2DUnaligned", cuMemcpy2DUnaligned(&c2));
    DSHOW("drv.memcpy2DAsync", cuMemcpy2DAsync(&c2, 0));
    cuCtxSynchronize(); }
  { CUDA_MEMCPY3D c3 = {};
    c3.srcMemoryType = CU_MEMORYTYPE_HOST; c3.srcHost = h3; c3.srcPitch = 64; c3.srcHeight = 4;
    c3.dstMemoryType = CU_MEMORYTYPE_DEVICE; c3.dstDevice = (CUdeviceptr)p3.ptr; c3.dstPitch = p3.pitch; c3.dstHeight = 4;
    c3.WidthInBytes = 64; c3.Height = 4; c3.Depth = 3;
    DSHOW("drv.memcpy3D", cuMemcpy3D(&c3));
    CUDA_MEMCPY3D bad = c3; bad.srcHeight = 2; DSHOW("drv.memcpy3D.srcHeight_lt", cuMemcpy3D(&bad));
    bad = c3; bad.reserved0 = (void*)1; DSHOW("drv.memcpy3D.reserved0", cuMemcpy3D(&bad));
    DSHOW("drv.memcpy3DAsync", cuMemcpy3DAsync(&c3, 0));
    cuCtxSynchronize(); }
  { DSHOW("drv.memsetD2D8", cuMemsetD2D8((CUdeviceptr)d, dpitch, 1, W, H));
    DSHOW("drv.memsetD2D8.pitch_lt", cuMemsetD2D8((CUdeviceptr)d, 50, 1, W, H));
    DSHOW("drv.memsetD2D32", cuMemsetD2D32((CUdeviceptr)d, dpitch, 1, W / 4, H)); }
  cudaFree(d); cudaFree(p3.ptr);
}

static void symbol_section() {
  size_t sz = 0;
  SHOW("rt.getSymbolSize.g_dev", cudaGetSymbolSize(&sz, g_dev)); VAL("rt.getSymbolSize.g_dev.value", "%zu", sz);
  SHOW("rt.getSymbolSize.c_tab", cudaGetSymbolSize(&sz, c_tab)); VAL("rt.getSymbolSize.c_tab.value", "%zu", sz);
  SHOW("rt.getSymbolSize.g_scalar", cudaGetSymbolSize(&sz, g_scalar)); VAL("rt.getSymbolSize.g_scalar.value", "%zu", sz);
  SHOW("rt.getSymbolSize.hostvar", cudaGetSymbolSize(&sz, host_var)); CLR();
  SHOW("rt.getSymbolSize.nullsym", cudaGetSymbolSize(&sz, (const void*)nullptr)); CLR();
  SHOW("rt.getSymbolSize.kernel", cudaGetSymbolSize(&sz, (const void*)k_simple)); CLR();
  SHOW("rt.getSymbolSize.interior", cudaGetSymbolSize(&sz, (const void*)&g_dev[1])); CLR();
  void* a = nullptr;
  SHOW("rt.getSymbolAddress.g_dev", cudaGetSymbolAddress(&a, g_dev));
  cudaPointerAttributes pa; cudaPointerGetAttributes(&pa, a);
  printf("rt.getSymbolAddress.g_dev.type = %d\n", (int)pa.type);
  printf("rt.getSymbolAddress.g_dev.is_host_addr = %d\n", a == (void*)g_dev);
  SHOW("rt.getSymbolAddress.c_tab", cudaGetSymbolAddress(&a, c_tab));
  cudaPointerGetAttributes(&pa, a); printf("rt.getSymbolAddress.c_tab.type = %d\n", (int)pa.type);
  SHOW("rt.getSymbolAddress.hostvar", cudaGetSymbolAddress(&a, host_var)); CLR();
  int v[10]; for (int i = 0; i < 10; ++i) v[i] = 100 + i;
  float t[256]; for (int i = 0; i < 256; ++i) t[i] = (float)i;
  SHOW("rt.memcpyToSymbol.g_dev", cudaMemcpyToSymbol(g_dev, v, sizeof v));
  SHOW("rt.memcpyToSymbol.c_tab", cudaMemcpyToSymbol(c_tab, t, sizeof t));
  SHOW("rt.memcpyToSymbol.offset4_36", cudaMemcpyToSymbol(g_dev, v, 36, 4));
  SHOW("rt.memcpyToSymbol.overflow", cudaMemcpyToSymbol(g_dev, v, 40, 4)); CLR();
  SHOW("rt.memcpyToSymbol.count0", cudaMemcpyToSymbol(g_dev, v, 0)); CLR();
  SHOW("rt.memcpyToSymbol.offset_past", cudaMemcpyToSymbol(g_dev, v, 0, 44)); CLR();
  SHOW("rt.memcpyToSymbol.hostvar", cudaMemcpyToSymbol(host_var, v, 4)); CLR();
  SHOW("rt.memcpyToSymbol.nullsym", cudaMemcpyToSymbol((const void*)nullptr, v, 4)); CLR();
  SHOW("rt.memcpyToSymbol.kind_d2h", cudaMemcpyToSymbol(g_dev, v, 4, 0, cudaMemcpyDeviceToHost)); CLR();
  SHOW("rt.memcpyToSymbol.kind_h2h", cudaMemcpyToSymbol(g_dev, v, 4, 0, cudaMemcpyHostToHost)); CLR();
  SHOW("rt.memcpyToSymbol.kind_default", cudaMemcpyToSymbol(g_dev, v, 4, 0, cudaMemcpyDefault)); CLR();
  SHOW("rt.memcpyToSymbol.kind_bad", cudaMemcpyToSymbol(g_dev, v, 4, 0, (cudaMemcpyKind)7)); CLR();
  SHOW("rt.memcpyToSymbol.nullsrc", cudaMemcpyToSymbol(g_dev, nullptr, 4)); CLR();
  int* dv = nullptr; cudaMalloc(&dv, 64); cudaMemcpy(dv, v, 40, cudaMemcpyHostToDevice);
  SHOW("rt.memcpyToSymbol.d2d", cudaMemcpyToSymbol(g_dev, dv, 40, 0, cudaMemcpyDeviceToDevice));
  int w[10] = {};
  SHOW("rt.memcpyFromSymbol.g_dev", cudaMemcpyFromSymbol(w, g_dev, sizeof w));
  printf("rt.memcpyFromSymbol.g_dev.value = %d %d %d\n", w[0], w[1], w[9]);
  SHOW("rt.memcpyFromSymbol.overflow", cudaMemcpyFromSymbol(w, g_dev, 40, 8)); CLR();
  SHOW("rt.memcpyFromSymbol.hostvar", cudaMemcpyFromSymbol(w, host_var, 4)); CLR();
  SHOW("rt.memcpyFromSymbol.kind_h2d", cudaMemcpyFromSymbol(w, g_dev, 4, 0, cudaMemcpyHostToDevice)); CLR();
  SHOW("rt.memcpyFromSymbol.d2d", cudaMemcpyFromSymbol(dv, g_dev, 40, 0, cudaMemcpyDeviceToDevice));
  SHOW("rt.memcpyToSymbolAsync", cudaMemcpyToSymbolAsync(g_dev, v, 40, 0, cudaMemcpyHostToDevice, 0));
  SHOW("rt.memcpyFromSymbolAsync", cudaMemcpyFromSymbolAsync(w, g_dev, 40, 0, cudaMemcpyDeviceToHost, 0));
  SHOW("rt.memcpyToSymbolAsync.hostvar", cudaMemcpyToSymbolAsync(host_var, v, 4, 0, cudaMemcpyHostToDevice, 0)); CLR();
  SHOW("rt.memcpyToSymbolAsync.overflow", cudaMemcpyToSymbolAsync(g_dev, v, 44, 0, cudaMemcpyHostToDevice, 0)); CLR();
  cudaDeviceSynchronize();
  k_simple<<<1, 10>>>(dv);
  SHOW("rt.symbolKernel.sync", cudaDeviceSynchronize());
  int o[10] = {}; cudaMemcpy(o, dv, 40, cudaMemcpyDeviceToHost);
  printf("rt.symbolKernel.value = %d %d %d\n", o[0], o[1], o[9]);
  // Driver module globals of the runtime's module are not reachable without the handle: skipped.
  CUdeviceptr gp = 0; size_t gs = 0;
  DSHOW("drv.moduleGetGlobal.null_module", cuModuleGetGlobal(&gp, &gs, nullptr, "g_dev"));
  cudaFree(dv);
}

static void event_section() {
  cudaEvent_t e = nullptr; cudaStream_t s = nullptr;
  cudaEventCreate(&e); cudaStreamCreate(&s);
  SHOW("rt.eventRecordWithFlags.default", cudaEventRecordWithFlags(e, s, cudaEventRecordDefault));
  SHOW("rt.eventRecordWithFlags.external", cudaEventRecordWithFlags(e, s, cudaEventRecordExternal)); CLR();
  SHOW("rt.eventRecordWithFlags.bad2", cudaEventRecordWithFlags(e, s, 2)); CLR();
  SHOW("rt.eventRecordWithFlags.nullevent", cudaEventRecordWithFlags(nullptr, s, 0)); CLR();
  SHOW("rt.eventRecordWithFlags.stream0", cudaEventRecordWithFlags(e, 0, 0));
  SHOW("rt.streamWaitEvent.default", cudaStreamWaitEvent(s, e, cudaEventWaitDefault));
  SHOW("rt.streamWaitEvent.external", cudaStreamWaitEvent(s, e, cudaEventWaitExternal)); CLR();
  SHOW("rt.streamWaitEvent.bad2", cudaStreamWaitEvent(s, e, 2)); CLR();
  DSHOW("drv.eventRecordWithFlags.default", cuEventRecordWithFlags((CUevent)e, (CUstream)s, CU_EVENT_RECORD_DEFAULT));
  DSHOW("drv.eventRecordWithFlags.external", cuEventRecordWithFlags((CUevent)e, (CUstream)s, CU_EVENT_RECORD_EXTERNAL));
  DSHOW("drv.eventRecordWithFlags.bad2", cuEventRecordWithFlags((CUevent)e, (CUstream)s, 2));
  DSHOW("drv.streamWaitEvent.external", cuStreamWaitEvent((CUstream)s, (CUevent)e, CU_EVENT_WAIT_EXTERNAL));
  cudaEvent_t b = nullptr;
  SHOW("rt.eventCreate.blocking", cudaEventCreateWithFlags(&b, cudaEventBlockingSync));
  cudaEventRecord(b, s);
  SHOW("rt.eventSynchronize.blocking", cudaEventSynchronize(b));
  SHOW("rt.eventQuery.blocking", cudaEventQuery(b));
  SHOW("rt.streamSync", cudaStreamSynchronize(s));
  cudaEventDestroy(b); cudaEventDestroy(e); cudaStreamDestroy(s);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  printf("# probe_api_families: CUDA 13 on an H200\n");
  device_section();
  SHOW("sync.after_device", cudaDeviceSynchronize());
  host_register_section();
  SHOW("sync.after_host_register", cudaDeviceSynchronize());
  pitch_section();
  SHOW("sync.after_pitch", cudaDeviceSynchronize());
  symbol_section();
  SHOW("sync.after_symbol", cudaDeviceSynchronize());
  event_section();
  SHOW("final.getLastError", cudaGetLastError());
  return 0;
}
