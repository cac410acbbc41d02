// nv_texture_header.h: what a texture or surface object is to the GPU - a descriptor in device
// memory that libcuda writes (cuTexObjectCreate, cuSurfObjectCreate) and the SM's texture unit
// reads at every fetch (device_sim texture_unit.cpp).
//
// On the real GPU an object is an index into two tables the driver keeps in video memory: texture
// headers (TIC: where the texels are, their format and layout, the size) and samplers (TSC:
// address modes, filtering, border colour), 32 bytes each; their layout is not public. minicuda
// keeps one 128-byte record per object holding both halves, and the object's handle is the GPU
// virtual address of that record, so a kernel's fetch needs nothing but the handle and the MMU.
#pragma once

#include "nvtypes.h"

// The component kind of every channel (the CUDA channel format kinds that minicuda samples).
enum NvTexelKind : NvU8 {
  NV_TEXEL_KIND_SIGNED = 0,    // two's complement integers
  NV_TEXEL_KIND_UNSIGNED = 1,  // unsigned integers
  NV_TEXEL_KIND_FLOAT = 2,     // IEEE binary32 (32-bit channels) or binary16 (16-bit channels)
};

// The shape of the resource.
enum NvTexShape : NvU8 {
  NV_TEX_SHAPE_LINEAR = 0,      // a 1-D buffer (tex1Dfetch)
  NV_TEX_SHAPE_1D = 1,
  NV_TEX_SHAPE_2D = 2,
  NV_TEX_SHAPE_3D = 3,
  NV_TEX_SHAPE_1D_LAYERED = 4,  // width x layers
  NV_TEX_SHAPE_2D_LAYERED = 5,  // width x height x layers
  NV_TEX_SHAPE_CUBEMAP = 6,     // six square faces, +x -x +y -y +z -z
  NV_TEX_SHAPE_CUBEMAP_LAYERED = 7,
};

// Address modes, as CUaddress_mode numbers them.
enum NvTexAddress : NvU8 {
  NV_TEX_ADDRESS_WRAP = 0,
  NV_TEX_ADDRESS_CLAMP = 1,
  NV_TEX_ADDRESS_MIRROR = 2,
  NV_TEX_ADDRESS_BORDER = 3,
};

inline constexpr NvU32 NV_TEX_FLAG_LINEAR_FILTER = 1u << 0;       // bilinear/trilinear, else nearest
inline constexpr NvU32 NV_TEX_FLAG_NORMALIZED_COORDS = 1u << 1;   // coordinates in [0, 1)
inline constexpr NvU32 NV_TEX_FLAG_READ_AS_INTEGER = 1u << 2;     // integer formats return integers
inline constexpr NvU32 NV_TEX_FLAG_SRGB = 1u << 3;                // (not sampled by minicuda)

// Texel memory layout. Arrays that libcuda creates are pitch-linear: rows of `pitch` bytes,
// `height` rows per slice (layer, face or depth plane); the real GPU stores them block-linear
// (tiles of GOBs), which changes speed but no texel value.
struct NvTextureHeader {
  NvU64 address;          // GPU VA of texel (0, 0, 0) of layer 0
  NvU64 pitch;            // bytes from one row to the next
  NvU64 slice_pitch;      // bytes from one slice (depth plane, layer, face) to the next
  NvU32 width;            // in texels (a linear resource: texels in the buffer)
  NvU32 height;           // rows (1 for 1-D shapes)
  NvU32 depth;            // depth planes of a 3-D texture, else 1
  NvU32 layers;           // layers (x6 faces for cubemaps), else 1
  NvU8 channel_bits[4];   // bits of x, y, z, w; 0 for an absent channel
  NvU8 kind;              // NvTexelKind
  NvU8 shape;             // NvTexShape
  NvU8 address_mode[3];   // NvTexAddress per coordinate
  NvU8 is_surface;        // written by cuSurfObjectCreate (no sampler half)
  NvU8 reserved0[2];
  NvU32 flags;            // NV_TEX_FLAG_*
  float border_color[4];  // returned by border addressing (in the read's unit)
  NvU32 max_anisotropy;   // (not sampled by minicuda)
  NvU8 reserved1[52];
};
static_assert(sizeof(NvTextureHeader) == 128, "one texture header is 128 bytes");

// Bytes of one texel.
inline NvU32 nv_texel_bytes(const NvTextureHeader& h) {
  return (NvU32{h.channel_bits[0]} + h.channel_bits[1] + h.channel_bits[2] + h.channel_bits[3]) / 8;
}
