/* crt/driver_types_textures.h -- the resource descriptions of texture and surface objects
 * (cudaResourceDesc, cudaResourceViewDesc), part of driver_types.h and included at its end. What
 * a texture samples is in texture_types.h (cudaTextureDesc), the surface boundary modes in
 * surface_types.h. docs/textures.md tells how minicuda builds them. */
#ifndef MINICUDA_DRIVER_TYPES_TEXTURES_H
#define MINICUDA_DRIVER_TYPES_TEXTURES_H

/* What an object reads: a CUDA array, a mipmapped array (not built), linear or pitched memory. */
enum cudaResourceType MINICUDA_ENUM_INT {
  cudaResourceTypeArray          = 0x00,
  cudaResourceTypeMipmappedArray = 0x01,
  cudaResourceTypeLinear         = 0x02,
  cudaResourceTypePitch2D        = 0x03
};

/* A view's reinterpretation of the texels; minicuda takes only the resource's own format. */
enum cudaResourceViewFormat MINICUDA_ENUM_INT {
  cudaResViewFormatNone = 0x00
};

struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;                      /* aligned to cudaDeviceProp::textureAlignment (512) */
      struct cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;                      /* aligned to textureAlignment */
      struct cudaChannelFormatDesc desc;
      size_t width;                      /* in elements */
      size_t height;
      size_t pitchInBytes;               /* a multiple of texturePitchAlignment (32) */
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags; /* must be 0 */
};

struct cudaResourceViewDesc {
  enum cudaResourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
  unsigned int reserved[16];
};

#endif /* MINICUDA_DRIVER_TYPES_TEXTURES_H */
