// simt_heap: the SIMT executor's HEAP instruction (nv_sass.h): the calls of malloc and free, and
// of the device runtime's cudaMalloc / cudaFree, that the JIT resolved to the driver's device
// heap. The lanes of the warp call the allocator of device_heap.h one after another, in
// ascending lane order, after the grid's heap turn (device_heap.h), so the addresses they get
// are the same at every host thread count.
#include <cstring>
#include <string>

#include "device_heap.h"
#include "simt_values.h"

namespace minicuda::gpu::simt {

namespace {

// The device runtime's error codes (cudaError_t; this layer does not include the runtime's headers).
constexpr uint64_t kCudaSuccess = 0;
constexpr uint64_t kCudaErrorInvalidValue = 1;
constexpr uint64_t kCudaErrorMemoryAllocation = 2;

// free(p) for the running lane; a double free or a pointer outside the heap stops the grid as
// on the H200 (device_heap.h heap_free_error).
void free_or_raise(BlockExec& b, uint8_t* heap, uint64_t p) {
  if (p == 0 || heap == nullptr) return;
  const HeapFree r = heap_free(heap, reinterpret_cast<void*>(p));
  KernelErrorKind kind;
  std::string message;
  if (heap_free_error(r, reinterpret_cast<void*>(p), &kind, &message)) b.raise(kind, std::move(message), p);
}

}  // namespace

bool execute_heap(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  if (in.opcode != NV_SASS_OP_HEAP) return false;
  uint64_t scratch[2][kLanes];
  const uint64_t* a = source(b, w, in.operand[1], mask, scratch[0]);
  const uint64_t* size = in.operand_count > 2 && in.operand[2].kind != NV_SASS_OPND_NONE
                             ? source(b, w, in.operand[2], mask, scratch[1])
                             : nullptr;
  uint64_t* d = in.operand[0].kind == NV_SASS_OPND_REG ? dest(w, in.operand[0]) : nullptr;
  uint8_t* heap = b.launch().heap;
  if (b.launch().heap_turn != nullptr) b.launch().heap_turn->wait(b.block_linear());
  for_lanes(mask, [&](unsigned l) {
    b.set_fault_lane(l);
    uint64_t result = 0;
    switch (in.mode) {
      case NV_SASS_HEAP_MALLOC:
        result = reinterpret_cast<uint64_t>(heap_malloc(heap, a[l]));
        break;
      case NV_SASS_HEAP_FREE:
        free_or_raise(b, heap, a[l]);
        break;
      case NV_SASS_HEAP_CDP_MALLOC: {  // cudaMalloc(void** a, size_t size): *a is set on success only
        if (a[l] == 0 || size == nullptr || size[l] == 0) {
          result = kCudaErrorInvalidValue;
          break;
        }
        if (a[l] % 8 != 0)
          b.raise(KernelErrorKind::MisalignedAddress,
                  "cudaMalloc in device code: the pointer's address is not 8-byte aligned", a[l], true);
        void* p = heap_malloc(heap, size[l]);
        if (p != nullptr) std::memcpy(reinterpret_cast<void*>(a[l]), &p, sizeof p);
        result = p != nullptr ? kCudaSuccess : kCudaErrorMemoryAllocation;
        break;
      }
      case NV_SASS_HEAP_CDP_FREE:  // cudaFree(void* a)
        free_or_raise(b, heap, a[l]);
        result = kCudaSuccess;
        break;
      default:
        b.raise(KernelErrorKind::IllegalInstruction, "a device heap call the executor does not know");
    }
    if (d != nullptr) d[l] = result;
  });
  return true;
}

}  // namespace minicuda::gpu::simt
