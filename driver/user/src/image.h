// Private to libcuda: what a module image is (image.cpp). cuModuleLoadData and cuLibraryLoadData
// get a bare pointer; the first bytes say what follows - a fatbinary (its wrapper or its header),
// an ELF (NVIDIA's cubin, or the one minicuda's linker makes), or PTX text - and, for a
// fatbinary, the driver picks the entry that suits the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda.h"
#include "fatbinary.h"

namespace minicuda::libcuda::image {

// What select() found in an image.
struct Code {
  CUresult error = CUDA_SUCCESS;                // CUDA_SUCCESS, or why the image cannot load
  std::string why;                              // for the trace: what was chosen or refused, and why
  const fatbin::ModuleImage* host = nullptr;    // minicuda's own fatbinary entry (C++ kernels), and/or
  std::string ptx;                              // the PTX text to compile (its entry decompressed)
  bool from_entry = false;                      // ptx is a fatbinary's PTX entry: PTX whatever it holds
};

// Reads the image at `data` for a device of compute capability `sm` (major*10+minor). Every size
// read from the image is checked against the container's own bounds; an image that is neither a
// fatbinary nor an ELF nor PTX (empty, zero-filled, garbage, text without a .version):
// CUDA_ERROR_INVALID_IMAGE; a fatbinary or cubin with no code the simulator can run for sm (only
// SASS, or PTX for a newer GPU): CUDA_ERROR_NO_BINARY_FOR_GPU. A fatbinary that holds minicuda's
// entry beside PTX gives both: a module of C++ kernels and PTX kernels (jit.h, load_image).
Code select(const void* data, int sm);

// As select(), for a fatbinary header of `size` bytes at most (the fuzz target's entry point:
// nothing past data + size is read).
Code select_fatbin(const uint8_t* data, size_t size, int sm);

// The log line the real driver writes for an image it does not recognise (probe_module.txt).
inline constexpr const char* kUnrecognizedImageLog = "error   : Binary format for key='0', ident='' is not recognized";

// minicuda's linker output (link.cpp): an ELF64 whose e_ident[EI_OSABI] is NVIDIA's (0x41) and
// whose e_ident[EI_ABIVERSION] is kMinicudaElfAbi, with one section, kPtxSection, holding the
// linked PTX text. Returns the ELF's bytes.
std::string make_elf(const std::string& ptx, int sm);
inline constexpr uint8_t kMinicudaElfAbi = 0x4D;
inline constexpr const char* kPtxSection = ".minicuda.ptx";

}  // namespace minicuda::libcuda::image
