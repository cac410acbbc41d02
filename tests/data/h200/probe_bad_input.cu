// Bad-input probe (runtime and driver API) for CUDA 13: how the real stack answers NULL
// out-pointers, invalid and destroyed handles, sizes of 0 and 2^63, misaligned values and bad
// flags, for the calls minicuda implements. Recorded on an H200 into probe_bad_input.txt;
// tests/conformance builds it unchanged against minicuda and compares every answer.
//
// Build: nvcc -arch=sm_90 -o probe_bad_input probe_bad_input.cu -lcuda
// Each line: key = value; error codes print as "<int> <name>". A question that could crash the
// driver (a destroyed or made-up handle, a NULL out-pointer) runs in a child process of its own
// (`probe_bad_input iso <id>`), so a crash prints "<id>.child = crashed signal=N" instead of
// ending the probe.
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
#define RT(key, expr) do { cudaError_t e_ = (expr); printf("%s = %d %s\n", key, (int)e_, cudaGetErrorName(e_)); } while (0)
#define DRV(key, expr) do { CUresult r_ = (expr); printf("%s = %d %s\n", key, (int)r_, cu_name(r_)); } while (0)
#define LAST(key) RT(key ".getlast", cudaGetLastError())

static const size_t kHuge = (size_t)1 << 63;

