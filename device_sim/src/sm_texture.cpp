// sm_texture: the texture unit's entry points for C++ kernels (isa::tex_fetch, surf_load,
// surf_store), called by the fetch functions of texture_indirect_functions.h and
// surface_indirect_functions.h. Kernel code shares the host's address space with device memory,
// so texels are read in place; an unmapped texel faults like any load of the kernel. A fault the
// texture unit finds itself (a bad object, a surface access out of range in trap mode) ends the
// block with the error the H200 reports (tests/data/h200/texture/out/surface_trap.txt).
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "minicuda/texture_unit.h"
#include "sm_block.h"

namespace minicuda::gpu {

using namespace sm;

namespace {

[[noreturn]] void raise_texture_fault(TexFault fault, uint64_t handle, const char* what) {
  KernelError e;
  e.kind = KernelErrorKind::IllegalAddress;
  e.address = handle;
  switch (fault) {
    case TexFault::BadObject: e.message = fmt::format("{}: 0x{:x} is not a texture/surface object", what, handle); break;
    case TexFault::OutOfRange: e.message = fmt::format("{}: out of range with cudaBoundaryModeTrap", what); break;
    case TexFault::Misaligned:
      e.kind = KernelErrorKind::MisalignedAddress;
      e.message = fmt::format("{}: x is not a multiple of the texel size", what);
      break;
    default: e.message = fmt::format("{}: texels not mapped", what); break;
  }
  raise_kernel_error(std::move(e));
}

}  // namespace

namespace isa {

TexResult tex_fetch(uint64_t handle, TexRequest::Kind kind, float x, float y, float z, int index, int layer) {
  std::optional<SmCode> sm_code;
  if constexpr (!kSwitchesUnderAlignmentCheck) sm_code.emplace();
  if (current_block("tex fetch") == nullptr) return TexResult{};
  TexRequest request;
  request.kind = kind;
  request.x = x;
  request.y = y;
  request.z = z;
  request.index = index;
  request.layer = layer;
  InPlaceTexelMemory memory;
  TexFault fault;
  TexResult r = texture_sample(memory, handle, request, &fault);
  if (fault != TexFault::None) raise_texture_fault(fault, handle, "texture fetch");
  return r;
}

void surf_load(uint64_t handle, int x_bytes, int y, int z, int layer, void* out, uint32_t bytes, int boundary) {
  SmCode sm_code;
  if (current_block("surf*read") == nullptr) return;
  InPlaceTexelMemory memory;
  TexFault fault;
  surface_access(memory, handle, x_bytes, y, z, layer, out, bytes, false, static_cast<SurfBoundary>(boundary), &fault);
  if (fault != TexFault::None) raise_texture_fault(fault, handle, "surface load");
}

void surf_store(uint64_t handle, int x_bytes, int y, int z, int layer, const void* in, uint32_t bytes, int boundary) {
  SmCode sm_code;
  if (current_block("surf*write") == nullptr) return;
  InPlaceTexelMemory memory;
  TexFault fault;
  surface_access(memory, handle, x_bytes, y, z, layer, const_cast<void*>(in), bytes, true,
                 static_cast<SurfBoundary>(boundary), &fault);
  if (fault != TexFault::None) raise_texture_fault(fault, handle, "surface store");
}

}  // namespace isa
}  // namespace minicuda::gpu
