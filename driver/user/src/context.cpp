// Contexts: the primary context of each device, and which context each host thread uses.
//
// A primary context is created the first time it is retained. Creating it is where a process
// first meets the GPU's memory system (measured order, chain_full.txt):
//   open("/dev/nvidia-uvm") twice; UVM_INITIALIZE on the first, UVM_MM_INITIALIZE on the second
//   UVM_PAGEABLE_MEM_ACCESS; UVM_REGISTER_GPU
//   RM_ALLOC FERMI_VASPACE_A: the GPU virtual address space (its range is the UVA window)
//   UVM_REGISTER_GPU_VASPACE
// and then the memory pool is ready (empty: the first cuMemAlloc grows it). Channels, the
// doorbell and the engines' objects come with the execution engine (a later stage). Last comes
// the context's own memory: NV01_MEMORY_LOCAL_USER objects mapped at the bottom of the VA space,
// below the pool's range (context_memory.h).
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "array.h"
#include "libcuda.h"
#include "prebuilt.h"
#include "channel.h"
#include "context_memory.h"
#include "class/clc86f.h"
#include "class/clc8b5.h"
#include "memcheck.h"
#include "mempool.h"
#include "pool.h"
#include "vmm.h"

namespace minicuda::libcuda {

namespace {

thread_local CUcontext t_current = nullptr;       // the top of the thread's context stack
thread_local std::vector<CUcontext> t_below;       // the rest of it (cuCtxPushCurrent)

CUresult build(CUctx_st& ctx) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  trace::note(trace::Layer::Libcuda, "primary context: open UVM, make the GPU VA space, start the memory pool, map the context's own memory");
  ctx.uvm_fd = kernel::sys_open("/dev/nvidia-uvm", kernel::kORdWr | kernel::kOCloexec);
  ctx.uvm_mm_fd = kernel::sys_open("/dev/nvidia-uvm", kernel::kORdWr | kernel::kOCloexec);
  if (ctx.uvm_fd < 0 || ctx.uvm_mm_fd < 0) return CUDA_ERROR_NOT_INITIALIZED;

  UVM_INITIALIZE_PARAMS init{};
  if (uvm_call(ctx.uvm_fd, UVM_INITIALIZE, &init) != NV_OK) return CUDA_ERROR_UNKNOWN;
  UVM_MM_INITIALIZE_PARAMS mm{};
  mm.uvmFd = ctx.uvm_fd;
  if (uvm_call(ctx.uvm_mm_fd, UVM_MM_INITIALIZE, &mm) != NV_OK) return CUDA_ERROR_UNKNOWN;
  UVM_PAGEABLE_MEM_ACCESS_PARAMS pageable{};
  if (uvm_call(ctx.uvm_fd, UVM_PAGEABLE_MEM_ACCESS, &pageable) != NV_OK) return CUDA_ERROR_UNKNOWN;
  UVM_REGISTER_GPU_PARAMS gpu{};
  std::memcpy(gpu.gpu_uuid.uuid, dev.uuid.bytes, 16);
  gpu.rmCtrlFd = d.ctl_fd;
  gpu.hClient = d.hClient;
  if (NV_STATUS s = uvm_call(ctx.uvm_fd, UVM_REGISTER_GPU, &gpu); s != NV_OK) return to_cu_result(s);

  NV_VASPACE_ALLOCATION_PARAMETERS va{};
  va.index = NV_VASPACE_ALLOCATION_INDEX_GPU_NEW;
  va.flags = NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING;
  ctx.hVaSpace = next_handle();
  if (NV_STATUS s = rm_alloc(d.hClient, dev.hDevice, &ctx.hVaSpace, FERMI_VASPACE_A, &va, sizeof va); s != NV_OK) {
    return to_cu_result(s);
  }
  ctx.va_base = va.vaBase;
  ctx.va_size = va.vaSize;
  UVM_REGISTER_GPU_VASPACE_PARAMS reg{};
  std::memcpy(reg.gpuUuid.uuid, dev.uuid.bytes, 16);
  reg.rmCtrlFd = d.ctl_fd;
  reg.hClient = d.hClient;
  reg.hVaSpace = ctx.hVaSpace;
  if (NV_STATUS s = uvm_call(ctx.uvm_fd, UVM_REGISTER_GPU_VASPACE, &reg); s != NV_OK) return to_cu_result(s);
  // The pool hands out the VA above the context's own memory (context_memory.h), mapped last.
  const PoolLayout layout = d.memcheck ? PoolLayout::Memcheck : PoolLayout::Packed;
  uint64_t pool_base = 0, pool_size = 0;
  pool_va_range(ctx, layout, &pool_base, &pool_size);
  ctx.pool = new Pool(ctx, layout, pool_base, pool_size);

  // Work submission: the doorbell page, then the channel (docs/design/execution.md).
  NV_HOPPER_USERMODE_A_PARAMS usermode{};
  usermode.bBar1Mapping = NV_TRUE;
  ctx.hUsermode = next_handle();
  if (NV_STATUS s = rm_alloc(d.hClient, dev.hSubdevice, &ctx.hUsermode, HOPPER_USERMODE_A, &usermode, sizeof usermode);
      s != NV_OK) {
    return to_cu_result(s);
  }
  ctx.doorbell = static_cast<volatile uint32_t*>(map_usermode(dev.hSubdevice, ctx.hUsermode));
  if (ctx.doorbell == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  ctx.channel = new Channel;
  if (CUresult r = ctx.channel->create(ctx, ctx.doorbell); r != CUDA_SUCCESS) return r;
  // Bind the engines' classes to their subchannels once: compute on 1, copy on 4.
  ctx.channel->method(NV_SUBCHANNEL_COMPUTE, NVC56F_SET_OBJECT, {HOPPER_COMPUTE_A});
  ctx.channel->method(NV_SUBCHANNEL_COPY, NVC56F_SET_OBJECT, {HOPPER_DMA_COPY_A});
  if (CUresult r = ctx.channel->wait(ctx.channel->submit()); r != CUDA_SUCCESS) return r;
  // The pinned buffer pageable copies are staged through, made now so that copies make no
  // system call (the measured libcuda, too, sets up everything at context creation).
  if (CUresult r = pin_host_memory(ctx, kStagingBytes, &ctx.staging, &ctx.staging_alloc); r != CUDA_SUCCESS) return r;
  // Last, as the H200's libcuda maps its largest buffer last (context_memory.h).
  if (CUresult r = map_context_memory(ctx, layout); r != CUDA_SUCCESS) return r;
  ctx.sticky = CUDA_SUCCESS;  // a reset context starts clean
  ctx.active = true;
  static uint64_t builds = 0;
  ctx.epoch = ++builds;
  globals_context_built(ctx.epoch);
  return CUDA_SUCCESS;
}

// Gives every resource of the context back: allocations, pinned memory, VA space, UVM fds.
void teardown(CUctx_st& ctx) {
  Driver& d = driver();
  globals_context_torn_down(ctx.epoch);
  const DeviceInfo& dev = *device_info(ctx.device);
  // Peer access ends with the context, both ways (peer.cpp).
  ctx.peers.clear();
  for (CUcontext other : d.primary) other->peers.erase(&ctx);
  for (CUcontext other : d.created) other->peers.erase(&ctx);
  stop_host_functions(ctx);
  free_streams_and_events(ctx);
  destroy_stream_channels(ctx);
  if (ctx.channel) {
    ctx.channel->destroy(ctx);
    delete ctx.channel;
    ctx.channel = nullptr;
  }
  prebuilt::context_torn_down(ctx);  // the channels are idle: the GPU reads none of it any more
  ctx.event_semaphores.release_all(ctx);
  if (ctx.staging) unpin_host_memory(ctx, ctx.staging, ctx.staging_alloc);
  ctx.staging = nullptr;
  if (ctx.doorbell) kernel::sys_munmap(const_cast<uint32_t*>(ctx.doorbell), NVC361_NV_USERMODE__SIZE);
  ctx.doorbell = nullptr;
  if (ctx.hUsermode) rm_free(d.hClient, dev.hSubdevice, ctx.hUsermode);
  ctx.hUsermode = 0;
  // Memcheck mode: what the program never freed is reported now (cudaDeviceReset), as leaks.
  if (ctx.pool && ctx.pool->layout() == PoolLayout::Memcheck) memcheck::on_teardown(ctx);
  destroy_texture_objects(ctx);
  destroy_arrays(ctx);
  vmm_context_torn_down(ctx);  // cuMemMap's mappings and reservations live in the VA space (vmm.h)
  if (ctx.pool) ctx.pool->release_all();
  delete ctx.pool;
  ctx.pool = nullptr;
  unmap_context_memory(ctx);
  for (auto& [addr, host] : ctx.host_allocs) {
    if (host.registered) {  // the program's own pages: unpinned and unmapped from the GPU, kept
      uvm_free_range(ctx.uvm_fd, host.pages);
      rm_free(d.hClient, dev.hDevice, host.hMemory);
      continue;
    }
    uvm_free_range(ctx.uvm_fd, addr);
    rm_free(d.hClient, dev.hDevice, host.hMemory);
    kernel::sys_munmap(reinterpret_cast<void*>(addr), host.size);
  }
  ctx.host_allocs.clear();
  // A fresh context has the default limits and cache preference again.
  ctx.limits = CUctx_st::kDefaultLimits;
  ctx.cache_config = CU_FUNC_CACHE_PREFER_NONE;
  if (ctx.hVaSpace) rm_free(d.hClient, dev.hDevice, ctx.hVaSpace);
  ctx.hVaSpace = 0;
  if (ctx.uvm_mm_fd >= 0) kernel::sys_close(ctx.uvm_mm_fd);
  if (ctx.uvm_fd >= 0) kernel::sys_close(ctx.uvm_fd);
  ctx.uvm_fd = ctx.uvm_mm_fd = -1;
  ctx.active = false;
}

}  // namespace

CUcontext current_context() { return t_current; }

bool valid_context(CUcontext ctx) {
  for (CUcontext c : driver().primary) {
    if (c == ctx) return true;
  }
  return ctx != nullptr && driver().created.count(ctx) != 0;
}

CUresult require_context(CUcontext* ctx) {
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return r;
  if (in_host_function()) return CUDA_ERROR_NOT_PERMITTED;  // and the driver lock may be held by a waiter
  CUcontext c = t_current;
  if (c == nullptr || !valid_context(c) || !c->active) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult s = sticky_error(*c); s != CUDA_SUCCESS) return s;
  *ctx = c;
  return CUDA_SUCCESS;
}

