/* texture_types.h: how a texture object samples (cudaTextureDesc) and the object's handle,
 * cudaTextureObject_t: the GPU virtual address of the object's texture header
 * (nv_texture_header.h), which kernels pass by value to the fetch functions
 * (texture_indirect_functions.h). cudaResourceDesc, what the object samples, is in driver_types.h. */
#ifndef __TEXTURE_TYPES_H__
#define __TEXTURE_TYPES_H__

/* The texture shapes (cudaTextureType*; a layered shape has 0xF0 added, a cubemap is 0x0C). */
#define cudaTextureType1D              0x01
#define cudaTextureType2D              0x02
#define cudaTextureType3D              0x03
#define cudaTextureTypeCubemap         0x0C
#define cudaTextureType1DLayered       0xF1
#define cudaTextureType2DLayered       0xF2
#define cudaTextureTypeCubemapLayered  0xFC

/* What a coordinate outside [0, size) reads: wrap and mirror need normalised coordinates. */
enum cudaTextureAddressMode {
  cudaAddressModeWrap   = 0,
  cudaAddressModeClamp  = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
/* Nearest texel, or (bi/tri)linear interpolation with 1.8 fixed-point weights. */
enum cudaTextureFilterMode {
  cudaFilterModePoint  = 0,
  cudaFilterModeLinear = 1
};
/* Integer formats of 8 and 16 bits: returned as they are, or mapped to [0, 1] / [-1, 1]. */
enum cudaTextureReadMode {
  cudaReadModeElementType     = 0,
  cudaReadModeNormalizedFloat = 1
};

struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

typedef unsigned long long cudaTextureObject_t;

#endif /* __TEXTURE_TYPES_H__ */