__global__ void noop() {}
__global__ void fill(int* p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
static void host_fn(void*) {}
static void host_only_function() {}

// --- questions that run in a child process of their own ----------------------------------------

struct Iso { const char* id; void (*fn)(); };
static Iso g_iso[64];
static int g_iso_count = 0;
struct IsoReg { IsoReg(const char* id, void (*fn)()) { g_iso[g_iso_count++] = Iso{id, fn}; } };
#define ISO(id) static void iso_##id(); static IsoReg iso_reg_##id(#id, iso_##id); static void iso_##id()

static cudaStream_t destroyed_stream() { cudaStream_t s; cudaStreamCreate(&s); cudaStreamDestroy(s); return s; }
static cudaEvent_t destroyed_event() { cudaEvent_t e; cudaEventCreate(&e); cudaEventDestroy(e); return e; }
static CUstream destroyed_custream() { CUstream s; cuStreamCreate(&s, 0); cuStreamDestroy_v2(s); return s; }
static CUevent destroyed_cuevent() { CUevent e; cuEventCreate(&e, 0); cuEventDestroy_v2(e); return e; }
static cudaStream_t const kBogusStream = (cudaStream_t)0x1234;
static cudaEvent_t const kBogusEvent = (cudaEvent_t)0x1234;

ISO(rt_streamCreate_null) { RT("rt.streamCreate.null", cudaStreamCreate(nullptr)); LAST("rt.streamCreate.null"); }
ISO(rt_streamCreateWithPriority_null) { RT("rt.streamCreateWithPriority.null", cudaStreamCreateWithPriority(nullptr, 0, 0)); }
ISO(rt_eventCreate_null) { RT("rt.eventCreate.null", cudaEventCreate(nullptr)); LAST("rt.eventCreate.null"); }
ISO(rt_eventCreateWithFlags_null) { RT("rt.eventCreateWithFlags.null", cudaEventCreateWithFlags(nullptr, 0)); }
ISO(rt_destroyed_stream_sync) { RT("rt.destroyedStream.synchronize", cudaStreamSynchronize(destroyed_stream())); }
ISO(rt_destroyed_stream_query) { RT("rt.destroyedStream.query", cudaStreamQuery(destroyed_stream())); }
ISO(rt_destroyed_stream_destroy) { RT("rt.destroyedStream.destroy", cudaStreamDestroy(destroyed_stream())); }
ISO(rt_destroyed_stream_memcpyAsync) {
  int* d; cudaMalloc(&d, 64);
  RT("rt.destroyedStream.memsetAsync", cudaMemsetAsync(d, 0, 64, destroyed_stream()));
}
ISO(rt_destroyed_stream_launch) {
  noop<<<1, 1, 0, destroyed_stream()>>>();
  RT("rt.destroyedStream.launch", cudaGetLastError());
}
ISO(rt_destroyed_stream_record) {
  cudaEvent_t e; cudaEventCreate(&e);
  RT("rt.destroyedStream.eventRecord", cudaEventRecord(e, destroyed_stream()));
}
ISO(rt_destroyed_stream_getPriority) { int p = -7; RT("rt.destroyedStream.getPriority", cudaStreamGetPriority(destroyed_stream(), &p)); }
ISO(rt_bogus_stream_query) { RT("rt.bogusStream.query", cudaStreamQuery(kBogusStream)); }
ISO(rt_destroyed_event_query) { RT("rt.destroyedEvent.query", cudaEventQuery(destroyed_event())); }
ISO(rt_destroyed_event_sync) { RT("rt.destroyedEvent.synchronize", cudaEventSynchronize(destroyed_event())); }
ISO(rt_destroyed_event_record) { RT("rt.destroyedEvent.record", cudaEventRecord(destroyed_event(), 0)); }
ISO(rt_destroyed_event_destroy) { RT("rt.destroyedEvent.destroy", cudaEventDestroy(destroyed_event())); }
ISO(rt_destroyed_event_wait) {
  cudaStream_t s; cudaStreamCreate(&s);
  RT("rt.destroyedEvent.streamWait", cudaStreamWaitEvent(s, destroyed_event(), 0));
}
ISO(rt_destroyed_event_elapsed) {
  cudaEvent_t e; cudaEventCreate(&e); cudaEventRecord(e, 0); cudaEventSynchronize(e);
  float ms = -1;
  RT("rt.destroyedEvent.elapsed", cudaEventElapsedTime(&ms, e, destroyed_event()));
}
ISO(rt_bogus_event_query) { RT("rt.bogusEvent.query", cudaEventQuery(kBogusEvent)); }
ISO(rt_launch_null_args) {
  RT("rt.launchKernel.null_args", cudaLaunchKernel((const void*)fill, dim3(1), dim3(1), nullptr, 0, 0));
  RT("rt.launchKernel.null_args.sync", cudaDeviceSynchronize());
}
ISO(rt_funcGetAttributes_null_attr) { RT("rt.funcGetAttributes.null_attr", cudaFuncGetAttributes(nullptr, (const void*)noop)); }
ISO(rt_occupancy_null_out) {
  RT("rt.occupancy.null_out", cudaOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, (const void*)noop, 256, 0));
}
ISO(rt_streamGetPriority_null) {
  cudaStream_t s; cudaStreamCreate(&s);
  RT("rt.streamGetPriority.null_out", cudaStreamGetPriority(s, nullptr));
}
ISO(rt_eventElapsed_null_ms) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); cudaEventRecord(a, 0); cudaEventRecord(b, 0);
  cudaEventSynchronize(b);
  RT("rt.eventElapsedTime.null_ms", cudaEventElapsedTime(nullptr, a, b));
}
ISO(drv_streamCreate_null) { DRV("drv.streamCreate.null_out", cuStreamCreate(nullptr, 0)); }
ISO(drv_eventCreate_null) { DRV("drv.eventCreate.null_out", cuEventCreate(nullptr, 0)); }
ISO(drv_destroyed_stream_query) { DRV("drv.destroyedStream.query", cuStreamQuery(destroyed_custream())); }
ISO(drv_destroyed_stream_sync) { DRV("drv.destroyedStream.synchronize", cuStreamSynchronize(destroyed_custream())); }
ISO(drv_destroyed_stream_destroy) { DRV("drv.destroyedStream.destroy", cuStreamDestroy_v2(destroyed_custream())); }
ISO(drv_destroyed_event_query) { DRV("drv.destroyedEvent.query", cuEventQuery(destroyed_cuevent())); }
ISO(drv_destroyed_event_record) { DRV("drv.destroyedEvent.record", cuEventRecord(destroyed_cuevent(), nullptr)); }
ISO(drv_destroyed_event_destroy) { DRV("drv.destroyedEvent.destroy", cuEventDestroy_v2(destroyed_cuevent())); }
ISO(drv_streamDestroy_null) { DRV("drv.streamDestroy.null", cuStreamDestroy_v2(nullptr)); }
ISO(drv_eventElapsed_null_ms) {
  CUevent a, b; cuEventCreate(&a, 0); cuEventCreate(&b, 0); cuEventRecord(a, nullptr); cuEventRecord(b, nullptr);
  cuEventSynchronize(b);
  DRV("drv.eventElapsedTime.null_ms", cuEventElapsedTime_v2(nullptr, a, b));
}
ISO(drv_memcpyHtoD_null_src) {
  CUdeviceptr d; cuMemAlloc_v2(&d, 64);
  DRV("drv.memcpyHtoD.null_src", cuMemcpyHtoD_v2(d, nullptr, 16));
}
ISO(drv_memcpyDtoH_null_dst) {
  CUdeviceptr d; cuMemAlloc_v2(&d, 64);
  DRV("drv.memcpyDtoH.null_dst", cuMemcpyDtoH_v2(nullptr, d, 16));
}
ISO(drv_launchKernel_null_func) {
  DRV("drv.launchKernel.null_func", cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
}
ISO(drv_funcGetAttribute_null_func) {
  int v = -7;
  DRV("drv.funcGetAttribute.null_func", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, nullptr));
}
ISO(drv_ctxPushCurrent_null) { DRV("drv.ctxPushCurrent.null", cuCtxPushCurrent_v2(nullptr)); }
ISO(drv_ctxPopCurrent_null_out) { DRV("drv.ctxPopCurrent.null_out", cuCtxPopCurrent_v2(nullptr)); }
ISO(drv_ctxDestroy_null) { DRV("drv.ctxDestroy.null", cuCtxDestroy_v2(nullptr)); }
ISO(drv_libraryLoadData_null) {
  CUlibrary lib = nullptr;
  DRV("drv.libraryLoadData.null_image", cuLibraryLoadData(&lib, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0));
}