namespace {
// The fault report (stderr), once per fault: what RM recorded - kernel, block, thread, address -
// and the context's allocation nearest to the address. A failed device assert prints CUDA's own
// message instead, as the real runtime does. In memcheck mode a kernel's MMU fault is reported
// as compute-sanitizer reports an invalid access (memcheck::report_access_error).
void report_fault(CUctx_st& ctx, const Channel& faulted) {
  const NvMinicudaFaultRecord* record = faulted.fault_record();
  if (record == nullptr) return;
  if (ctx.pool != nullptr && ctx.pool->layout() == PoolLayout::Memcheck && memcheck::report_access_error(ctx, *record))
    return;
  std::string what(record->what, strnlen(record->what, sizeof record->what));
  if (record->smException == NV_SM_EXCEPTION_ASSERT) {
    std::fprintf(stderr, "%s\n", what.c_str());
    return;
  }
  std::string nearest;
  uint64_t start = 0, size = 0;
  bool address_fault = record->xid == ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT;
  constexpr uint64_t kNear = 64ull << 20;  // farther than this, no allocation is "near"
  if (address_fault && ctx.pool != nullptr && ctx.pool->nearest(record->address, &start, &size) &&
      record->address + kNear >= start && record->address < start + size + kNear) {
    uint64_t a = record->address;
    std::string where = a < start          ? fmt::format("{} bytes before it", start - a)
                        : a < start + size ? fmt::format("{} bytes into it", a - start)
                                           : fmt::format("{} bytes past its end", a - (start + size));
    nearest = fmt::format("; nearest allocation: {:#x} ({} bytes), the address is {}", start, size, where);
  } else if (address_fault) {
    nearest = "; no allocation of this context within 64 MiB of it";
  }
  std::fprintf(stderr, "minicuda: %s: %s%s\n", result_name(ctx.sticky).c_str(), what.c_str(), nearest.c_str());
}
}  // namespace

