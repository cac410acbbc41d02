// texture_unit: the SM's texture unit. It reads an object's texture header (nv_texture_header.h)
// from device memory, turns the request's coordinates into texel addresses (normalised
// coordinates, address modes, layers and cube faces), reads the texels, converts them to the
// read's unit (element type or normalised float) and filters (nearest, or linear with weights
// in 1.8 fixed point, as the H200 computes them). Surface loads and stores address texels by
// bytes and apply the boundary mode. Callers: sm_texture.cpp (C++ kernels) and the SIMT
// executor (PTX tex/suld/sust), each with its own TexelMemory.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <emmintrin.h>

#include "minicuda/texture_unit.h"
#include "nv_texture_header.h"

namespace minicuda::gpu {
namespace {

// One texel converted to the read's unit: 4 floats, or 4 integers (read as integer).
// 16-byte aligned: decode stores each half with one vector store.
struct alignas(16) Texel {
  float f[4] = {0, 0, 0, 0};
  uint32_t u[4] = {0, 0, 0, 0};
};

float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

// Decodes the texel at `bytes` (nv_texel_bytes of h) into t.
void decode(const NvTextureHeader& h, const uint8_t* bytes, Texel* t) {
  const bool as_integer = (h.flags & NV_TEX_FLAG_READ_AS_INTEGER) != 0;
  if (h.kind == NV_TEXEL_KIND_FLOAT && h.channel_bits[0] == 32 && h.channel_bits[1] == 0 && !as_integer) {
    // One float channel (the common image): what the loop below gives, in two 16-byte stores.
    // The fetch runs under the kernel's alignment check when optimised, and g++ merges separate
    // stores of neighbouring fields into 8-byte moves at 4-byte offsets, which would trap there.
    int32_t bits;
    std::memcpy(&bits, bytes, 4);
    _mm_store_si128(reinterpret_cast<__m128i*>(t->f), _mm_setr_epi32(bits, 0, 0, 0x3f800000));  // 1.0f
    _mm_store_si128(reinterpret_cast<__m128i*>(t->u), _mm_setr_epi32(bits, 0, 0, 0));
    return;
  }
  uint32_t offset = 0;
  for (int c = 0; c < 4; ++c) {
    const uint32_t bits = h.channel_bits[c];
    if (bits == 0) {
      t->f[c] = (c == 3 && !as_integer) ? 1.0f : 0.0f;
      t->u[c] = (c == 3 && as_integer) ? 1u : 0u;
      continue;
    }
    uint32_t raw = 0;
    std::memcpy(&raw, bytes + offset, bits / 8);
    offset += bits / 8;
    if (h.kind == NV_TEXEL_KIND_FLOAT) {
      float v;
      if (bits == 16) v = half_to_float(static_cast<uint16_t>(raw));
      else std::memcpy(&v, &raw, 4);
      t->f[c] = v;
      std::memcpy(&t->u[c], &v, 4);
      continue;
    }
    const bool is_signed = h.kind == NV_TEXEL_KIND_SIGNED;
    int64_t value = raw;
    if (is_signed && bits < 32 && (raw >> (bits - 1)) & 1) value -= int64_t{1} << bits;
    if (is_signed && bits == 32) value = static_cast<int32_t>(raw);
    t->u[c] = static_cast<uint32_t>(value);
    if (bits <= 16) {
      // Normalised float: unsigned v / (2^n - 1); signed v / (2^(n-1) - 1), never below -1.
      const float scale = is_signed ? static_cast<float>((1u << (bits - 1)) - 1) : static_cast<float>((1u << bits) - 1);
      t->f[c] = std::max(static_cast<float>(value) / scale, -1.0f);
    } else {
      t->f[c] = static_cast<float>(value);
    }
  }
}

// The texel index an address mode makes of index i on an axis of n texels; -1: the border.
int64_t address(int64_t i, int64_t n, uint8_t mode) {
  if (i >= 0 && i < n) return i;  // inside: every mode keeps it (and no division)
  switch (mode) {
    case NV_TEX_ADDRESS_WRAP: {
      int64_t r = i % n;
      return r < 0 ? r + n : r;
    }
    case NV_TEX_ADDRESS_MIRROR: {
      int64_t r = i % (2 * n);
      if (r < 0) r += 2 * n;
      return r < n ? r : 2 * n - 1 - r;
    }
    case NV_TEX_ADDRESS_BORDER: return (i < 0 || i >= n) ? -1 : i;
    default: return std::clamp<int64_t>(i, 0, n - 1);
  }
}

// Reads texel (ix, iy, iz) of slice `slice`, after addressing; a border texel is the border colour.
bool texel(TexelMemory& memory, const NvTextureHeader& h, int64_t ix, int64_t iy, int64_t iz, int64_t slice,
           Texel* t) {
  if (ix < 0 || iy < 0 || iz < 0) {
    // Read as normalised float, the border colour is first stored in the texels' own format: the
    // H200 returns 64/255 for a border of 0.25 on 8-bit texels (ties go down: 0.5 -> 127/255).
    const bool quantize = h.kind != NV_TEXEL_KIND_FLOAT && (h.flags & NV_TEX_FLAG_READ_AS_INTEGER) == 0;
    for (int c = 0; c < 4; ++c) {
      float v = h.border_color[c];
      const uint32_t bits = h.channel_bits[c] ? h.channel_bits[c] : h.channel_bits[0];
      if (quantize && bits <= 16) {
        const double top = h.kind == NV_TEXEL_KIND_SIGNED ? (1u << (bits - 1)) - 1 : (1u << bits) - 1;
        const double lowest = h.kind == NV_TEXEL_KIND_SIGNED ? -top : 0.0;
        v = static_cast<float>(std::clamp(std::ceil(v * top - 0.5), lowest, top) / top);
      }
      t->f[c] = v;
      std::memcpy(&t->u[c], &v, 4);
    }
    return true;
  }
  const uint32_t size = nv_texel_bytes(h);
  const uint64_t at = h.address + static_cast<uint64_t>(slice + iz) * h.slice_pitch +
                      static_cast<uint64_t>(iy) * h.pitch + static_cast<uint64_t>(ix) * size;
  uint8_t bytes[16] = {};
  if (!memory.read(at, bytes, size)) return false;
  decode(h, bytes, t);
  return true;
}

// A filtering axis: the two texel indices around coordinate u (unnormalised) and the weight of
// the second, in 1.8 fixed point; for nearest filtering only i0.
struct Axis {
  int64_t i0 = 0, i1 = 0;
  float weight = 0;
};

Axis axis(float u, int64_t n, uint8_t mode, bool linear) {
  Axis a;
  if (!linear) {
    a.i0 = address(static_cast<int64_t>(std::floor(u)), n, mode);
    return a;
  }
  const float shifted = u - 0.5f;
  const float base = std::floor(shifted);
  const float frac = shifted - base;
  // The hardware keeps the fractional position in 9 bits, 8 of them fractional (1.0 is exact),
  // rounded to nearest with ties up: the H200 gives 0.5 + 2.5/256 the weight 3/256
  // (tests/data/h200/texture/out/texture.txt, 1d.unnorm.linear.clamp).
  a.weight = std::floor(frac * 256.0f + 0.5f) / 256.0f;
  const auto i = static_cast<int64_t>(base);
  a.i0 = address(i, n, mode);
  a.i1 = address(i + 1, n, mode);
  return a;
}

// The cube face a direction points at, and the face's normalised coordinates.
void cube_face(float x, float y, float z, int* face, float* s, float* t) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float m, sc, tc;
  if (ax >= ay && ax >= az) {
    m = ax;
    *face = x >= 0 ? 0 : 1;
    sc = x >= 0 ? -z : z;
    tc = -y;
  } else if (ay >= az) {
    m = ay;
    *face = y >= 0 ? 2 : 3;
    sc = x;
    tc = y >= 0 ? z : -z;
  } else {
    m = az;
    *face = z >= 0 ? 4 : 5;
    sc = z >= 0 ? x : -x;
    tc = -y;
  }
  *s = (sc / m + 1.0f) * 0.5f;
  *t = (tc / m + 1.0f) * 0.5f;
}

// The layer a fetch reads: the index taken as unsigned and clamped to the last layer, so -1 reads
// the last one (H200: texture.txt, 1dlayered.linear.clamp with layer -1).
int64_t layer_index(int layer, int64_t layers) {
  return static_cast<int64_t>(std::min<uint64_t>(static_cast<uint32_t>(layer), static_cast<uint64_t>(layers - 1)));
}

bool read_header(TexelMemory& memory, uint64_t handle, NvTextureHeader* h) {
  if (handle == 0 || handle % alignof(uint64_t) != 0) return false;
  return memory.read(handle, h, sizeof *h) && h->width > 0;
}

}  // namespace