// Runs `self iso <id>` for each, with a 20 s alarm for hangs, and reports how each ended badly.
static void run_isolated(const char* self) {
  for (int i = 0; i < g_iso_count; ++i) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      execl(self, self, "iso", g_iso[i].id, (char*)nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) printf("iso.%s.child = crashed signal=%d\n", g_iso[i].id, WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0) printf("iso.%s.child = exited %d\n", g_iso[i].id, WEXITSTATUS(status));
  }
}

static int iso_child(const char* id) {
  alarm(20);
  cudaFree(0);  // the runtime, the primary context and the driver API's current context
  for (int i = 0; i < g_iso_count; ++i) {
    if (strcmp(g_iso[i].id, id) == 0) {
      g_iso[i].fn();
      fflush(stdout);
      return 0;
    }
  }
  printf("iso.unknown = %s\n", id);
  return 0;
}

// --- questions that cannot crash the driver: one process ---------------------------------------

static void sizes_and_pointers() {
  void* p = (void*)0x1;
  RT("rt.malloc.2^63", cudaMalloc(&p, kHuge)); LAST("rt.malloc.2^63");
  printf("rt.malloc.2^63.ptr_is_null = %d\n", (int)(p == nullptr));
  RT("rt.malloc.SIZE_MAX", cudaMalloc(&p, SIZE_MAX)); LAST("rt.malloc.SIZE_MAX");
  RT("rt.mallocHost.2^63", cudaMallocHost(&p, kHuge)); LAST("rt.mallocHost.2^63");
  RT("rt.mallocHost.null", cudaMallocHost(nullptr, 16));
  RT("rt.hostAlloc.2^63", cudaHostAlloc(&p, kHuge, cudaHostAllocDefault)); LAST("rt.hostAlloc.2^63");
  int* d = nullptr; cudaMalloc(&d, 4096);
  static int h[1024];
  RT("rt.memcpy.h2d_2^63", cudaMemcpy(d, h, kHuge, cudaMemcpyHostToDevice)); LAST("rt.memcpy.h2d_2^63");
  RT("rt.memcpy.d2d_2^63", cudaMemcpy(d, d, kHuge, cudaMemcpyDeviceToDevice));
  RT("rt.memcpy.d2h_2^63", cudaMemcpy(h, d, kHuge, cudaMemcpyDeviceToHost));
  RT("rt.memcpy.zero_bytes_null", cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyHostToDevice)); LAST("rt.memcpy.zero_bytes_null");
  RT("rt.memcpy.null_src", cudaMemcpy(d, nullptr, 16, cudaMemcpyHostToDevice)); LAST("rt.memcpy.null_src");
  RT("rt.memcpy.h2h_pageable", cudaMemcpy(h, h + 512, 64, cudaMemcpyHostToHost));
  RT("rt.memcpy.default_d2d", cudaMemcpy(d, d + 512, 64, cudaMemcpyDefault));
  RT("rt.memcpy.d2d_with_host_ptrs", cudaMemcpy(h, h + 512, 64, cudaMemcpyDeviceToDevice)); LAST("rt.memcpy.d2d_with_host_ptrs");
  RT("rt.memcpy.d2h_into_device", cudaMemcpy(d, d + 512, 64, cudaMemcpyDeviceToHost)); LAST("rt.memcpy.d2h_into_device");
  RT("rt.memcpy.kind_neg", cudaMemcpy(d, h, 16, (cudaMemcpyKind)-1)); LAST("rt.memcpy.kind_neg");
  RT("rt.memset.2^63", cudaMemset(d, 0, kHuge)); LAST("rt.memset.2^63");
  RT("rt.memset.null", cudaMemset(nullptr, 0, 4)); LAST("rt.memset.null");
  RT("rt.memset.zero_bytes_null", cudaMemset(nullptr, 0, 0));
  RT("rt.memset.odd_address", cudaMemset((char*)d + 1, 0x5a, 3));
  RT("rt.memset.host_ptr", cudaMemset(h, 0, 16)); LAST("rt.memset.host_ptr");
  RT("rt.memset.value_0x1ff", cudaMemset(d, 0x1ff, 4));
  unsigned char b[4] = {0}; cudaMemcpy(b, d, 4, cudaMemcpyDeviceToHost);
  printf("rt.memset.value_0x1ff.bytes = %02x%02x%02x%02x\n", b[0], b[1], b[2], b[3]);
  int* freed = nullptr; cudaMalloc(&freed, 64); cudaFree(freed);
  cudaPointerAttributes a; memset(&a, 0x7f, sizeof a);
  RT("rt.ptrAttr.freed", cudaPointerGetAttributes(&a, freed)); printf("rt.ptrAttr.freed.type = %d\n", (int)a.type);
  RT("rt.memcpy.freed_dst", cudaMemcpy(freed, h, 16, cudaMemcpyHostToDevice)); LAST("rt.memcpy.freed_dst");
  RT("rt.free.freed", cudaFree(freed)); LAST("rt.free.freed");
  size_t f = 0;
  RT("rt.memGetInfo.both_null", cudaMemGetInfo(nullptr, nullptr));
  RT("rt.memGetInfo.null_total", cudaMemGetInfo(&f, nullptr));
  cudaFree(d);
}