CUresult sticky_error(CUctx_st& ctx) {
  if (Channel* faulted = ctx.sticky == CUDA_SUCCESS ? faulted_channel(ctx) : nullptr) {
    ctx.sticky = faulted->fault_result();
    report_fault(ctx, *faulted);
    const NvMinicudaFaultRecord* record = faulted->fault_record();
    trace::note(trace::Layer::Libcuda,
                "context: the GPU stopped its channel (error notifier: Xid {}, {}): every call on this context "
                "returns {} until the primary context is reset",
                record->xid, std::string(record->what, strnlen(record->what, sizeof record->what)),
                result_name(ctx.sticky));
  }
  return ctx.sticky;
}

CUcontext primary_context(CUdevice dev) { return driver().primary.at(static_cast<size_t>(dev)); }

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *pctx = the device's primary context, creating its resources if it has none, and
// counts one more user. The context is not made current. NULL pctx: CUDA_ERROR_INVALID_VALUE;
// bad device: CUDA_ERROR_INVALID_DEVICE; before cuInit: CUDA_ERROR_NOT_INITIALIZED; creation
// failures as the kernel reports them (CUDA_ERROR_OUT_OF_MEMORY, ...).
CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDevicePrimaryCtxRetain(pctx={}, dev={})", static_cast<void*>(pctx), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pctx == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (!device_info(dev)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  CUcontext ctx = primary_context(dev);
  if (!ctx->active) {
    if (CUresult r = build(*ctx); r != CUDA_SUCCESS) {
      teardown(*ctx);
      return done(scope, r);
    }
  }
  ++ctx->retain_count;
  *pctx = ctx;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pctx={}", static_cast<void*>(ctx));
  return CUDA_SUCCESS;
}

// Contract: one user fewer; the last release destroys the context's resources.
// Not retained: CUDA_ERROR_INVALID_CONTEXT; bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDevicePrimaryCtxRelease_v2(dev={})", dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (!device_info(dev)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  CUcontext ctx = primary_context(dev);
  if (ctx->retain_count == 0) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  if (--ctx->retain_count == 0 && ctx->active) teardown(*ctx);
  return done(scope, CUDA_SUCCESS);
}

// Contract: destroys every resource of the primary context now (allocations, pinned memory, the
// VA space); the next retain or use creates it again. Bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDevicePrimaryCtxReset_v2(dev={})", dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (!device_info(dev)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  CUcontext ctx = primary_context(dev);
  if (ctx->active) teardown(*ctx);
  ctx->retain_count = 0;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *flags = the context flags, *active = 1 if the primary context has resources.
// NULL pointers: CUDA_ERROR_INVALID_VALUE; bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDevicePrimaryCtxGetState(dev={})", dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (!device_info(dev)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (flags == nullptr || active == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUcontext ctx = primary_context(dev);
  *flags = ctx->flags;
  *active = ctx->active ? 1 : 0;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pctx = the calling thread's current context, NULL if none (still CUDA_SUCCESS).
