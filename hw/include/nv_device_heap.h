// nv_device_heap.h: the device malloc heap as libcuda lays it out in GPU memory and the SMs use
// it (device-side malloc/free, new/delete, and the device runtime's cudaMalloc/cudaFree).
//
// libcuda allocates one heap per context, cudaLimitMallocHeapSize bytes of device memory, writes
// this header at its start and hands its address to every launch in constant bank 4. The SMs do
// the rest: the allocator's state lives in the heap itself (header, then boundary-tagged blocks),
// so memory allocated by one kernel stays valid for the next. No real GPU has this layout (the
// real allocator is NVIDIA's and undocumented); the contract it keeps is CUDA's (docs/device-heap.md).
#pragma once

#include "nvtypes.h"

// Constant bank 4 of a launch: the context's device heap (its address and size). Not valid: the
// context has no heap, and device malloc returns NULL.
inline constexpr NvU32 NV_QMD_CBANK_HEAP = 4;

// The heap's header, at its first byte. Offsets are from the heap's start; 0 means none.
struct NvMinicudaDeviceHeap {
  NvU32 magic;        // NV_MINICUDA_DEVICE_HEAP_MAGIC
  NvU32 lock;         // the SMs' spin lock over everything below (0: free)
  NvU64 size;         // the heap's bytes, this header included
  NvU64 free_head;    // the first free block, in address order
  NvU64 used_bytes;   // bytes of blocks in use, their headers included
  NvU32 live_blocks;  // blocks in use
  NvU32 touched;      // set by the first malloc or free: the heap's size is now fixed
  NvU64 failed;       // mallocs that returned NULL
  NvU64 bad_frees;    // frees of a pointer that is not a block in use (ignored)
  NvU64 reserved;
};
static_assert(sizeof(NvMinicudaDeviceHeap) == 64);
inline constexpr NvU32 NV_MINICUDA_DEVICE_HEAP_MAGIC = 0x50414548u;  // "HEAP"

// A block: this 16-byte header, then its payload (what malloc returns: 16-byte aligned). Blocks
// tile the heap from offset 64 to its end. A free block's payload starts with the offsets of
// the next and previous free blocks (the free list, in address order).
struct NvMinicudaHeapBlock {
  NvU64 size_and_used;  // the block's bytes (a multiple of 16, header included) | 1 when in use
  NvU32 prev_size16;    // the previous block's bytes / 16 (0 for the first block)
  NvU32 check;          // NV_MINICUDA_DEVICE_HEAP_MAGIC ^ (offset / 16): a free() can tell a block
};
static_assert(sizeof(NvMinicudaHeapBlock) == 16);
inline constexpr NvU64 NV_MINICUDA_HEAP_FIRST_BLOCK = sizeof(NvMinicudaDeviceHeap);
inline constexpr NvU64 NV_MINICUDA_HEAP_ALIGN = 16;
inline constexpr NvU64 NV_MINICUDA_HEAP_MIN_BLOCK = 32;  // header + the two free-list offsets
inline constexpr NvU64 NV_MINICUDA_HEAP_GRANULE = 80;    // blocks are whole granules (the H200's spacing)

// What libcuda writes at the start of a fresh heap of `bytes` bytes (a multiple of 16, at least
// 128): the header and the first block's header, a free block spanning the rest, which is the
// whole free list. The rest of the heap needs no initialisation.
struct NvMinicudaHeapStart {
  NvMinicudaDeviceHeap header;
  NvMinicudaHeapBlock first;
  NvU64 next_free, prev_free;  // the first block's free-list links
};
static_assert(sizeof(NvMinicudaHeapStart) == 96);
inline NvMinicudaHeapStart nv_device_heap_start(NvU64 bytes) {
  NvMinicudaHeapStart s{};
  s.header.magic = NV_MINICUDA_DEVICE_HEAP_MAGIC;
  s.header.size = bytes;
  s.header.free_head = NV_MINICUDA_HEAP_FIRST_BLOCK;
  s.first.size_and_used = bytes - NV_MINICUDA_HEAP_FIRST_BLOCK;
  s.first.prev_size16 = 0;
  s.first.check = NV_MINICUDA_DEVICE_HEAP_MAGIC ^ static_cast<NvU32>(NV_MINICUDA_HEAP_FIRST_BLOCK / NV_MINICUDA_HEAP_ALIGN);
  return s;
}