static void async_calls() {
  int* d = nullptr; cudaMalloc(&d, 4096);
  static int h[1024];
  cudaStream_t s; cudaStreamCreate(&s);
  RT("rt.memcpyAsync.bad_kind", cudaMemcpyAsync(d, h, 16, (cudaMemcpyKind)42, s)); LAST("rt.memcpyAsync.bad_kind");
  RT("rt.memcpyAsync.null_dst", cudaMemcpyAsync(nullptr, h, 16, cudaMemcpyHostToDevice, s)); LAST("rt.memcpyAsync.null_dst");
  RT("rt.memcpyAsync.oob", cudaMemcpyAsync(d, h, 8192, cudaMemcpyHostToDevice, s));
  RT("rt.memcpyAsync.2^63", cudaMemcpyAsync(d, d, kHuge, cudaMemcpyDeviceToDevice, s));
  RT("rt.memcpyAsync.zero_bytes", cudaMemcpyAsync(d, h, 0, cudaMemcpyHostToDevice, s));
  RT("rt.memcpyAsync.per_thread", cudaMemcpyAsync(d, h, 16, cudaMemcpyHostToDevice, cudaStreamPerThread));
  RT("rt.memcpyAsync.legacy", cudaMemcpyAsync(d, h, 16, cudaMemcpyHostToDevice, cudaStreamLegacy));
  RT("rt.memsetAsync.null", cudaMemsetAsync(nullptr, 0, 16, s)); LAST("rt.memsetAsync.null");
  RT("rt.memsetAsync.oob", cudaMemsetAsync(d, 0, 8192, s));
  RT("rt.memsetAsync.2^63", cudaMemsetAsync(d, 0, kHuge, s));
  RT("rt.streamSynchronize.legacy", cudaStreamSynchronize(0));
  RT("rt.streamSynchronize.per_thread", cudaStreamSynchronize(cudaStreamPerThread));
  RT("rt.streamQuery.legacy", cudaStreamQuery(0));
  RT("rt.streamQuery.per_thread", cudaStreamQuery(cudaStreamPerThread));
  RT("rt.streamDestroy.legacy", cudaStreamDestroy(0)); LAST("rt.streamDestroy.legacy");
  RT("rt.streamDestroy.per_thread", cudaStreamDestroy(cudaStreamPerThread)); LAST("rt.streamDestroy.per_thread");
  cudaEvent_t e; cudaEventCreate(&e);
  RT("rt.streamWaitEvent.null_event", cudaStreamWaitEvent(s, nullptr, 0)); LAST("rt.streamWaitEvent.null_event");
  RT("rt.streamWaitEvent.bad_flags", cudaStreamWaitEvent(s, e, 0xff)); LAST("rt.streamWaitEvent.bad_flags");
  RT("rt.streamWaitEvent.unrecorded", cudaStreamWaitEvent(s, e, 0));
  RT("rt.streamWaitEvent.legacy_stream", cudaStreamWaitEvent(0, e, 0));
  RT("rt.eventCreateWithFlags.bad", cudaEventCreateWithFlags(&e, 0xff)); LAST("rt.eventCreateWithFlags.bad");
  cudaEvent_t ipc;
  RT("rt.eventCreateWithFlags.interprocess_timing", cudaEventCreateWithFlags(&ipc, cudaEventInterprocess));
  RT("rt.eventCreateWithFlags.blocking_sync", cudaEventCreateWithFlags(&ipc, cudaEventBlockingSync));
  RT("rt.eventRecord.null", cudaEventRecord(nullptr, 0)); LAST("rt.eventRecord.null");
  RT("rt.eventQuery.null", cudaEventQuery(nullptr)); LAST("rt.eventQuery.null");
  RT("rt.eventSynchronize.null", cudaEventSynchronize(nullptr)); LAST("rt.eventSynchronize.null");
  RT("rt.eventSynchronize.unrecorded", cudaEventSynchronize(e));
  RT("rt.eventDestroy.null", cudaEventDestroy(nullptr)); LAST("rt.eventDestroy.null");
  float ms = -1;
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a, s); fill<<<4, 256, 0, s>>>(d, 1, 1024); cudaEventRecord(b, s); cudaEventSynchronize(b);
  RT("rt.eventElapsedTime.null_start", cudaEventElapsedTime(&ms, nullptr, b)); LAST("rt.eventElapsedTime.null_start");
  RT("rt.eventElapsedTime.null_end", cudaEventElapsedTime(&ms, a, nullptr));
  RT("rt.eventElapsedTime.same", cudaEventElapsedTime(&ms, a, a)); printf("rt.eventElapsedTime.same.ms = %g\n", ms);
  RT("rt.eventElapsedTime.reversed", cudaEventElapsedTime(&ms, b, a)); printf("rt.eventElapsedTime.reversed.negative = %d\n", (int)(ms < 0));
  cudaEvent_t never; cudaEventCreate(&never);
  RT("rt.eventElapsedTime.start_unrecorded", cudaEventElapsedTime(&ms, never, b));
  RT("rt.launchHostFunc.legacy", cudaLaunchHostFunc(0, host_fn, nullptr));
  RT("rt.streamAddCallback.null_cb", cudaStreamAddCallback(s, nullptr, nullptr, 0)); LAST("rt.streamAddCallback.null_cb");
  RT("rt.deviceSynchronize", cudaDeviceSynchronize());
  RT("rt.streamDestroy.with_pending_work", (fill<<<4, 256, 0, s>>>(d, 2, 1024), cudaStreamDestroy(s)));
  RT("rt.deviceSynchronize.after_destroy", cudaDeviceSynchronize());
  int v = 0; cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost); printf("rt.streamDestroy.with_pending_work.ran = %d\n", v);
  cudaFree(d);
}