// NULL pctx: CUDA_ERROR_INVALID_VALUE; before cuInit: CUDA_ERROR_NOT_INITIALIZED.
CUresult cuCtxGetCurrent(CUcontext* pctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetCurrent(pctx={})", static_cast<void*>(pctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pctx == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pctx = valid_context(t_current) ? t_current : nullptr;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pctx={}", static_cast<void*>(*pctx));
  return CUDA_SUCCESS;
}

// Contract: makes ctx the calling thread's current context (NULL: none). A handle this driver
// did not make: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxSetCurrent(CUcontext ctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxSetCurrent(ctx={})", static_cast<void*>(ctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (ctx != nullptr && !valid_context(ctx)) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  t_current = ctx;
  return done(scope, CUDA_SUCCESS);
}

// Contract: see cuda.h. NULL pctx: CUDA_ERROR_INVALID_VALUE; bad device:
// CUDA_ERROR_INVALID_DEVICE; creation failures as the kernel reports them.
CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxCreate_v4(pctx={}, flags={}, dev={})", static_cast<void*>(pctx),
                     flags, dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (pctx == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (!device_info(dev)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (params != nullptr && (params->numExecAffinityParams != 0 || params->cigParams != nullptr))
    return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  auto ctx = std::make_unique<CUctx_st>();
  ctx->device = dev;
  ctx->flags = flags;
  if (CUresult r = build(*ctx); r != CUDA_SUCCESS) {
    teardown(*ctx);
    return done(scope, r);
  }
  if (t_current != nullptr) t_below.push_back(t_current);
  t_current = ctx.get();
  *pctx = ctx.get();
  driver().created.insert(ctx.release());
  return done(scope, CUDA_SUCCESS);
}

// Contract: waits for the context's work, frees everything it owns and forgets it; if it is
// this thread's current context it is popped. The primary context or an unknown handle:
// CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxDestroy_v2(CUcontext ctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxDestroy_v2(ctx={})", static_cast<void*>(ctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (ctx == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);  // as the H200 answers
  if (driver().created.count(ctx) == 0) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  teardown(*ctx);
  driver().created.erase(ctx);
  std::erase(t_below, ctx);
  if (t_current == ctx) {
    t_current = t_below.empty() ? nullptr : t_below.back();
    if (!t_below.empty()) t_below.pop_back();
  }
  delete ctx;
  return done(scope, CUDA_SUCCESS);
}

// Contract: makes ctx current, keeping the previous one below it. Unknown ctx:
// CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxPushCurrent_v2(ctx={})", static_cast<void*>(ctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (ctx == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);  // as the H200 answers
  if (!valid_context(ctx)) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  if (t_current != nullptr) t_below.push_back(t_current);
  t_current = ctx;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pctx (if not NULL) = the current context, which is removed; the one below becomes
// current. No current context: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxPopCurrent_v2(pctx={})", static_cast<void*>(pctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (t_current == nullptr) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  if (pctx != nullptr) *pctx = t_current;
  t_current = t_below.empty() ? nullptr : t_below.back();
  if (!t_below.empty()) t_below.pop_back();
  return done(scope, CUDA_SUCCESS);
}

namespace {
CUresult context_device(CUdevice* device, CUcontext ctx) {
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return r;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (ctx == nullptr) ctx = t_current;
  if (ctx == nullptr || !valid_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  *device = ctx->device;
  return CUDA_SUCCESS;
}
}  // namespace

// Contract: *device = the device of the current context. No current context:
// CUDA_ERROR_INVALID_CONTEXT; NULL device: CUDA_ERROR_INVALID_VALUE.
CUresult cuCtxGetDevice(CUdevice* device) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetDevice(device={})", static_cast<void*>(device));
  std::lock_guard lock(driver_mutex());
  return done(scope, context_device(device, nullptr));
}

