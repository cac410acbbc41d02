/*
 * cuda_textures.h -- CUDA arrays, texture objects and surface objects of the Driver API (included
 * by cuda.h). Names, values and layouts are CUDA 13.0's; the comments are minicuda's own. What
 * an array is in memory and what an object is to the GPU: docs/textures.md.
 */
#ifndef MINICUDA_CUDA_TEXTURES_H
#define MINICUDA_CUDA_TEXTURES_H

/* The element format of an array or a texture's linear memory (channels come apart). */
typedef enum CUarray_format_enum {
  CU_AD_FORMAT_UNSIGNED_INT8  = 0x01,
  CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  CU_AD_FORMAT_SIGNED_INT8    = 0x08,
  CU_AD_FORMAT_SIGNED_INT16   = 0x09,
  CU_AD_FORMAT_SIGNED_INT32   = 0x0a,
  CU_AD_FORMAT_HALF           = 0x10,
  CU_AD_FORMAT_FLOAT          = 0x20,
  CU_AD_FORMAT_MAX            = 0x7FFFFFFF
} CUarray_format;

typedef enum CUaddress_mode_enum {
  CU_TR_ADDRESS_MODE_WRAP   = 0,
  CU_TR_ADDRESS_MODE_CLAMP  = 1,
  CU_TR_ADDRESS_MODE_MIRROR = 2,
  CU_TR_ADDRESS_MODE_BORDER = 3
} CUaddress_mode;

typedef enum CUfilter_mode_enum {
  CU_TR_FILTER_MODE_POINT  = 0,
  CU_TR_FILTER_MODE_LINEAR = 1
} CUfilter_mode;

typedef enum CUresourcetype_enum {
  CU_RESOURCE_TYPE_ARRAY           = 0x00,
  CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 0x01, /* not built: CUDA_ERROR_NOT_SUPPORTED */
  CU_RESOURCE_TYPE_LINEAR          = 0x02,
  CU_RESOURCE_TYPE_PITCH2D         = 0x03
} CUresourcetype;

typedef enum CUresourceViewFormat_enum {
  CU_RES_VIEW_FORMAT_NONE = 0x00 /* the only view minicuda takes: the resource's own format */
} CUresourceViewFormat;

typedef struct CUmipmappedArray_st* CUmipmappedArray;
typedef unsigned long long CUtexObject_v1;
typedef CUtexObject_v1 CUtexObject;
typedef unsigned long long CUsurfObject_v1;
typedef CUsurfObject_v1 CUsurfObject;

/* A 1-D (Height 0) or 2-D array. */
typedef struct CUDA_ARRAY_DESCRIPTOR_st {
  size_t Width;
  size_t Height;
  CUarray_format Format;
  unsigned int NumChannels; /* 1, 2 or 4 */
} CUDA_ARRAY_DESCRIPTOR_v2;
typedef CUDA_ARRAY_DESCRIPTOR_v2 CUDA_ARRAY_DESCRIPTOR;

/* A 1-D, 2-D or 3-D array; with CUDA_ARRAY3D_LAYERED, Depth counts layers; with
 * CUDA_ARRAY3D_CUBEMAP, Width == Height and Depth is 6 (times the layers when also LAYERED). */
typedef struct CUDA_ARRAY3D_DESCRIPTOR_st {
  size_t Width;
  size_t Height;
  size_t Depth;
  CUarray_format Format;
  unsigned int NumChannels;
  unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR_v2;
typedef CUDA_ARRAY3D_DESCRIPTOR_v2 CUDA_ARRAY3D_DESCRIPTOR;

#define CUDA_ARRAY3D_LAYERED        0x01
#define CUDA_ARRAY3D_2DARRAY        0x01
#define CUDA_ARRAY3D_SURFACE_LDST   0x02
#define CUDA_ARRAY3D_CUBEMAP        0x04
#define CUDA_ARRAY3D_TEXTURE_GATHER 0x08

/* What a texture or surface object reads. */
typedef struct CUDA_RESOURCE_DESC_st {
  CUresourcetype resType;
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUmipmappedArray hMipmappedArray;
    } mipmap;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned int numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned int numChannels;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags; /* must be 0 */
} CUDA_RESOURCE_DESC_v1;
typedef CUDA_RESOURCE_DESC_v1 CUDA_RESOURCE_DESC;

