/* surface_types.h: surface objects - a CUDA array that kernels read and write texel by texel,
 * with x in bytes (surface_indirect_functions.h). The handle is the GPU virtual address of the
 * object's header (nv_texture_header.h). */
#ifndef __SURFACE_TYPES_H__
#define __SURFACE_TYPES_H__

#define cudaSurfaceType1D              0x01
#define cudaSurfaceType2D              0x02
#define cudaSurfaceType3D              0x03
#define cudaSurfaceTypeCubemap         0x0C
#define cudaSurfaceType1DLayered       0xF1
#define cudaSurfaceType2DLayered       0xF2
#define cudaSurfaceTypeCubemapLayered  0xFC

/* An access outside the surface: reads zero and drops the write, clamps to the edge, or ends the
 * kernel with an error (the default of the access functions). */
enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero  = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap  = 2
};
enum cudaSurfaceFormatMode {
  cudaFormatModeForced = 0,
  cudaFormatModeAuto = 1
};

typedef unsigned long long cudaSurfaceObject_t;

#endif /* __SURFACE_TYPES_H__ */
