/* surface_indirect_functions.h: reading and writing surface objects from kernels -
 * surf1D/2D/3D/1DLayered/2DLayered read and write. x is in bytes (the texel size times the
 * column); the access size is sizeof(T). The boundary mode says what an access outside the
 * surface does (surface_types.h); the texture unit (minicuda/texture_unit.h) performs it. */
#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__

#include "minicuda/texture_unit.h"
#include "surface_types.h"

template <class T>
inline void surf1Dread(T* ret, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_load(s, x, 0, 0, 0, ret, sizeof(T), mode);
}
template <class T>
inline T surf1Dread(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v{};
  surf1Dread(&v, s, x, mode);
  return v;
}
template <class T>
inline void surf2Dread(T* ret, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_load(s, x, y, 0, 0, ret, sizeof(T), mode);
}
template <class T>
inline T surf2Dread(cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v{};
  surf2Dread(&v, s, x, y, mode);
  return v;
}
template <class T>
inline void surf3Dread(T* ret, cudaSurfaceObject_t s, int x, int y, int z,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_load(s, x, y, z, 0, ret, sizeof(T), mode);
}
template <class T>
inline T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v{};
  surf3Dread(&v, s, x, y, z, mode);
  return v;
}
template <class T>
inline void surf1DLayeredread(T* ret, cudaSurfaceObject_t s, int x, int layer,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_load(s, x, 0, 0, layer, ret, sizeof(T), mode);
}
template <class T>
inline T surf1DLayeredread(cudaSurfaceObject_t s, int x, int layer, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v{};
  surf1DLayeredread(&v, s, x, layer, mode);
  return v;
}
template <class T>
inline void surf2DLayeredread(T* ret, cudaSurfaceObject_t s, int x, int y, int layer,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_load(s, x, y, 0, layer, ret, sizeof(T), mode);
}
template <class T>
inline T surf2DLayeredread(cudaSurfaceObject_t s, int x, int y, int layer,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  T v{};
  surf2DLayeredread(&v, s, x, y, layer, mode);
  return v;
}

template <class T>
inline void surf1Dwrite(T data, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_store(s, x, 0, 0, 0, &data, sizeof(T), mode);
}
template <class T>
inline void surf2Dwrite(T data, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_store(s, x, y, 0, 0, &data, sizeof(T), mode);
}
template <class T>
inline void surf3Dwrite(T data, cudaSurfaceObject_t s, int x, int y, int z,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_store(s, x, y, z, 0, &data, sizeof(T), mode);
}
template <class T>
inline void surf1DLayeredwrite(T data, cudaSurfaceObject_t s, int x, int layer,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_store(s, x, 0, 0, layer, &data, sizeof(T), mode);
}
template <class T>
inline void surf2DLayeredwrite(T data, cudaSurfaceObject_t s, int x, int y, int layer,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {
  minicuda::gpu::isa::surf_store(s, x, y, 0, layer, &data, sizeof(T), mode);
}

#endif /* __SURFACE_INDIRECT_FUNCTIONS_H__ */