TexResult texture_sample(TexelMemory& memory, uint64_t handle, const TexRequest& q, TexFault* fault) {
  *fault = TexFault::None;
  TexResult out;
  NvTextureHeader h;
  if (!read_header(memory, handle, &h) || h.is_surface) {
    *fault = TexFault::BadObject;
    return out;
  }
  const bool as_integer = (h.flags & NV_TEX_FLAG_READ_AS_INTEGER) != 0;
  const auto finish = [&](const float f[4], const Texel& nearest) {
    for (int c = 0; c < 4; ++c) {
      if (as_integer) out.r[c] = nearest.u[c];
      else std::memcpy(&out.r[c], &f[c], 4);
    }
  };

  if (q.kind == TexRequest::Kind::Fetch) {
    // tex1Dfetch: an index outside the buffer reads zero.
    Texel t;
    if (q.index >= 0 && static_cast<uint32_t>(q.index) < h.width) {
      if (!texel(memory, h, q.index, 0, 0, 0, &t)) *fault = TexFault::MemoryFault;
    } else {
      t = Texel{};
    }
    finish(t.f, t);
    return out;
  }

  // Coordinates in texels, the slice (layer, cube face) and how many axes filter.
  float u = q.x, v = q.y, w = q.z;
  int64_t slice = 0;
  int dims = 1;
  uint8_t modes[3] = {h.address_mode[0], h.address_mode[1], h.address_mode[2]};
  bool normalized = (h.flags & NV_TEX_FLAG_NORMALIZED_COORDS) != 0;
  switch (h.shape) {
    case NV_TEX_SHAPE_2D: dims = 2; break;
    case NV_TEX_SHAPE_3D: dims = 3; break;
    case NV_TEX_SHAPE_1D_LAYERED:
    case NV_TEX_SHAPE_2D_LAYERED:
      dims = h.shape == NV_TEX_SHAPE_1D_LAYERED ? 1 : 2;
      slice = layer_index(q.layer, h.layers);
      break;
    case NV_TEX_SHAPE_CUBEMAP:
    case NV_TEX_SHAPE_CUBEMAP_LAYERED: {
      int face;
      cube_face(q.x, q.y, q.z, &face, &u, &v);
      const int64_t cubes = std::max<int64_t>(h.layers / 6, 1);
      slice = (h.shape == NV_TEX_SHAPE_CUBEMAP_LAYERED ? layer_index(q.layer, cubes) * 6 : 0) + face;
      dims = 2;
      normalized = true;
      modes[0] = modes[1] = NV_TEX_ADDRESS_CLAMP;
      break;
    }
    default: break;
  }
  // A 1-D fetch is a 2-D fetch of a one-row image at y = 0: with linear filtering it blends half
  // of row -1 in, which the border mode shows (H200: 1d.unnorm.linear.border).
  if (dims == 1) {
    dims = 2;
    v = 0.0f;
  }
  const int64_t sizes[3] = {h.width, h.height, h.depth};
  float coords[3] = {u, v, w};
  if (normalized)
    for (int d = 0; d < dims; ++d) coords[d] *= static_cast<float>(sizes[d]);
  const bool linear = (h.flags & NV_TEX_FLAG_LINEAR_FILTER) != 0 && !as_integer;
  Axis ax[3];
  for (int d = 0; d < 3; ++d) ax[d] = d < dims ? axis(coords[d], sizes[d], modes[d], linear) : Axis{};

  Texel corner[8];
  const int corners = linear ? 1 << dims : 1;
  for (int k = 0; k < corners; ++k) {
    const int64_t ix = (k & 1) ? ax[0].i1 : ax[0].i0;
    const int64_t iy = (k & 2) ? ax[1].i1 : ax[1].i0;
    const int64_t iz = (k & 4) ? ax[2].i1 : ax[2].i0;
    if (!texel(memory, h, ix, iy, iz, slice, &corner[k])) {
      *fault = TexFault::MemoryFault;
      return TexResult{};
    }
  }
  float result[4];
  // Linear filtering weighs the four texels of an x-y plane with weights of 8 fractional bits that
  // sum to one: w11 = round(a * b), w10 = a - w11, w01 = b - w11, w00 = the rest; the sum is
  // rounded to float once. A 3-D fetch blends its two planes with c. (H200: texture.txt,
  // 2d.pitch.* and 1d.*.border are matched bit for bit this way.)
  const double a = ax[0].weight, b = ax[1].weight, cz = ax[2].weight;
  const double w11 = std::floor(a * b * 256.0 + 0.5) / 256.0;
  const double weights[4] = {1.0 - a - b + w11, a - w11, b - w11, w11};
  for (int c = 0; c < 4; ++c) {
    if (!linear) {
      result[c] = corner[0].f[c];
      continue;
    }
    // The weights are multiples of 2^-8 that sum to exactly one, so corners that all hold the
    // same finite value (an absent channel's 0 or 1, a flat region) blend to that value exactly
    // (zeros to +0, the sums starting from +0).
    bool same = std::isfinite(corner[0].f[c]);
    for (int k = 1; k < corners && same; ++k) same = corner[k].f[c] == corner[0].f[c];
    if (same) {
      result[c] = corner[0].f[c] == 0.0f ? 0.0f : corner[0].f[c];
      continue;
    }
    double plane[2] = {0, 0};
    for (int z = 0; z < (dims == 3 ? 2 : 1); ++z)
      for (int k = 0; k < 4; ++k) plane[z] += weights[k] * corner[z * 4 + k].f[c];
    result[c] = static_cast<float>(dims == 3 ? (1.0 - cz) * plane[0] + cz * plane[1] : plane[0]);
  }
  finish(result, corner[0]);
  return out;
}

