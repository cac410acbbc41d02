// fatbinary.h: the module image format - what the compiler side emits for a translation unit and
// libcuda loads. On the real stack the toolkit's fatbinary.h / fatbinary_section.h describe the
// container nvcc embeds (a wrapper, a header, entries holding SASS or PTX), and libcuda parses it
// in cuLibraryLoadData. minicuda keeps that container, with one entry of its own kind holding a
// ModuleImage: the host code of the translation unit's kernels.
//
// A boundary header, between the toolkit (crt/host_runtime.h, which builds it, and
// crt/kernel_image.h) and the driver (driver/user/src/module.cpp, which parses it). The GPU never
// sees it: libcuda copies each kernel's entries into a code record (nv_kernel_code.h).
#pragma once

#include <cstdint>

#include "minicuda/kernel_entry.h"

namespace minicuda::fatbin {

using gpu::KernelBlockEntry;
using gpu::KernelEntry;
using gpu::KernelRegionEntry;

// One __global__ function as the compiler emits it.
struct KernelImage {
  const char* name;                // as written in the source, e.g. "vector_add", "scale<float>"
  KernelEntry entry;               // the code: one thread
  KernelBlockEntry block_entry;    // the code: a block's threads in a loop (may be null)
  uint32_t param_count;
  uint32_t param_bytes;            // size of the parameter buffer (<= kMaxParamBytes)
  const uint32_t* param_offsets;   // param_count offsets into the buffer
  const uint32_t* param_sizes;     // param_count sizes
  uint32_t num_regs;               // registers per thread (occupancy); kDefaultRegisters
  KernelRegionEntry region_entry;  // the code: a block as regions, without fibers (may be null)
  // __cluster_dims__(x, y, z): the blocks per cluster it was compiled for; all 0: none (the launch
  // chooses, or has no cluster).
  uint32_t cluster_dims[3];
};

inline constexpr uint32_t kMaxParamBytes = 32764;  // CUDA 12.1+ limit on kernel parameters
inline constexpr uint32_t kDefaultRegisters = 32;  // what the SM model charges per thread

// One __device__ or __constant__ variable as the compiler emits it. Its storage is the module's
// global segment in device memory, which libcuda allocates when the module's globals first load in
// a context (module_globals.cpp); kernel code reaches it through `slot`, a host word the loader sets
// to the variable's device address, as a dynamic loader fills a global offset table entry.
struct VariableImage {
  const char* name;          // as declared, e.g. "g_dev"
  uint64_t size;             // sizeof the variable
  uint32_t constant;         // 1: __constant__ (the constant bank, read-only to kernels)
  const void* initializer;   // size bytes: the static initializer's image
  void** slot;               // set by the loader to the device address
};
inline constexpr uint64_t kConstantBankBytes = 64 << 10;  // a module's __constant__ total

// The payload of minicuda's fatbinary entry: the kernels and variables of one translation unit.
struct ModuleImage {
  uint32_t magic;        // kModuleMagic
  uint32_t version;      // 1
  const char* source;    // the .cu file it came from
  uint32_t kernel_count;
  const KernelImage* kernels;
  uint32_t variable_count;
  const VariableImage* variables;
  uint32_t flags;        // kModule* bits
};
inline constexpr uint32_t kModuleMagic = 0x4E42434D;  // "MCBN"
// The module's device code calls malloc/free (or the device runtime's cudaMalloc/cudaFree): loading
// it gives the context its device malloc heap, as a real module that references malloc does.
inline constexpr uint32_t kModuleUsesDeviceHeap = 1u << 0;

// --- the fatbinary container (real-stack.md §2.9) --------------------------------------------
// What __cudaRegisterFatBinary receives (__fatBinC_Wrapper_t) and what cuLibraryLoadData reads:
// a fatbinary header, then entries. nvcc's entries hold SASS (ELF) or PTX; minicuda's one entry
// holds a ModuleImage, the host code of the translation unit's kernels.
struct FatbinWrapper {
  int magic;                  // kFatbinWrapperMagic
  int version;                // 1
  const void* data;           // the FatbinHeader
  void* filename_or_fatbins;  // null
};
inline constexpr int kFatbinWrapperMagic = 0x466243B1;
struct FatbinHeader {
  uint32_t magic;  // kFatbinMagic
  uint16_t version;
  uint16_t header_size;  // 16
  uint64_t fat_size;     // bytes of entries after the header
};
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
// One entry: its header, then its payload. The fields as nvcc 13 writes them were read off the
// H200 recordings (tests/data/h200/module/img/fatbin_hexdump.txt); minicuda's own entry fills
// only kind, header_size, payload_size, sm_version and bit_width.
struct FatbinEntry {
  uint16_t kind;  // kFatbinKindPtx, kFatbinKindElf, or minicuda's kFatbinKindHostCode
  uint16_t version;      // 0x0101 in nvcc's entries
  uint32_t header_size;  // 64 (ELF, minicuda's) or 80 (PTX: 16 bytes of options follow): the payload follows
  uint32_t padded_payload_size;       // the payload's bytes in the container (low half of a 64-bit size)
  uint32_t padded_payload_size_high;  // its high half (0)
  uint32_t payload_size;  // nvcc: the compressed payload's bytes (0: stored as is); minicuda's: the payload's bytes
  uint32_t options_offset;  // nvcc's PTX: 64, where the options follow in this header (0: none)
  uint16_t minor;  // PTX: the .version's minor, ELF: the ELF ABI's
  uint16_t major;  // PTX: the .version's major (9)
  uint32_t sm_version;  // the compute capability the code is for, major*10+minor (90)
  uint32_t bit_width;   // nvcc: an offset of the object's name (0); minicuda's: 64
  uint32_t unknown3;
  uint64_t flags;  // kFatbinFlag*
  uint64_t unknown4;
  uint64_t uncompressed_size;  // a compressed payload's size once decompressed
};
static_assert(sizeof(FatbinEntry) == 64);
inline constexpr uint16_t kFatbinKindPtx = 1;
inline constexpr uint16_t kFatbinKindElf = 2;
inline constexpr uint16_t kFatbinKindHostCode = 0x4D43;  // minicuda's: a ModuleImage
inline constexpr uint64_t kFatbinFlag64Bit = 0x1;             // 64-bit addresses
inline constexpr uint64_t kFatbinFlagLinux = 0x10;            // built for a Linux host
inline constexpr uint64_t kFatbinFlagCompressedLz4 = 0x2000;  // the payload is an LZ4 block
inline constexpr uint64_t kFatbinFlagCompressedZstd = 0x8000; // the payload is a zstd frame
// One translation unit's fatbinary, as crt/host_runtime.h lays it out.
struct MinicudaFatbin {
  FatbinHeader header;
  FatbinEntry entry;
  ModuleImage module;
};

}  // namespace minicuda::fatbin
