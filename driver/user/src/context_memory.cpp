// The context's own device memory (see context_memory.h for what it is and where it sits).
#include "context_memory.h"

namespace minicuda::libcuda {

uint64_t context_reserve_va(const CUctx_st& ctx, PoolLayout layout) {
  if (layout == PoolLayout::Memcheck) return ctx.va_base + ctx.va_size - kContextReserveBytes;
  return ctx.va_base;
}

void pool_va_range(const CUctx_st& ctx, PoolLayout layout, uint64_t* base, uint64_t* size) {
  *base = ctx.va_base + kContextReserveBytes;
  *size = ctx.va_size - (layout == PoolLayout::Memcheck ? 2 : 1) * kContextReserveBytes;
}

CUresult map_context_memory(CUctx_st& ctx, PoolLayout layout) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  uint64_t va = context_reserve_va(ctx, layout);
  trace::note(trace::Layer::Libcuda, "context memory: {} MiB of VRAM of its own at {:#x}, below the pool{}",
              kContextReserveBytes >> 20, va, layout == PoolLayout::Memcheck ? " (memcheck: at the top)" : "");
  for (const ContextBuffer& buffer : kContextBuffers) {
    trace::note(trace::Layer::Libcuda, "context memory: {} MiB for {}", buffer.bytes >> 20, buffer.purpose);
    NV_MEMORY_ALLOCATION_PARAMS mem = vidmem_request(buffer.bytes, Pool::kChunkSize);
    NvHandle hMemory = next_handle();
    NV_STATUS s = rm_alloc(d.hClient, dev.hDevice, &hMemory, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem);
    if (s == NV_OK) {
      s = uvm_map_memory(ctx.uvm_fd, va, buffer.bytes, dev.uuid, hMemory);
      if (s != NV_OK) rm_free(d.hClient, dev.hDevice, hMemory);
    }
    if (s != NV_OK) {
      unmap_context_memory(ctx);
      return to_cu_result(s);
    }
    ctx.own_memory.push_back(CUctx_st::OwnBuffer{va, buffer.bytes, hMemory});
    va += buffer.bytes;
  }
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
