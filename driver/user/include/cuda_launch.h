/* cuda_launch.h -- part of minicuda's cuda.h (included by it, inside its extern "C" block, after
 * the launch attributes of cuda_attributes.h): the keys of cuLaunchKernel's `extra` array and
 * cuLaunchKernelEx with its launch configuration. Names and values are CUDA 13.0's; the comments
 * are minicuda's. Include cuda.h, not this file. */
#ifndef MINICUDA_CUDA_LAUNCH_H
#define MINICUDA_CUDA_LAUNCH_H

#ifndef __cuda_cuda_h__
#error "include cuda.h"
#endif

/* --- The `extra` array ---
 * Instead of kernelParams (one pointer per parameter), a launch may pass the parameters as one
 * buffer the caller laid out: `extra` is a list of key, value pairs that ends with
 * CU_LAUNCH_PARAM_END (or NULL, the same value):
 *   CU_LAUNCH_PARAM_BUFFER_POINTER, buffer   the parameters, each at its offset and alignment
 *                                            (cuFuncGetParamInfo gives them)
 *   CU_LAUNCH_PARAM_BUFFER_SIZE, &size       a size_t*: how many bytes the buffer holds
 * The _AS_INT forms are the same keys as integer constants, for switch labels and templates. */
#define CU_LAUNCH_PARAM_END_AS_INT            0x00
#define CU_LAUNCH_PARAM_END                   ((void*)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER        ((void*)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT    0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE           ((void*)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)

/* --- cuLaunchKernelEx --- */
/* One launch attribute: which (id) and its value; the padding keeps value 8-byte aligned. */
typedef struct CUlaunchAttribute_st {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
} CUlaunchAttribute;
/* The shape of a launch, its stream and numAttrs attributes at attrs. */
typedef struct CUlaunchConfig_st {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned int numAttrs;
} CUlaunchConfig_v1;
typedef CUlaunchConfig_v1 CUlaunchConfig;

/* cuLaunchKernel with its shape in *config, and the attributes: IGNORE; COOPERATIVE (non-zero: as
 * cuLaunchCooperativeKernel); CLUSTER_DIMENSION of 1x1x1 (no cluster). Any other attribute of the
 * list: CUDA_ERROR_NOT_SUPPORTED, named in the trace; an id that is no attribute, config NULL, or
 * attrs NULL with numAttrs > 0: CUDA_ERROR_INVALID_VALUE. Parameters and their errors as
 * cuLaunchKernel's, `extra` included. */
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra);
/* As cuLaunchKernelEx; hStream 0 is the calling thread's per-thread stream. */
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra);

#endif /* MINICUDA_CUDA_LAUNCH_H */
