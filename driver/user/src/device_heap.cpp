// device_heap: the context's device malloc heap, as libcuda provides it to kernels (device-side
// malloc/free, new/delete, the device runtime's cudaMalloc/cudaFree; docs/device-heap.md).
//
// The heap is ordinary device memory from the context's pool, cudaLimitMallocHeapSize bytes
// (8 MiB by default), allocated at the first launch of a kernel whose module calls malloc or free
// (as the real driver allocates it when such a module is loaded) and formatted by a copy of its
// first 96 bytes (nv_device_heap.h). Every launch then names its header in constant bank 4; the SMs run
// the allocator in place (device_sim/src/device_heap.cpp), so what one kernel allocates stays
// valid for the next. Its size is fixed once a kernel has called malloc or free (the header's
// `touched`): cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE) then fails with CUDA_ERROR_INVALID_VALUE,
// even for the size it has (measured: tests/data/h200/device_heap/out/heap.txt late.*); before
// that it frees the heap and the next launch allocates one of the new size.
#include "libcuda.h"
#include "pool.h"

#include "nv_device_heap.h"

namespace minicuda::libcuda {

CUresult device_heap_for_launch(CUctx_st& ctx, const CUfunc_st& f, uint64_t* va, uint64_t* bytes) {
  CUctx_st::DeviceHeap& heap = ctx.device_heap;
  *va = *bytes = 0;
  if (heap.epoch != ctx.epoch || heap.va == 0) {
    const bool uses_heap = f.library != nullptr && f.library->module != nullptr &&
                           (f.library->module->flags & fatbin::kModuleUsesDeviceHeap) != 0;
    if (!uses_heap) return CUDA_SUCCESS;
    const uint64_t size = ctx.limits[CU_LIMIT_MALLOC_HEAP_SIZE] & ~uint64_t{NV_MINICUDA_HEAP_ALIGN - 1};
    CUdeviceptr p = 0;
    if (CUresult r = ctx.pool->alloc(size, &p); r != CUDA_SUCCESS) return r;
    const NvMinicudaHeapStart start = nv_device_heap_start(size);
    if (CUresult r = cuMemcpyHtoD_v2(p, &start, sizeof start); r != CUDA_SUCCESS) {
      (void)ctx.pool->free(p);
      return r;
    }
    heap = CUctx_st::DeviceHeap{ctx.epoch, p, size};
    trace::note(trace::Layer::Libcuda, "device heap: {} B at {:#x} (cudaLimitMallocHeapSize), formatted", size, p);
  }
  *va = heap.va;
  *bytes = heap.bytes;
  return CUDA_SUCCESS;
}

CUresult device_heap_resize(CUctx_st& ctx, uint64_t bytes) {
  CUctx_st::DeviceHeap& heap = ctx.device_heap;
  if (heap.epoch != ctx.epoch || heap.va == 0) return CUDA_SUCCESS;
  NvMinicudaDeviceHeap header{};
  if (CUresult r = cuMemcpyDtoH_v2(&header, heap.va, sizeof header); r != CUDA_SUCCESS) return r;
  if (header.touched != 0) {
    trace::note(trace::Layer::Libcuda,
                "device heap: a kernel has used the {} B heap: its size can no longer change", heap.bytes);
    return CUDA_ERROR_INVALID_VALUE;
  }
  (void)ctx.pool->free(heap.va);
  heap = CUctx_st::DeviceHeap{};
  trace::note(trace::Layer::Libcuda, "device heap: unused, freed; the next launch allocates {} B", bytes);
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda
