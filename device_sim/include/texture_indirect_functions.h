/* texture_indirect_functions.h: the fetch functions of texture objects, as kernels call them -
 * tex1Dfetch, tex1D/2D/3D, the layered and cubemap forms, and the Lod/Grad forms. Each asks the
 * SM's texture unit (minicuda/texture_unit.h) for the four result registers of one fetch and
 * converts them to T: a scalar takes the first, a vector type its first 1 to 4. Part of the kernel
 * language (device_code.h). minicuda's arrays have one mipmap level: Lod/Grad sample level 0. */
#ifndef __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__

#include <cstring>
#include <type_traits>

#include "minicuda/texture_unit.h"
#include "texture_types.h"
#include "vector_types.h"

namespace minicuda::gpu::texture {

/* One result register as a component of type S: a float's bits, or an integer. */
template <class S>
inline S component(uint32_t bits) {
  if constexpr (std::is_same_v<S, float>) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  } else {
    return static_cast<S>(bits);
  }
}

/* The result registers as the T the caller asked for. */
template <class T>
inline T result_as(const TexResult& r) {
  if constexpr (std::is_arithmetic_v<T>) {
    return component<T>(r.r[0]);
  } else {
    T v{};
    using S = std::remove_cvref_t<decltype(v.x)>;
    v.x = component<S>(r.r[0]);
    if constexpr (requires { v.y; }) v.y = component<S>(r.r[1]);
    if constexpr (requires { v.z; }) v.z = component<S>(r.r[2]);
    if constexpr (requires { v.w; }) v.w = component<S>(r.r[3]);
    return v;
  }
}

inline TexResult fetch(cudaTextureObject_t t, TexRequest::Kind kind, float x, float y, float z, int layer) {
  return isa::tex_fetch(t, kind, x, y, z, 0, layer);
}

}  // namespace minicuda::gpu::texture

/* Element x of a linear resource; outside it: zero. No filtering, no normalised coordinates. */
template <class T>
inline T tex1Dfetch(cudaTextureObject_t t, int x) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::isa::tex_fetch(t, TexRequest::Kind::Fetch, 0, 0, 0, x, 0));
}
template <class T>
inline void tex1Dfetch(T* ret, cudaTextureObject_t t, int x) { *ret = tex1Dfetch<T>(t, x); }

template <class T>
inline T tex1D(cudaTextureObject_t t, float x) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Sample1D, x, 0, 0, 0));
}
template <class T>
inline void tex1D(T* ret, cudaTextureObject_t t, float x) { *ret = tex1D<T>(t, x); }

template <class T>
inline T tex2D(cudaTextureObject_t t, float x, float y) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Sample2D, x, y, 0, 0));
}
template <class T>
inline void tex2D(T* ret, cudaTextureObject_t t, float x, float y) { *ret = tex2D<T>(t, x, y); }

template <class T>
inline T tex3D(cudaTextureObject_t t, float x, float y, float z) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Sample3D, x, y, z, 0));
}
template <class T>
inline void tex3D(T* ret, cudaTextureObject_t t, float x, float y, float z) { *ret = tex3D<T>(t, x, y, z); }

template <class T>
inline T tex1DLayered(cudaTextureObject_t t, float x, int layer) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Sample1D, x, 0, 0, layer));
}
template <class T>
inline void tex1DLayered(T* ret, cudaTextureObject_t t, float x, int layer) { *ret = tex1DLayered<T>(t, x, layer); }

template <class T>
inline T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Sample2D, x, y, 0, layer));
}
template <class T>
inline void tex2DLayered(T* ret, cudaTextureObject_t t, float x, float y, int layer) {
  *ret = tex2DLayered<T>(t, x, y, layer);
}

/* (x, y, z) is a direction from the cube's centre; the face is its largest component. */
template <class T>
inline T texCubemap(cudaTextureObject_t t, float x, float y, float z) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Cubemap, x, y, z, 0));
}
template <class T>
inline void texCubemap(T* ret, cudaTextureObject_t t, float x, float y, float z) { *ret = texCubemap<T>(t, x, y, z); }

template <class T>
inline T texCubemapLayered(cudaTextureObject_t t, float x, float y, float z, int layer) {
  using minicuda::gpu::TexRequest;
  return minicuda::gpu::texture::result_as<T>(minicuda::gpu::texture::fetch(t, TexRequest::Kind::Cubemap, x, y, z, layer));
}
template <class T>
inline void texCubemapLayered(T* ret, cudaTextureObject_t t, float x, float y, float z, int layer) {
  *ret = texCubemapLayered<T>(t, x, y, z, layer);
}

/* Level-of-detail and gradient forms: one level exists, so they sample it as the plain forms do. */
template <class T>
inline T tex1DLod(cudaTextureObject_t t, float x, float) { return tex1D<T>(t, x); }
template <class T>
inline T tex2DLod(cudaTextureObject_t t, float x, float y, float) { return tex2D<T>(t, x, y); }
template <class T>
inline void tex2DLod(T* ret, cudaTextureObject_t t, float x, float y, float) { *ret = tex2D<T>(t, x, y); }
template <class T>
inline T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float) { return tex3D<T>(t, x, y, z); }
template <class T>
inline T tex2DLayeredLod(cudaTextureObject_t t, float x, float y, int layer, float) {
  return tex2DLayered<T>(t, x, y, layer);
}
template <class T>
inline T texCubemapLod(cudaTextureObject_t t, float x, float y, float z, float) { return texCubemap<T>(t, x, y, z); }
template <class T>
inline T tex1DGrad(cudaTextureObject_t t, float x, float, float) { return tex1D<T>(t, x); }
template <class T>
inline T tex2DGrad(cudaTextureObject_t t, float x, float y, float2, float2) { return tex2D<T>(t, x, y); }
template <class T>
inline void tex2DGrad(T* ret, cudaTextureObject_t t, float x, float y, float2, float2) { *ret = tex2D<T>(t, x, y); }
template <class T>
inline T tex3DGrad(cudaTextureObject_t t, float x, float y, float z, float4, float4) { return tex3D<T>(t, x, y, z); }

#endif /* __TEXTURE_INDIRECT_FUNCTIONS_H__ */
