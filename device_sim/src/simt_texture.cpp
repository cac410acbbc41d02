// simt_texture: the SIMT executor's texture and surface instructions (nv_sass.h TEX, SULD,
// SUST) - what tex1D/tex2D/.../tex1Dfetch and surf*read/surf*write compile to. Each lane's
// request goes to the SM's texture unit (texture_unit.cpp), the same code that serves C++
// kernels (sm_texture.cpp), so both paths return the same bits and fail the same way.
//
// Texels are device memory, which the SM dereferences in place as its loads do: an unmapped
// texel or header is a SIGSEGV that the SM's handler turns into an IllegalAddress error naming
// the lane. Faults the unit finds itself (not an object, a surface access out of range with
// .trap, a misaligned surface x) end the grid with the error sm_texture.cpp raises for them.
#include <cstring>

#include <fmt/format.h>

#include "minicuda/texture_unit.h"
#include "simt_values.h"

namespace minicuda::gpu::simt {

namespace {

[[noreturn]] void raise_fault(BlockExec& b, TexFault fault, uint64_t handle, const char* what) {
  switch (fault) {
    case TexFault::BadObject:
      b.raise(KernelErrorKind::IllegalAddress, fmt::format("{}: {:#x} is not a texture/surface object", what, handle),
              handle);
    case TexFault::OutOfRange:
      b.raise(KernelErrorKind::IllegalAddress, fmt::format("{}: out of range with cudaBoundaryModeTrap", what), handle);
    case TexFault::Misaligned:
      b.raise(KernelErrorKind::MisalignedAddress, fmt::format("{}: x is not a multiple of the texel size", what),
              handle);
    default:
      b.raise(KernelErrorKind::IllegalAddress, fmt::format("{}: texels not mapped", what), handle);
  }
}

// The four 32-bit coordinate elements of each lane: c01's halves, then c23's (0 when absent).
struct Coordinates {
  uint32_t e[4];
  float f(unsigned k) const {
    float v;
    std::memcpy(&v, &e[k], sizeof v);
    return v;
  }
  int s(unsigned k) const { return static_cast<int>(e[k]); }
};

Coordinates coordinates_of(const uint64_t* c01, const uint64_t* c23, unsigned lane) {
  const uint64_t lo = c01 ? c01[lane] : 0, hi = c23 ? c23[lane] : 0;
  return Coordinates{{static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
                      static_cast<uint32_t>(hi >> 32)}};
}

const uint64_t* optional_source(const BlockExec& b, const Warp& w, const NvSassOperand& op, uint32_t mask,
                                uint64_t* scratch) {
  return op.kind == NV_SASS_OPND_NONE ? nullptr : source(b, w, op, mask, scratch);
}

// A TEX instruction's request for one lane (nv_sass.h gives each shape's coordinate order).
TexRequest request_of(const NvSassInstruction& in, const Coordinates& c) {
  TexRequest q;
  switch (nv_sass_tex_shape(in.mode)) {
    case NV_SASS_TEX_1D:
      if (in.stype == NV_SASS_TYPE_S32) {  // integer texel coordinates: tex1Dfetch
        q.kind = TexRequest::Kind::Fetch;
        q.index = c.s(0);
      } else {
        q.kind = TexRequest::Kind::Sample1D;
        q.x = c.f(0);
      }
      break;
    case NV_SASS_TEX_2D: q.kind = TexRequest::Kind::Sample2D; q.x = c.f(0); q.y = c.f(1); break;
    case NV_SASS_TEX_3D: q.kind = TexRequest::Kind::Sample3D; q.x = c.f(0); q.y = c.f(1); q.z = c.f(2); break;
    case NV_SASS_TEX_A1D: q.kind = TexRequest::Kind::Sample1D; q.layer = c.s(0); q.x = c.f(1); break;
    case NV_SASS_TEX_A2D: q.kind = TexRequest::Kind::Sample2D; q.layer = c.s(0); q.x = c.f(1); q.y = c.f(2); break;
    case NV_SASS_TEX_CUBE: q.kind = TexRequest::Kind::Cubemap; q.x = c.f(0); q.y = c.f(1); q.z = c.f(2); break;
    default:  // ACUBE
      q.kind = TexRequest::Kind::Cubemap;
      q.layer = c.s(0);
      q.x = c.f(1);
      q.y = c.f(2);
      q.z = c.f(3);
      break;
  }
  return q;
}

void texture_fetch(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  uint64_t hs[kLanes], s01[kLanes], s23[kLanes];
  const uint64_t* handle = source(b, w, in.operand[2], mask, hs);
  const uint64_t* c01 = optional_source(b, w, in.operand[3], mask, s01);
  const uint64_t* c23 = optional_source(b, w, in.operand[4], mask, s23);
  uint64_t r01[kLanes], r23[kLanes];
  InPlaceTexelMemory memory;
  for_lanes(mask, [&](unsigned l) {
    b.set_fault_lane(l);
    TexFault fault;
    const TexResult r = texture_sample(memory, handle[l], request_of(in, coordinates_of(c01, c23, l)), &fault);
    if (fault != TexFault::None) raise_fault(b, fault, handle[l], "texture fetch");
    r01[l] = r.r[0] | uint64_t{r.r[1]} << 32;
    r23[l] = r.r[2] | uint64_t{r.r[3]} << 32;
  });
  // Written after every lane has read: a destination pair may also be a source.
  for (unsigned k = 0; k < 2; ++k) {
    if (in.operand[k].kind != NV_SASS_OPND_REG) continue;
    uint64_t* d = dest(w, in.operand[k]);
    for_lanes(mask, [&](unsigned l) { d[l] = k == 0 ? r01[l] : r23[l]; });
  }
}

unsigned element_bytes(uint8_t type) { return type_bits(type) / 8; }

// The surface coordinates of one lane: x (bytes), y, z, layer.
void surface_coordinates(const NvSassInstruction& in, const Coordinates& c, int* x, int* y, int* z, int* layer) {
  *x = *y = *z = *layer = 0;
  switch (nv_sass_tex_shape(in.mode)) {
    case NV_SASS_TEX_1D: *x = c.s(0); break;
    case NV_SASS_TEX_2D: *x = c.s(0); *y = c.s(1); break;
    case NV_SASS_TEX_3D: *x = c.s(0); *y = c.s(1); *z = c.s(2); break;
    case NV_SASS_TEX_A1D: *layer = c.s(0); *x = c.s(1); break;
    default: *layer = c.s(0); *x = c.s(1); *y = c.s(2); break;  // A2D
  }
}

SurfBoundary boundary_of(const NvSassInstruction& in) {
  switch (nv_sass_tex_variant(in.mode)) {
    case NV_SASS_SURF_CLAMP: return SurfBoundary::Clamp;
    case NV_SASS_SURF_ZERO: return SurfBoundary::Zero;
    default: return SurfBoundary::Trap;
  }
}

void surface(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  const bool store = in.opcode == NV_SASS_OP_SUST;
  const unsigned h = store ? 0 : 2, v = store ? 3 : 0;
  const unsigned es = element_bytes(in.type), vec = in.vec == 0 ? 1 : in.vec;
  const bool wide = es == 8;
  uint64_t hs[kLanes], s01[kLanes], s23[kLanes], sv0[kLanes], sv1[kLanes];
  const uint64_t* handle = source(b, w, in.operand[h], mask, hs);
  const uint64_t* c01 = optional_source(b, w, in.operand[h + 1], mask, s01);
  const uint64_t* c23 = optional_source(b, w, in.operand[h + 2], mask, s23);
  const uint64_t* v0 = store ? optional_source(b, w, in.operand[v], mask, sv0) : nullptr;
  const uint64_t* v1 = store ? optional_source(b, w, in.operand[v + 1], mask, sv1) : nullptr;
  uint64_t out0[kLanes], out1[kLanes];
  InPlaceTexelMemory memory;
  for_lanes(mask, [&](unsigned l) {
    b.set_fault_lane(l);
    int x, y, z, layer;
    surface_coordinates(in, coordinates_of(c01, c23, l), &x, &y, &z, &layer);
    // The elements, packed as memory holds them: from the pairs (32-bit halves) or 64-bit registers.
    uint8_t data[16] = {};
    if (store) {
      for (unsigned k = 0; k < vec; ++k) {
        const uint64_t* src = wide ? (k == 0 ? v0 : v1) : (k < 2 ? v0 : v1);
        const uint64_t bits = src == nullptr ? 0 : wide ? src[l] : src[l] >> (32 * (k & 1));
        std::memcpy(data + k * es, &bits, es);
      }
    }
    TexFault fault;
    surface_access(memory, handle[l], x, y, z, layer, data, es * vec, store, boundary_of(in), &fault);
    if (fault != TexFault::None) raise_fault(b, fault, handle[l], store ? "surface store" : "surface load");
    if (store) return;
    uint64_t e[4] = {};
    for (unsigned k = 0; k < vec; ++k) std::memcpy(&e[k], data + k * es, es);
    if (vec == 1 || wide) {
      out0[l] = e[0];
      out1[l] = e[1];
    } else {
      out0[l] = e[0] | e[1] << 32;
      out1[l] = e[2] | e[3] << 32;
    }
  });
  if (store) return;
  for (unsigned k = 0; k < 2; ++k) {
    if (in.operand[k].kind != NV_SASS_OPND_REG) continue;
    uint64_t* d = dest(w, in.operand[k]);
    for_lanes(mask, [&](unsigned l) { d[l] = k == 0 ? out0[l] : out1[l]; });
  }
}

}  // namespace

bool execute_texture(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  switch (in.opcode) {
    case NV_SASS_OP_TEX: texture_fetch(b, w, in, mask); return true;
    case NV_SASS_OP_SULD: case NV_SASS_OP_SUST: surface(b, w, in, mask); return true;
    default: return false;
  }
}

}  // namespace minicuda::gpu::simt