// Contract: as cuCtxGetDevice, for ctx (NULL: the current context).
CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetDevice_v2(device={}, ctx={})", static_cast<void*>(device),
                     static_cast<void*>(ctx));
  std::lock_guard lock(driver_mutex());
  return done(scope, context_device(device, ctx));
}

// Contract: *version = the API version of ctx (NULL: current), 3020 for contexts of this
// driver. No context: CUDA_ERROR_INVALID_CONTEXT; NULL version: CUDA_ERROR_INVALID_VALUE.
CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetApiVersion(ctx={})", static_cast<void*>(ctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (version == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *version = 0;  // measured: written even when there is no context
  if (ctx == nullptr) ctx = t_current;
  if (ctx == nullptr || !valid_context(ctx)) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  *version = 3020;
  return done(scope, CUDA_SUCCESS);
}

// Contract: waits until the GPU has finished every piece of work submitted in the context (the
// channel's last fence; polling memory, no system call). CUDA_ERROR_ILLEGAL_ADDRESS if the channel
// faulted instead; no current context: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxSynchronize_v2(ctx={})", static_cast<void*>(ctx));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (ctx == nullptr) ctx = t_current;
  if (ctx == nullptr || !valid_context(ctx) || !ctx->active) return done(scope, CUDA_ERROR_INVALID_CONTEXT);
  if (CUresult s = sticky_error(*ctx); s != CUDA_SUCCESS) return done(scope, s);
  if (wait_all(*ctx) != CUDA_SUCCESS) return done(scope, sticky_error(*ctx));
  mempool_synchronized(*ctx);  // pools release above their threshold
  return done(scope, CUDA_SUCCESS);
}

// Contract: cuCtxSynchronize_v2 on the current context.
CUresult cuCtxSynchronize(void) { return cuCtxSynchronize_v2(nullptr); }

// --- the export table the runtime uses (cuda.h: CU_ETID_MinicudaRuntime) ----------------------

namespace {
CUresult primary_ctx_get_handle(CUcontext* pctx, CUdevice dev) {
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return r;
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!device_info(dev)) return CUDA_ERROR_INVALID_DEVICE;
  *pctx = primary_context(dev);
  return CUDA_SUCCESS;
}
const CUetblMinicudaRuntime kRuntimeTable = {sizeof(CUetblMinicudaRuntime), primary_ctx_get_handle};
}  // namespace

extern "C" const CUuuid CU_ETID_MinicudaRuntime = {{'m', 'i', 'n', 'i', 'c', 'u', 'd', 'a', '-', 'c', 'u', 'd', 'a', 'r', 't', 0}};
extern "C" const CUuuid CU_ETID_MinicudaPrebuilt = {{'m', 'i', 'n', 'i', 'c', 'u', 'd', 'a', '-', 'p', 'r', 'e', 'b', 'l', 't', 0}};

// Contract: *ppExportTable = the private table with this id (CU_ETID_MinicudaRuntime,
// CU_ETID_MinicudaPrebuilt). NULL arguments or an unknown id: CUDA_ERROR_INVALID_VALUE.
CUresult cuGetExportTable(const void** ppExportTable, const CUuuid* pExportTableId) {
  trace::Scope scope(trace::Layer::Libcuda, "cuGetExportTable(ppExportTable={}, pExportTableId={})",
                     static_cast<void*>(ppExportTable), static_cast<const void*>(pExportTableId));
  if (ppExportTable == nullptr || pExportTableId == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (std::memcmp(pExportTableId, &CU_ETID_MinicudaRuntime, sizeof(CUuuid)) == 0) {
    *ppExportTable = &kRuntimeTable;
  } else if (std::memcmp(pExportTableId, &CU_ETID_MinicudaPrebuilt, sizeof(CUuuid)) == 0) {
    *ppExportTable = &prebuilt::table();
  } else {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  return done(scope, CUDA_SUCCESS);
}