/* How a texture object samples. flags: CU_TRSF_*. */
typedef struct CUDA_TEXTURE_DESC_st {
  CUaddress_mode addressMode[3];
  CUfilter_mode filterMode;
  unsigned int flags;
  unsigned int maxAnisotropy;
  CUfilter_mode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
} CUDA_TEXTURE_DESC_v1;
typedef CUDA_TEXTURE_DESC_v1 CUDA_TEXTURE_DESC;

#define CU_TRSF_READ_AS_INTEGER                0x01 /* integer formats return integers, not [0, 1] floats */
#define CU_TRSF_NORMALIZED_COORDINATES         0x02
#define CU_TRSF_SRGB                           0x10
#define CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION 0x20
#define CU_TRSF_SEAMLESS_CUBEMAP               0x40

typedef struct CUDA_RESOURCE_VIEW_DESC_st {
  CUresourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
  unsigned int reserved[16];
} CUDA_RESOURCE_VIEW_DESC_v1;
typedef CUDA_RESOURCE_VIEW_DESC_v1 CUDA_RESOURCE_VIEW_DESC;

/* Creates an array of device memory (pitch-linear rows; docs/textures.md). NULL arguments, a zero
 * Width, an unknown format, NumChannels other than 1, 2 or 4, a cubemap not square with 6 faces
 * per cube: CUDA_ERROR_INVALID_VALUE. No room: CUDA_ERROR_OUT_OF_MEMORY. */
CUresult CUDAAPI cuArrayCreate_v2(CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* pAllocateArray);
CUresult CUDAAPI cuArray3DCreate_v2(CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray);
/* Frees the array's memory. An unknown handle: CUDA_ERROR_INVALID_HANDLE. */
CUresult CUDAAPI cuArrayDestroy(CUarray hArray);
/* The descriptor the array was created with (the 2-D form refuses 3-D arrays: CUDA_ERROR_INVALID_VALUE). */
CUresult CUDAAPI cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* pArrayDescriptor, CUarray hArray);
CUresult CUDAAPI cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor, CUarray hArray);

/* Creates a texture object: writes its texture header into device memory; *pTexObject is the
 * header's address. An unknown array: CUDA_ERROR_INVALID_HANDLE. NULL pTexObject or pResDesc, a
 * linear resource not aligned to 512 bytes, linear filtering of integers read as integers:
 * CUDA_ERROR_INVALID_VALUE; a
 * mipmapped array or a resource view with a format: CUDA_ERROR_NOT_SUPPORTED. */
CUresult CUDAAPI cuTexObjectCreate(CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc,
                                   const CUDA_TEXTURE_DESC* pTexDesc, const CUDA_RESOURCE_VIEW_DESC* pResViewDesc);
/* Frees the object's header. 0: nothing. An unknown object: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuTexObjectDestroy(CUtexObject texObject);
CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc, CUtexObject texObject);
CUresult CUDAAPI cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC* pTexDesc, CUtexObject texObject);
CUresult CUDAAPI cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC* pResViewDesc, CUtexObject texObject);
/* Creates a surface object over an array (the H200 does not require CUDA_ARRAY3D_SURFACE_LDST).
 * Any other resource: CUDA_ERROR_INVALID_VALUE; an unknown array: CUDA_ERROR_INVALID_HANDLE. */
CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc);
CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject);
CUresult CUDAAPI cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc, CUsurfObject surfObject);

#define cuArrayCreate           cuArrayCreate_v2
#define cuArray3DCreate         cuArray3DCreate_v2
#define cuArrayGetDescriptor    cuArrayGetDescriptor_v2
#define cuArray3DGetDescriptor  cuArray3DGetDescriptor_v2

#endif /* MINICUDA_CUDA_TEXTURES_H */