void surface_access(TexelMemory& memory, uint64_t handle, int x_bytes, int y, int z, int layer, void* data,
                    uint32_t bytes, bool write, SurfBoundary mode, TexFault* fault) {
  *fault = TexFault::None;
  NvTextureHeader h;
  if (!read_header(memory, handle, &h) || !h.is_surface) {
    *fault = TexFault::BadObject;
    return;
  }
  // The instruction names the access size (b8..b128); x is in bytes, as SULD/SUST take it.
  const uint32_t size = bytes;
  if (size == 0 || size > 16 || (size & (size - 1)) != 0) {
    *fault = TexFault::Misaligned;
    return;
  }
  // A misaligned x faults in every boundary mode (the H200 reports 716 for clamp and zero too).
  if (x_bytes % static_cast<int>(size) != 0) {
    *fault = TexFault::Misaligned;
    return;
  }
  const int64_t row_units = static_cast<int64_t>(h.width) * nv_texel_bytes(h) / size;
  int64_t ix = x_bytes >= 0 ? x_bytes / size : -((-static_cast<int64_t>(x_bytes) + size - 1) / size);
  int64_t iy = y, iz = z, il = layer;
  const int64_t depth = h.shape == NV_TEX_SHAPE_3D ? h.depth : 1;
  const bool outside = ix < 0 || ix >= row_units || iy < 0 || iy >= h.height || iz < 0 || iz >= depth || il < 0 ||
                       il >= h.layers;
  if (outside) {
    if (mode == SurfBoundary::Trap) {
      *fault = TexFault::OutOfRange;
      return;
    }
    if (mode == SurfBoundary::Zero) {
      if (!write) std::memset(data, 0, bytes);
      return;
    }
    ix = std::clamp<int64_t>(ix, 0, row_units - 1);
    iy = std::clamp<int64_t>(iy, 0, h.height - 1);
    iz = std::clamp<int64_t>(iz, 0, depth - 1);
    il = std::clamp<int64_t>(il, 0, int64_t{h.layers} - 1);
  }
  const uint64_t at = h.address + static_cast<uint64_t>(il + iz) * h.slice_pitch + static_cast<uint64_t>(iy) * h.pitch +
                      static_cast<uint64_t>(ix) * size;
  const bool ok = write ? memory.write(at, data, bytes) : memory.read(at, data, bytes);
  if (!ok) *fault = TexFault::MemoryFault;
}

}  // namespace minicuda::gpu
