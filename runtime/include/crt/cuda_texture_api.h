/*
 * crt/cuda_texture_api.h -- CUDA arrays, texture objects and surface objects in the runtime API
 * (included by cuda_runtime_api.h). Each call goes through libcuda's (cuArray3DCreate_v2,
 * cuMemcpy3D_v2, cuTexObjectCreate, cuSurfObjectCreate, ...). The names and signatures are CUDA
 * 13.0's, including the deprecated array copies its header still declares (cudaMemcpyToArray and
 * friends); the comments are minicuda's own. docs/textures.md tells what an array is in memory.
 */
#ifndef MINICUDA_CRT_CUDA_TEXTURE_API_H
#define MINICUDA_CRT_CUDA_TEXTURE_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* A channel description: bits of x, y, z, w and their kind (no device needed). */
struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);

/* Allocates a 1-D (height 0) or 2-D array (cuArray3DCreate_v2). flags: cudaArrayDefault or
 * cudaArraySurfaceLoadStore / cudaArrayTextureGather. NULL array or desc, zero width:
 * cudaErrorInvalidValue; channels of different sizes or three channels:
 * cudaErrorInvalidChannelDescriptor (H200: tests/data/h200/texture/out/texture.txt). */
cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width,
                                      size_t height MINICUDA_DV(0), unsigned int flags MINICUDA_DV(0));
/* Allocates a 1-D, 2-D, 3-D, layered (cudaArrayLayered: depth counts layers) or cubemap
 * (cudaArrayCubemap: width == height, depth 6) array. */
cudaError_t CUDARTAPI cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc,
                                        struct cudaExtent extent, unsigned int flags MINICUDA_DV(0));
/* Frees an array (cuArrayDestroy). NULL: success. */
cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array);
/* The array's channel description, extent (0 for absent dimensions) and flags. */
cudaError_t CUDARTAPI cudaArrayGetInfo(struct cudaChannelFormatDesc* desc, struct cudaExtent* extent,
                                       unsigned int* flags, cudaArray_t array);
cudaError_t CUDARTAPI cudaGetChannelDesc(struct cudaChannelFormatDesc* desc, cudaArray_const_t array);

/* Copies between arrays and memory. wOffset and width are in bytes, hOffset and height in rows.
 * A region outside the array: cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                          size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                            size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                               cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                               size_t width, size_t height,
                                               enum cudaMemcpyKind kind MINICUDA_DV(cudaMemcpyDeviceToDevice));
cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                               size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                               cudaStream_t stream MINICUDA_DV(0));
cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t width, size_t height,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream MINICUDA_DV(0));
/* Deprecated, still declared by CUDA 13: count bytes from (wOffset, hOffset) on, row by row. */
cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                        size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                          size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                             size_t count, enum cudaMemcpyKind kind, cudaStream_t stream MINICUDA_DV(0));
cudaError_t CUDARTAPI cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                               size_t count, enum cudaMemcpyKind kind, cudaStream_t stream MINICUDA_DV(0));

/* Texture objects (cuTexObjectCreate): *pTexObject is the object's handle for kernels. NULL
 * pTexObject, pResDesc or pTexDesc, misaligned linear memory: cudaErrorInvalidValue; an unknown
 * array: cudaErrorInvalidResourceHandle; linear filtering of integers read as element type:
 * cudaErrorInvalidFilterSetting. Destroying object 0 is a success, as on the H200. */
cudaError_t CUDARTAPI cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                              const struct cudaTextureDesc* pTexDesc,
                                              const struct cudaResourceViewDesc* pResViewDesc);
cudaError_t CUDARTAPI cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t CUDARTAPI cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* pResDesc, cudaTextureObject_t texObject);
cudaError_t CUDARTAPI cudaGetTextureObjectTextureDesc(struct cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject);
cudaError_t CUDARTAPI cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc* pResViewDesc,
                                                           cudaTextureObject_t texObject);
/* Surface objects over arrays (cuSurfObjectCreate); like the H200, an array made without
 * cudaArraySurfaceLoadStore is taken too. */
cudaError_t CUDARTAPI cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const struct cudaResourceDesc* pResDesc);
cudaError_t CUDARTAPI cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t CUDARTAPI cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc* pResDesc, cudaSurfaceObject_t surfObject);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* MINICUDA_CRT_CUDA_TEXTURE_API_H */