// Which successful calls leave the last-error slot alone, and the default dynamic shared limit.
static void last_error_rules() {
  int* d = nullptr;
  (void)cudaGetLastError();
  noop<<<1, 1, 49152>>>(); RT("rt.lastError.launch_shmem_49152", cudaGetLastError());
  noop<<<1, 1, 48128>>>(); RT("rt.lastError.launch_shmem_48128", cudaGetLastError());
  cudaMalloc(&d, (size_t)1 << 50);  // fails: out of memory, recorded
  noop<<<1, 1>>>();                 // succeeds
  RT("rt.lastError.after_error_then_good_launch", cudaGetLastError());
  cudaMalloc(&d, (size_t)1 << 50);
  RT("rt.lastError.good_funcSetAttribute", cudaFuncSetAttribute((const void*)noop, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
  RT("rt.lastError.after_error_then_good_funcSetAttribute", cudaGetLastError());
  cudaMalloc(&d, (size_t)1 << 50);
  cudaMalloc(&d, 16);
  RT("rt.lastError.after_error_then_good_malloc", cudaGetLastError());
  cudaMalloc(&d, (size_t)1 << 50);
  noop<<<1, 1>>>();
  RT("rt.lastError.after_error_then_good_launch_sync", cudaDeviceSynchronize());
  RT("rt.lastError.after_error_then_good_launch_sync.getlast", cudaGetLastError());
  cudaFree(d);
}

static void launches_and_functions() {
  int* d = nullptr; cudaMalloc(&d, 4096);
  void* args[] = {&d, &d, &d};
  RT("rt.launchKernel.null_func", cudaLaunchKernel((const void*)nullptr, dim3(1), dim3(1), args, 0, 0)); LAST("rt.launchKernel.null_func");
  RT("rt.launchKernel.host_function", cudaLaunchKernel((const void*)host_only_function, dim3(1), dim3(1), args, 0, 0));
  LAST("rt.launchKernel.host_function");
  RT("rt.launchKernel.gridX_2^31", cudaLaunchKernel((const void*)noop, dim3(2147483648u), dim3(1), args, 0, 0));
  LAST("rt.launchKernel.gridX_2^31");
  RT("rt.launchKernel.block_1025", cudaLaunchKernel((const void*)noop, dim3(1), dim3(1025), args, 0, 0));
  RT("rt.launchKernel.blockX_1024_y2", cudaLaunchKernel((const void*)noop, dim3(1), dim3(1024, 2), args, 0, 0));
  RT("rt.launchKernel.blockZ_64", cudaLaunchKernel((const void*)noop, dim3(1), dim3(1, 1, 64), args, 0, 0));
  noop<<<1, 1, 49152>>>(); RT("rt.launch.shmem_48K", cudaGetLastError());
  noop<<<1, 1, 49153>>>(); RT("rt.launch.shmem_48K_plus_1", cudaGetLastError());
  RT("rt.funcSetAttribute.maxDyn_neg", cudaFuncSetAttribute((const void*)noop, cudaFuncAttributeMaxDynamicSharedMemorySize, -1));
  LAST("rt.funcSetAttribute.maxDyn_neg");
  RT("rt.funcSetAttribute.maxDyn_optin_plus_1", cudaFuncSetAttribute((const void*)noop, cudaFuncAttributeMaxDynamicSharedMemorySize, 232449));
  LAST("rt.funcSetAttribute.maxDyn_optin_plus_1");
  RT("rt.funcSetAttribute.maxDyn_optin", cudaFuncSetAttribute((const void*)noop, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448));
  noop<<<1, 1, 232448>>>(); RT("rt.launch.shmem_optin_after_attribute", cudaGetLastError());
  RT("rt.funcSetAttribute.carveout_101", cudaFuncSetAttribute((const void*)noop, cudaFuncAttributePreferredSharedMemoryCarveout, 101));
  LAST("rt.funcSetAttribute.carveout_101");
  RT("rt.funcSetAttribute.carveout_neg2", cudaFuncSetAttribute((const void*)noop, cudaFuncAttributePreferredSharedMemoryCarveout, -2));
  RT("rt.funcSetAttribute.bad_attr", cudaFuncSetAttribute((const void*)noop, (cudaFuncAttribute)99, 0)); LAST("rt.funcSetAttribute.bad_attr");
  RT("rt.funcSetAttribute.null_func", cudaFuncSetAttribute((const void*)nullptr, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
  RT("rt.funcSetAttribute.host_function", cudaFuncSetAttribute((const void*)host_only_function, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
  cudaFuncAttributes fa; memset(&fa, 0, sizeof fa);
  RT("rt.funcGetAttributes.null_func", cudaFuncGetAttributes(&fa, (const void*)nullptr)); LAST("rt.funcGetAttributes.null_func");
  RT("rt.funcGetAttributes.host_function", cudaFuncGetAttributes(&fa, (const void*)host_only_function));
  RT("rt.funcGetAttributes.noop", cudaFuncGetAttributes(&fa, (const void*)noop));
  printf("rt.funcGetAttributes.noop.maxThreadsPerBlock = %d\n", fa.maxThreadsPerBlock);
  printf("rt.funcGetAttributes.noop.maxDynamicSharedSizeBytes = %d\n", fa.maxDynamicSharedSizeBytes);
  int n = -7;
  RT("rt.occupancy.block0", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void*)noop, 0, 0)); printf("rt.occupancy.block0.n = %d\n", n);
  n = -7;
  RT("rt.occupancy.block2048", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void*)noop, 2048, 0)); printf("rt.occupancy.block2048.n = %d\n", n);
  n = -7;
  RT("rt.occupancy.shmem_1M", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void*)noop, 256, 1 << 20)); printf("rt.occupancy.shmem_1M.n = %d\n", n);
  n = -7;
  RT("rt.occupancy.null_func", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void*)nullptr, 256, 0));
  RT("rt.occupancy.host_function", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void*)host_only_function, 256, 0));
  RT("rt.deviceSynchronize.after_launch_errors", cudaDeviceSynchronize());
  RT("rt.getLastError.end", cudaGetLastError());
  cudaFree(d);
}

