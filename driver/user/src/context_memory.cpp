// The context's own device memory (see context_memory.h for what it is, how big, and where).
#include "context_memory.h"

namespace minicuda::libcuda {
namespace {

uint64_t reserve_bytes(const CUctx_st& ctx) { return context_reserve(*device_info(ctx.device)).bytes; }

}  // namespace

ContextReserve context_reserve(const DeviceInfo& dev) {
  return context_reserve(static_cast<uint64_t>(dev.max_warps_per_sm), static_cast<uint64_t>(dev.stack_scaling_sms));
}

uint64_t context_reserve_va(const CUctx_st& ctx, PoolLayout layout) {
  if (layout == PoolLayout::Memcheck) return ctx.va_base + ctx.va_size - reserve_bytes(ctx);
  return ctx.va_base;
}

void pool_va_range(const CUctx_st& ctx, PoolLayout layout, uint64_t* base, uint64_t* size) {
  const uint64_t reserve = reserve_bytes(ctx);
  *base = ctx.va_base + reserve;
  *size = ctx.va_size - (layout == PoolLayout::Memcheck ? 2 : 1) * reserve;
}

CUresult map_context_memory(CUctx_st& ctx, PoolLayout layout) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  const ContextReserve r = context_reserve(dev);
  const uint64_t va = context_reserve_va(ctx, layout);
  trace::note(trace::Layer::Libcuda,
              "context memory: local memory for {} warps ({} SMs x {}), {} bytes each: {} MiB of VRAM at {:#x}, "
              "below the pool{}",
              r.warps, dev.stack_scaling_sms, dev.max_warps_per_sm, r.per_warp, r.bytes >> 20, va,
              layout == PoolLayout::Memcheck ? " (memcheck: at the top)" : "");
  NV_MEMORY_ALLOCATION_PARAMS mem = vidmem_request(r.bytes, Pool::kChunkSize);
  NvHandle hMemory = next_handle();
  NV_STATUS s = rm_alloc(d.hClient, dev.hDevice, &hMemory, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem);
  if (s == NV_OK) {
    s = uvm_map_memory(ctx.uvm_fd, va, r.bytes, dev.uuid, hMemory);
    if (s != NV_OK) rm_free(d.hClient, dev.hDevice, hMemory);
  }
  if (s != NV_OK) return to_cu_result(s);
  ctx.own_memory.push_back(CUctx_st::OwnBuffer{va, r.bytes, hMemory});
  return CUDA_SUCCESS;
}

void unmap_context_memory(CUctx_st& ctx) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  for (const CUctx_st::OwnBuffer& buffer : ctx.own_memory) {
    uvm_free_range(ctx.uvm_fd, buffer.va);
    rm_free(d.hClient, dev.hDevice, buffer.hMemory);
  }
  ctx.own_memory.clear();
}

}  // namespace minicuda::libcuda
