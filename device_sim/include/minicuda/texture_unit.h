// minicuda/texture_unit.h: the SM's texture unit - texture fetches (TEX/TLD) and surface loads
// and stores (SULD/SUST) on the objects libcuda describes in device memory (nv_texture_header.h).
// One implementation serves both kinds of kernel: C++ kernels reach it through the fetch
// functions of texture_indirect_functions.h and surface_indirect_functions.h (isa::tex_* below),
// PTX kernels through the SIMT executor's tex/suld/sust instructions. What it computes, and the
// H200 recordings that pin it, are in docs/textures.md.
#pragma once

#include <cstdint>
#include <cstring>

namespace minicuda::gpu {

// Where a fetch's texels come from. Both kinds of kernel read device memory in place, as their
// loads do (sm_texture.cpp, simt_texture.cpp), so an unmapped texel faults like a load; an
// implementation that checks addresses itself returns false for one the GPU has not mapped.
class TexelMemory {
 public:
  virtual ~TexelMemory() = default;
  virtual bool read(uint64_t address, void* out, uint32_t bytes) = 0;
  virtual bool write(uint64_t address, const void* in, uint32_t bytes) = 0;
};

// Texels read and written in place, as a kernel's own loads and stores are (both execution
// paths give the unit host pointers into the arena).
class InPlaceTexelMemory final : public TexelMemory {
 public:
  bool read(uint64_t address, void* out, uint32_t bytes) override {
    std::memcpy(out, reinterpret_cast<const void*>(address), bytes);
    return true;
  }
  bool write(uint64_t address, const void* in, uint32_t bytes) override {
    std::memcpy(reinterpret_cast<void*>(address), in, bytes);
    return true;
  }
};

// A fetch. The coordinates a shape does not use are ignored. Its 4-byte fields come in pairs at
// 8-byte-aligned offsets: isa::tex_fetch fills it with the alignment check on (optimised
// builds), and g++ may store a pair with one 8-byte move.
struct alignas(8) TexRequest {
  enum class Kind : uint8_t {
    Fetch,     // tex1Dfetch: integer index into a linear resource, no filtering
    Sample1D,  // x                     (tex1D, tex1DLayered with layer)
    Sample2D,  // x, y                  (tex2D, tex2DLayered, tex2DLod, tex2DGrad)
    Sample3D,  // x, y, z               (tex3D)
    Cubemap,   // direction x, y, z     (texCubemap, texCubemapLayered with layer)
  };
  float x = 0, y = 0, z = 0;
  int index = 0;  // Fetch
  int layer = 0;  // layered shapes
  Kind kind = Kind::Sample1D;
};

// The four result registers of a fetch: floats (bit patterns), or integers when an integer
// format is read as element type. Absent channels read 0 (w: 1 for floats, as the hardware does).
struct TexResult {
  uint32_t r[4] = {0, 0, 0, 0};
};

// Why a texture or surface access failed. None: it did not.
enum class TexFault : uint8_t {
  None,
  BadObject,        // the handle names no texture header (cudaErrorIllegalAddress)
  OutOfRange,       // a surface access outside the surface in trap mode
  Misaligned,       // a surface x (bytes) that is not a multiple of the access size
  MemoryFault,      // the texels are not mapped
};

// Samples texture `handle`. On a fault, *fault is set and the result is zero.
TexResult texture_sample(TexelMemory& memory, uint64_t handle, const TexRequest& request, TexFault* fault);

// Surface boundary modes, as cudaSurfaceBoundaryMode numbers them.
enum class SurfBoundary : uint8_t { Zero = 0, Clamp = 1, Trap = 2 };

// Reads (write = false) or writes `bytes` bytes of texel (x_bytes, y, z) of layer `layer` of
// surface `handle` (bytes: the access size, 1 to 16, a power of two). Out of range in Zero mode: a read gives zeros, a write is dropped; Clamp:
// the nearest texel; Trap: *fault. An x not a multiple of bytes faults in every mode.
void surface_access(TexelMemory& memory, uint64_t handle, int x_bytes, int y, int z, int layer, void* data,
                    uint32_t bytes, bool write, SurfBoundary mode, TexFault* fault);

namespace isa {
// The C++ kernel's entry points (the fetch functions of the device headers call them). A fault
// ends the kernel with the real error. The request's fields travel as scalar arguments, in
// registers: a TexRequest built in kernel code could be stored with a wider move than its fields'
// alignment, which the alignment check kernel code runs under would trap on every fetch.
TexResult tex_fetch(uint64_t handle, TexRequest::Kind kind, float x, float y, float z, int index, int layer);
void surf_load(uint64_t handle, int x_bytes, int y, int z, int layer, void* out, uint32_t bytes, int boundary);
void surf_store(uint64_t handle, int x_bytes, int y, int z, int layer, const void* in, uint32_t bytes, int boundary);
}  // namespace isa

}  // namespace minicuda::gpu