static void driver_calls() {
  CUdeviceptr d = 0, p = 0;
  cuMemAlloc_v2(&d, 4096);
  static int h[1024];
  DRV("drv.memAlloc.2^63", cuMemAlloc_v2(&p, kHuge));
  void* hp = nullptr;
  DRV("drv.memAllocHost.2^63", cuMemAllocHost_v2(&hp, kHuge));
  DRV("drv.memHostAlloc.bad_flags", cuMemHostAlloc(&hp, 16, 0xff));
  DRV("drv.memcpyHtoD.zero_dst", cuMemcpyHtoD_v2(0, h, 16));
  DRV("drv.memcpyHtoD.2^63", cuMemcpyHtoD_v2(d, h, kHuge));
  DRV("drv.memcpyHtoD.zero_bytes", cuMemcpyHtoD_v2(d, h, 0));
  DRV("drv.memcpyDtoD.2^63", cuMemcpyDtoD_v2(d, d, kHuge));
  DRV("drv.memcpyDtoD.host_src", cuMemcpyDtoD_v2(d, (CUdeviceptr)h, 16));
  DRV("drv.memcpyDtoH.host_src", cuMemcpyDtoH_v2(h, (CUdeviceptr)(h + 512), 16));
  DRV("drv.memcpy.unified_2^63", cuMemcpy(d, d, kHuge));
  DRV("drv.memsetD16.odd_address", cuMemsetD16_v2(d + 1, 0, 1));
  DRV("drv.memsetD32.address_mod2", cuMemsetD32_v2(d + 2, 0, 1));
  DRV("drv.memsetD32.address_mod4", cuMemsetD32_v2(d + 4, 0, 1));
  DRV("drv.memsetD32.zero_count", cuMemsetD32_v2(d, 0, 0));
  DRV("drv.memsetD8.2^63", cuMemsetD8_v2(d, 0, kHuge));
  DRV("drv.memsetD8.zero_ptr", cuMemsetD8_v2(0, 0, 1));
  DRV("drv.memsetD8Async.oob", cuMemsetD8Async(d, 0, 8192, nullptr));
  DRV("drv.memcpyHtoDAsync.oob", cuMemcpyHtoDAsync_v2(d, h, 8192, nullptr));
  CUstream s = nullptr;
  DRV("drv.streamCreate.bad_flags", cuStreamCreate(&s, 0xff));
  DRV("drv.streamCreateWithPriority.bad_flags", cuStreamCreateWithPriority(&s, 0xff, 0));
  DRV("drv.streamSynchronize.legacy", cuStreamSynchronize(nullptr));
  DRV("drv.streamSynchronize.CU_STREAM_LEGACY", cuStreamSynchronize(CU_STREAM_LEGACY));
  DRV("drv.streamSynchronize.CU_STREAM_PER_THREAD", cuStreamSynchronize(CU_STREAM_PER_THREAD));
  DRV("drv.streamQuery.legacy", cuStreamQuery(nullptr));
  unsigned flags = 7;
  DRV("drv.streamGetFlags.null_out", cuStreamGetFlags(nullptr, nullptr));
  DRV("drv.streamGetFlags.legacy", cuStreamGetFlags(nullptr, &flags)); printf("drv.streamGetFlags.legacy.value = %u\n", flags);
  CUevent e = nullptr;
  DRV("drv.eventCreate.bad_flags", cuEventCreate(&e, 0xff));
  DRV("drv.eventCreate.ok", cuEventCreate(&e, 0));
  DRV("drv.eventRecord.null", cuEventRecord(nullptr, nullptr));
  DRV("drv.eventQuery.null", cuEventQuery(nullptr));
  DRV("drv.eventQuery.unrecorded", cuEventQuery(e));
  DRV("drv.eventSynchronize.null", cuEventSynchronize(nullptr));
  DRV("drv.eventDestroy.null", cuEventDestroy_v2(nullptr));
  float ms = -1;
  DRV("drv.eventElapsedTime.unrecorded", cuEventElapsedTime_v2(&ms, e, e));
  DRV("drv.streamWaitEvent.null_event", cuStreamWaitEvent(nullptr, nullptr, 0));
  DRV("drv.streamWaitEvent.bad_flags", cuStreamWaitEvent(nullptr, e, 0xff));
  DRV("drv.launchHostFunc.null_fn", cuLaunchHostFunc(nullptr, nullptr, nullptr));
  DRV("drv.streamAddCallback.bad_flags", cuStreamAddCallback(nullptr, [](CUstream, CUresult, void*) {}, nullptr, 1));
  int v = -7;
  DRV("drv.funcGetAttribute.null_out", cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, nullptr));
  DRV("drv.occupancy.null_func", cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, nullptr, 256, 0));
  DRV("drv.pointerGetAttribute.null_data", cuPointerGetAttribute(nullptr, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
  DRV("drv.pointerGetAttribute.bad_attr", cuPointerGetAttribute(&v, (CUpointer_attribute)999, d));
  CUcontext c = nullptr;
  DRV("drv.ctxCreate.null_out", cuCtxCreate_v4(nullptr, nullptr, 0, 0));
  DRV("drv.ctxCreate.dev_7", cuCtxCreate_v4(&c, nullptr, 0, 7));
  DRV("drv.ctxSynchronize", cuCtxSynchronize());
  int least = 7, greatest = 7;
  DRV("drv.ctxGetStreamPriorityRange.null_both", cuCtxGetStreamPriorityRange(nullptr, nullptr));
  DRV("drv.ctxGetStreamPriorityRange", cuCtxGetStreamPriorityRange(&least, &greatest));
  printf("drv.ctxGetStreamPriorityRange.values = %d %d\n", least, greatest);
  CUlibrary lib = nullptr;
  DRV("drv.libraryLoadData.null_out", cuLibraryLoadData(nullptr, h, nullptr, nullptr, 0, nullptr, nullptr, 0));
  DRV("drv.libraryLoadData.garbage_image", cuLibraryLoadData(&lib, h, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel k = nullptr;
  DRV("drv.libraryGetKernel.garbage_image", cuLibraryGetKernel(&k, lib, "noop"));
  DRV("drv.libraryUnload.garbage_image", cuLibraryUnload(lib));
  static unsigned char sevens[4096];
  memset(sevens, 7, sizeof sevens);
  DRV("drv.libraryLoadData.sevens_image", cuLibraryLoadData(&lib, sevens, nullptr, nullptr, 0, nullptr, nullptr, 0));
  DRV("drv.libraryGetKernel.sevens_image", cuLibraryGetKernel(&k, lib, "noop"));
  DRV("drv.libraryUnload.null", cuLibraryUnload(nullptr));
  DRV("drv.libraryGetKernel.null_lib", cuLibraryGetKernel(nullptr, nullptr, "noop"));
  DRV("drv.memFree.after", cuMemFree_v2(d));
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "iso") == 0) return iso_child(argv[2]);
  RT("rt.init", cudaFree(0));
  sizes_and_pointers();
  async_calls();
  last_error_rules();
  launches_and_functions();
  driver_calls();
  RT("rt.deviceSynchronize.end", cudaDeviceSynchronize());
  fflush(stdout);
  run_isolated(argv[0]);
  return 0;
}
